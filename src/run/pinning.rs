//! Spreading the measuring ranks of a host over its cores while they busy-wait.
//!
//! When more ranks are launched than a host has cores, launchers leave them unbound (Open MPI
//! does), and the kernel may put two measuring ranks on one core while the idle ranks sleep:
//! the one that busy-waits then keeps its peer, still inside the operation, off the CPU until
//! the next window. Pinning each measuring rank to its own core for the time of one P is what
//! `--bind-to core` would have done for them.

use std::mem::{size_of, zeroed};

/// A rank's CPU affinity before pinning, restored on drop.
pub struct Pin {
    saved: libc::cpu_set_t,
}

impl Pin {
    /// Pins the calling thread to the `index`-th CPU it may run on, if it may run on more than
    /// one and there are more than `index` of them. Returns `None` (and changes nothing)
    /// when the launcher already bound the rank or the CPUs do not go round.
    pub fn to_own_core(index: usize) -> Option<Pin> {
        // SAFETY: cpu_set_t is plain data; the calls read or write exactly one set.
        unsafe {
            let mut saved: libc::cpu_set_t = zeroed();
            if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut saved) != 0 {
                return None;
            }
            let allowed: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &saved))
                .collect();
            if allowed.len() < 2 || index >= allowed.len() {
                return None;
            }
            let cpu = allowed[index];
            let mut one: libc::cpu_set_t = zeroed();
            libc::CPU_SET(cpu, &mut one);
            if libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &one) != 0 {
                return None;
            }
            Some(Pin { saved })
        }
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        // SAFETY: restores the set read in `to_own_core`.
        unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &self.saved) };
    }
}
