//! Where noise comes from, as far as the machine tells: the kernel's per-CPU interrupt and
//! softirq counters (`/proc/interrupts`, `/proc/softirqs`), the thread's context switches
//! (`getrusage(RUSAGE_THREAD)`), and whether the kernel's `osnoise` tracer could attribute
//! detours (Linux >= 5.14 with tracefs mounted and root). Each source says whether it was
//! used and, if not, why; nothing is guessed.

use crate::records::noise::MachineCounts;

/// Per-CPU counters of one `/proc` table: (line name, count per CPU).
pub type CpuTable = Vec<(String, Vec<u64>)>;

/// Parses `/proc/interrupts` or `/proc/softirqs`: a header of `CPUn` columns, then lines
/// `NAME: c0 c1 ... [description]`. The name of an interrupt line is its number or label
/// joined with its description (`24 IO-APIC 5-edge ACPI:Ged`, `LOC Local timer interrupts`).
pub fn parse_cpu_table(text: &str) -> CpuTable {
    let mut lines = text.lines();
    let Some(head) = lines.next() else {
        return Vec::new();
    };
    let cpus = head
        .split_whitespace()
        .filter(|w| w.starts_with("CPU"))
        .count();
    lines
        .filter_map(|line| {
            let (name, rest) = line.split_once(':')?;
            let mut words = rest.split_whitespace();
            let counts: Vec<u64> = words
                .by_ref()
                .take(cpus)
                .map_while(|w| w.parse().ok())
                .collect();
            if counts.is_empty() {
                return None;
            }
            let desc: Vec<&str> = rest.split_whitespace().skip(counts.len()).collect();
            let name = if desc.is_empty() {
                name.trim().to_string()
            } else {
                format!("{} {}", name.trim(), desc.join(" "))
            };
            Some((name, counts))
        })
        .collect()
}

/// Lines whose count on `cpu` grew from `before` to `after`: (name, growth), largest first.
pub fn grown_on(before: &CpuTable, after: &CpuTable, cpu: usize) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = after
        .iter()
        .filter_map(|(name, counts)| {
            let now = *counts.get(cpu)?;
            let was = before
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, c)| c.get(cpu).copied())
                .unwrap_or(0);
            (now > was).then(|| (name.clone(), now - was))
        })
        .collect();
    out.sort_by_key(|x| std::cmp::Reverse(x.1));
    out
}

/// A snapshot of this thread's counters, taken before and after the loop.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub interrupts: Option<CpuTable>,
    pub softirqs: Option<CpuTable>,
    /// Voluntary and involuntary context switches of the calling thread.
    pub switches: Option<(u64, u64)>,
    /// The CPU the thread runs on.
    pub cpu: Option<u32>,
}

impl Snapshot {
    /// Reads every source available now (cheap: two small /proc files and one system call).
    pub fn take() -> Snapshot {
        Snapshot {
            interrupts: std::fs::read_to_string("/proc/interrupts")
                .ok()
                .map(|t| parse_cpu_table(&t)),
            softirqs: std::fs::read_to_string("/proc/softirqs")
                .ok()
                .map(|t| parse_cpu_table(&t)),
            switches: thread_switches(),
            cpu: current_cpu(),
        }
    }

    /// What the machine counted between `self` (before) and `after`, on the CPU of `self`;
    /// whether the thread ended on another CPU.
    pub fn counts_until(&self, after: &Snapshot) -> (MachineCounts, bool) {
        let mut m = MachineCounts::default();
        if let Some(cpu) = self.cpu.map(|c| c as usize) {
            if let (Some(b), Some(a)) = (&self.interrupts, &after.interrupts) {
                m.interrupts = grown_on(b, a, cpu);
            }
            if let (Some(b), Some(a)) = (&self.softirqs, &after.softirqs) {
                m.softirqs = grown_on(b, a, cpu);
            }
        }
        if let (Some(b), Some(a)) = (self.switches, after.switches) {
            m.voluntary_switches = a.0.saturating_sub(b.0);
            m.involuntary_switches = a.1.saturating_sub(b.1);
        }
        (m, self.cpu != after.cpu)
    }

    /// The sources this snapshot could read, and why others could not, for the header.
    pub fn sources(&self) -> Vec<String> {
        let used = |ok: bool, name: &str, why: &str| {
            if ok {
                format!("{name}: per-CPU counts before and after, on the rank's CPU")
            } else {
                format!("{name}: not available ({why})")
            }
        };
        vec![
            used(
                self.interrupts.is_some() && self.cpu.is_some(),
                "/proc/interrupts",
                "unreadable, or the CPU is unknown",
            ),
            used(
                self.softirqs.is_some() && self.cpu.is_some(),
                "/proc/softirqs",
                "unreadable, or the CPU is unknown",
            ),
            if self.switches.is_some() {
                "getrusage(RUSAGE_THREAD): context switches of the loop's thread".into()
            } else {
                "getrusage(RUSAGE_THREAD): not available".into()
            },
            osnoise_status(),
        ]
    }
}

/// Voluntary and involuntary context switches of the calling thread (Linux), or `None`.
fn thread_switches() -> Option<(u64, u64)> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed rusage is valid; getrusage fills it.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) } == 0 {
            return Some((u.ru_nvcsw as u64, u.ru_nivcsw as u64));
        }
    }
    None
}

/// The CPU the calling thread runs on, or `None`.
fn current_cpu() -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; returns -1 on error.
        let c = unsafe { libc::sched_getcpu() };
        if c >= 0 {
            return Some(c as u32);
        }
    }
    None
}

/// Whether the `osnoise` tracer could be used here, in words. delaybench does not run it
/// itself: the tracer starts a measuring thread of its own on every CPU, which would compete
/// with the noise loop; the line tells the user whether `rtla osnoise` can be run beside.
pub fn osnoise_status() -> String {
    let dirs = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];
    let Some(dir) = dirs
        .iter()
        .find(|d| std::path::Path::new(d).join("available_tracers").exists())
    else {
        return "osnoise: not available (tracefs is not mounted at /sys/kernel/tracing or \
                /sys/kernel/debug/tracing)"
            .into();
    };
    match std::fs::read_to_string(std::path::Path::new(dir).join("available_tracers")) {
        Ok(t) if t.split_whitespace().any(|w| w == "osnoise") => format!(
            "osnoise: available in {dir} but not run (it measures with a thread of its own on \
             every CPU, beside the loop); run `rtla osnoise top` separately to attribute"
        ),
        Ok(_) => format!(
            "osnoise: not available (the kernel's tracers in {dir} do not include osnoise; \
             Linux >= 5.14 with CONFIG_OSNOISE_TRACER)"
        ),
        Err(e) => format!("osnoise: not available ({dir}/available_tracers: {e}; needs root)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_tables_parse_and_grow_per_cpu() {
        let before = parse_cpu_table(
            "           CPU0       CPU1\n 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n\
             LOC:     100     200   Local timer interrupts\nERR:          0\n",
        );
        assert_eq!(before.len(), 3);
        assert_eq!(before[0].0, "24 IO-APIC 5-edge ACPI:Ged");
        assert_eq!(before[1].1, vec![100, 200]);
        let after = parse_cpu_table(
            "           CPU0       CPU1\n 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n\
             LOC:     150     900   Local timer interrupts\nERR:          0\n",
        );
        assert_eq!(
            grown_on(&before, &after, 1),
            vec![("LOC Local timer interrupts".to_string(), 700)]
        );
        assert_eq!(grown_on(&before, &after, 0)[0].1, 50);
        let soft = parse_cpu_table("                    CPU0       CPU1\n          HI:          0          0\n       TIMER:     285159     254835\n");
        assert_eq!(soft[1], ("TIMER".to_string(), vec![285159, 254835]));
    }

    #[test]
    fn a_snapshot_names_every_source() {
        let s = Snapshot::take();
        let sources = s.sources();
        assert_eq!(sources.len(), 4);
        assert!(sources[3].starts_with("osnoise: "), "{sources:?}");
        let (m, _) = s.counts_until(&Snapshot::take());
        // Counters only grow.
        assert!(m.interrupts.iter().all(|(_, c)| *c > 0));
    }
}
