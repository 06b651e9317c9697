//! The arguments of `delaybench simulate` (the measurement's plan on SimGrid's SMPI). They
//! are defined beside the simulator in `smpi/`, whose entry point takes them whole; the
//! command line names them from here like every other command's arguments.

pub use crate::smpi::SmpiArgs;
