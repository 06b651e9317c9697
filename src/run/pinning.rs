//! Spreading the measuring ranks of a host over its cores while they busy-wait.
//!
//! When more ranks are launched than a host has cores, launchers leave them unbound (Open MPI
//! does), and the kernel may put two measuring ranks on one core while the idle ranks sleep:
//! the one that busy-waits then keeps its peer, still inside the operation, off the CPU until
//! the next window. Pinning each measuring rank to its own core for the time of one P is what
//! `--bind-to core` would have done for them.

pub use crate::affinity::Pin;
