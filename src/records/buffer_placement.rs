//! Where one rank and its message buffers were while a configuration was measured: the CPU
//! and core it ran on, the virtual and physical pages of its send and receive buffers, and
//! whether those pages belong to a huge page.
//!
//! Hunold and Carpen-Amarie (2016) show that results differ from one `mpirun` to the next,
//! which is why launches are the unit of replication; these are the conditions a launch
//! fixes and a repetition cannot change, recorded so that `analyze --placement` can show
//! which of them tracks the launch medians (docs/metrics.md, "Between launches").

use serde::{Deserialize, Serialize};

/// Bytes of a base page, the unit of `send_pfn`/`recv_pfn` and of the page offsets.
pub const PAGE_BYTES: u64 = 4096;

/// One rank's placement for one configuration, taken after the warm-up (so the buffers'
/// pages are touched) and before the first timed repetition. Unknown values are `None`
/// (`-1` for the CPU numbers): the physical page needs `CAP_SYS_ADMIN`
/// (`/proc/self/pagemap`, Linux's `Documentation/admin-guide/mm/pagemap.rst`), the huge-page
/// bit root (`/proc/kpageflags`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BufferPlacement {
    /// The logical CPU the rank ran on (`sched_getcpu`), -1 when unknown.
    pub cpu: i32,
    /// That CPU's physical core (`/sys/devices/system/cpu/cpuN/topology/core_id`); two
    /// ranks with the same core and package are SMT siblings. -1 when unknown.
    pub core: i32,
    /// That CPU's package (`topology/physical_package_id`), -1 when unknown.
    pub package: i32,
    /// Virtual address of the first byte of the send buffer (0: the kernel sends nothing).
    pub send_addr: u64,
    /// Virtual address of the first byte of the receive buffer (0: the kernel receives
    /// into nothing).
    pub recv_addr: u64,
    /// Physical page frame of the send buffer's first page.
    pub send_pfn: Option<u64>,
    /// Physical page frame of the receive buffer's first page.
    pub recv_pfn: Option<u64>,
    /// The send buffer's first page is part of a transparent or hugetlb huge page.
    pub send_huge: Option<bool>,
    /// The receive buffer's first page is part of a huge page.
    pub recv_huge: Option<bool>,
}

impl BufferPlacement {
    /// Offset of the send buffer within its 4 KiB page, bytes.
    pub fn send_page_offset(&self) -> u64 {
        self.send_addr % PAGE_BYTES
    }

    /// Offset of the receive buffer within its 4 KiB page, bytes.
    pub fn recv_page_offset(&self) -> u64 {
        self.recv_addr % PAGE_BYTES
    }
}

/// Unknown as NaN on the wire; integers below 2^53 (addresses, frames) are exact in f64.
fn opt(x: Option<u64>) -> f64 {
    x.map_or(f64::NAN, |v| v as f64)
}

fn back(x: f64) -> Option<u64> {
    (!x.is_nan()).then_some(x as u64)
}

impl crate::wire::Wire for BufferPlacement {
    const LEN: usize = 9;
    fn put(&self, out: &mut Vec<f64>) {
        out.extend([
            f64::from(self.cpu),
            f64::from(self.core),
            f64::from(self.package),
            self.send_addr as f64,
            self.recv_addr as f64,
            opt(self.send_pfn),
            opt(self.recv_pfn),
            opt(self.send_huge.map(u64::from)),
            opt(self.recv_huge.map(u64::from)),
        ]);
    }
    fn take(x: &[f64]) -> Self {
        BufferPlacement {
            cpu: x[0] as i32,
            core: x[1] as i32,
            package: x[2] as i32,
            send_addr: x[3] as u64,
            recv_addr: x[4] as u64,
            send_pfn: back(x[5]),
            recv_pfn: back(x[6]),
            send_huge: back(x[7]).map(|v| v != 0),
            recv_huge: back(x[8]).map(|v| v != 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{decode, encode};

    #[test]
    fn the_wire_keeps_every_field_and_the_unknowns() {
        let known = BufferPlacement {
            cpu: 3,
            core: 1,
            package: 0,
            send_addr: 0x7f12_3456_7010,
            recv_addr: 0x5555_0000_0ff0,
            send_pfn: Some(0x1_2345),
            recv_pfn: Some(7),
            send_huge: Some(true),
            recv_huge: Some(false),
        };
        let unknown = BufferPlacement {
            cpu: -1,
            core: -1,
            package: -1,
            send_addr: 0,
            recv_addr: 0,
            send_pfn: None,
            recv_pfn: None,
            send_huge: None,
            recv_huge: None,
        };
        let both = [known, unknown];
        assert_eq!(decode::<BufferPlacement>(&encode(&both)), both);
        assert_eq!(known.send_page_offset(), 0x010);
        assert_eq!(known.recv_page_offset(), 0xff0);
    }
}
