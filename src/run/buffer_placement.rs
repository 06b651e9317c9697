//! Reading where this rank runs and where its message buffers are (Linux): the CPU from
//! `sched_getcpu`, its core and package from sysfs, each buffer's physical page from
//! `/proc/self/pagemap` and the huge-page bits of that page from `/proc/kpageflags`
//! (Linux's `Documentation/admin-guide/mm/pagemap.rst`). Read once per configuration,
//! outside every timed region; a value the system does not give is recorded as unknown.

use crate::records::{BufferPlacement, PAGE_BYTES};
use std::fs::File;
use std::os::unix::fs::FileExt;

/// pagemap: the page is present in RAM.
const PM_PRESENT: u64 = 1 << 63;
/// pagemap: bits 0-54 hold the page frame number (zero without `CAP_SYS_ADMIN`).
const PM_PFN_MASK: u64 = (1 << 55) - 1;
/// kpageflags: part of a hugetlbfs page.
const KPF_HUGE: u64 = 1 << 17;
/// kpageflags: part of a transparent huge page.
const KPF_THP: u64 = 1 << 22;

/// This rank's placement with send buffer at `send_addr` and receive buffer at `recv_addr`
/// (0 where the kernel has none).
pub fn here(send_addr: usize, recv_addr: usize) -> BufferPlacement {
    // SAFETY: sched_getcpu takes no arguments and only reads the calling thread's CPU.
    let cpu = unsafe { libc::sched_getcpu() };
    let topology = |what: &str| -> i32 {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{what}"))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(-1)
    };
    let (core, package) = if cpu < 0 {
        (-1, -1)
    } else {
        (topology("core_id"), topology("physical_package_id"))
    };
    let pagemap = File::open("/proc/self/pagemap").ok();
    let kpageflags = File::open("/proc/kpageflags").ok();
    let frame = |addr: usize| -> Option<u64> {
        if addr == 0 {
            return None;
        }
        let entry = read_u64(pagemap.as_ref()?, (addr as u64 / PAGE_BYTES) * 8)?;
        let pfn = entry & PM_PFN_MASK;
        (entry & PM_PRESENT != 0 && pfn != 0).then_some(pfn)
    };
    let huge = |pfn: Option<u64>| -> Option<bool> {
        let flags = read_u64(kpageflags.as_ref()?, pfn? * 8)?;
        Some(flags & (KPF_HUGE | KPF_THP) != 0)
    };
    let (send_pfn, recv_pfn) = (frame(send_addr), frame(recv_addr));
    BufferPlacement {
        cpu,
        core,
        package,
        send_addr: send_addr as u64,
        recv_addr: recv_addr as u64,
        send_pfn,
        recv_pfn,
        send_huge: huge(send_pfn),
        recv_huge: huge(recv_pfn),
    }
}

/// The little-endian u64 at byte `offset` of `file`, `None` when it cannot be read.
fn read_u64(file: &File, offset: u64) -> Option<u64> {
    let mut word = [0u8; 8];
    file.read_exact_at(&mut word, offset).ok()?;
    Some(u64::from_le_bytes(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_touched_buffer_is_found_where_it_is() {
        let send = vec![1u8; 64 * 1024];
        let recv = vec![2u8; 64 * 1024];
        let p = here(send.as_ptr() as usize, recv.as_ptr() as usize);
        assert_eq!(p.send_addr, send.as_ptr() as u64);
        assert_eq!(p.recv_addr, recv.as_ptr() as u64);
        // The CPU this thread runs on is online, so sysfs names its core.
        assert!(p.cpu >= 0, "{p:?}");
        assert!(p.core >= 0 && p.package >= 0, "{p:?}");
        // Without root the frames are unknown, never a made-up frame (pagemap then reads
        // zeros); as root they are known unless a container withholds CAP_SYS_ADMIN.
        // SAFETY: geteuid only reads the process's user id.
        let root = unsafe { libc::geteuid() } == 0;
        if !root {
            assert!(p.send_pfn.is_none() && p.recv_pfn.is_none(), "{p:?}");
        }
        if let Some(pfn) = p.send_pfn {
            assert!(pfn > 0);
            assert_eq!(p.send_huge.is_some(), root, "{p:?}");
        }
        assert!(here(0, 0).send_pfn.is_none());
    }
}
