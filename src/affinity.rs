//! The CPUs a thread may run on, and pinning it to one: what the run's pinning, the host
//! survey and the threaded clock simulator each need, through `nix`'s `sched_getaffinity`
//! and `sched_setaffinity` (Linux).

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The calling thread's CPUs, ascending; empty when they cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    sched_getaffinity(Pid::from_raw(0))
        .map(|set| cpus_of(&set))
        .unwrap_or_default()
}

fn cpus_of(set: &CpuSet) -> Vec<usize> {
    (0..CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect()
}

/// Pins the calling thread to `cpu`. Errors: the kernel's (a CPU outside the allowed set,
/// or past the set's size).
pub fn pin_to(cpu: usize) -> nix::Result<()> {
    let mut one = CpuSet::new();
    one.set(cpu)?;
    sched_setaffinity(Pid::from_raw(0), &one)
}

/// A thread's CPU affinity before [`Pin::to_own_core`], restored on drop.
pub struct Pin {
    saved: CpuSet,
}

impl Pin {
    /// Pins the calling thread to the `index`-th CPU it may run on, if it may run on more than
    /// one and there are more than `index` of them. Returns `None` (and changes nothing)
    /// when the launcher already bound the thread, the CPUs do not go round, or the kernel
    /// refuses.
    pub fn to_own_core(index: usize) -> Option<Pin> {
        let saved = sched_getaffinity(Pid::from_raw(0)).ok()?;
        let allowed = cpus_of(&saved);
        if allowed.len() < 2 || index >= allowed.len() {
            return None;
        }
        pin_to(allowed[index]).ok()?;
        Some(Pin { saved })
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        // Nothing to do on failure: the thread keeps its one core, as when pinned.
        let _ = sched_setaffinity(Pid::from_raw(0), &self.saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_narrows_to_one_cpu_and_its_drop_restores_the_set() {
        // On its own thread, so other tests keep their affinity.
        std::thread::spawn(|| {
            let before = allowed_cpus();
            assert!(!before.is_empty());
            match Pin::to_own_core(before.len() - 1) {
                Some(pin) => {
                    assert_eq!(allowed_cpus(), [before[before.len() - 1]]);
                    drop(pin);
                    assert_eq!(allowed_cpus(), before);
                }
                // One CPU: nothing to spread over, and nothing changed.
                None => assert_eq!((before.len(), allowed_cpus()), (1, before.clone())),
            }
            assert!(Pin::to_own_core(before.len()).is_none());
            assert!(pin_to(CpuSet::count()).is_err());
        })
        .join()
        .unwrap();
    }
}
