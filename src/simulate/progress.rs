//! What one simulated P cost (wall time, the engine's peak memory) and how long the P's
//! left of a curve will take: beyond the simulator's start-up, SMPI's wall time per launch
//! grows as a power of P (cost ∝ P^k, k ≈ 1-3 depending on the algorithm,
//! docs/simulate.md), so the exponent fitted to the P's done so far extrapolates the rest.
//! The LogGOPS engine has no start-up and its small P's take milliseconds: only P's that
//! took at least [`MIN_FIT_S`] are fitted. Here too: this process's peak memory, and the
//! refusal of a P whose estimate exceeds the machine's memory.

/// Wall time of one finished P, for the estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    /// Process count.
    pub procs: u32,
    /// Wall time of its simulation(s), seconds.
    pub wall_s: f64,
}

/// The simulator's start-up, seconds: the cheapest P done so far (at P = 2 a launch is
/// almost all start-up, about half a second whatever P).
fn startup_s(done: &[Done]) -> f64 {
    done.iter().map(|d| d.wall_s).fold(f64::INFINITY, f64::min)
}

/// Time beyond the start-up, seconds, below which a P's cost is not fitted: a P that took
/// milliseconds beyond it (the LogGOPS engine's small P's, whose start-up is nothing) is
/// mostly timer and scheduling jitter, and two such P's gave exponents anywhere in the
/// clamp, estimates from 177 s to 8,138 s for the same curve.
pub const MIN_FIT_S: f64 = 0.25;

/// The fitted exponent k of cost − start-up ∝ P^k: the log-log slope over the last two
/// finished P's whose time exceeds the start-up ([`startup_s`]) by at least [`MIN_FIT_S`];
/// a fit on the whole time would read the flat start-up of the small P's as k ≈ 0.
/// Clamped to [1, 4]: every rank makes at least one simulated action per call, so no curve
/// grows slower than P. `None` before two such P's.
pub fn exponent(done: &[Done]) -> Option<f64> {
    let c0 = startup_s(done);
    let pts: Vec<(f64, f64)> = done
        .iter()
        .filter(|d| d.wall_s - c0 >= MIN_FIT_S && d.procs > 0)
        .map(|d| ((d.procs as f64).ln(), (d.wall_s - c0).ln()))
        .collect();
    let [.., (x1, y1), (x2, y2)] = pts[..] else {
        return None;
    };
    if x2 <= x1 {
        return None;
    }
    Some(((y2 - y1) / (x2 - x1)).clamp(1.0, 4.0))
}

/// Estimated wall time, seconds, of the P's in `left`, and the exponent used: per P the
/// start-up plus the last finished P's time beyond it scaled by (P / P_last)^k, k from
/// [`exponent`]. `None` when k cannot be fitted yet.
pub fn remaining_s(done: &[Done], left: &[u32]) -> Option<(f64, f64)> {
    let k = exponent(done)?;
    let c0 = startup_s(done);
    let last = done.last()?;
    let s = left
        .iter()
        .map(|&p| c0 + (last.wall_s - c0).max(0.0) * (p as f64 / last.procs as f64).powf(k))
        .sum();
    Some((s, k))
}

/// The tail of a P's progress line: its peak memory and what is left, e.g.
/// `, peak memory 133 MB; left: P = 16384, about 2400 s (cost ∝ P^2.6)`.
pub fn line_tail(done: &[Done], left: &[u32], peak_bytes: u64) -> String {
    let mut s = format!(", peak memory {} MB", peak_bytes / 1_000_000);
    if left.is_empty() {
        return s;
    }
    let names: Vec<String> = left.iter().map(u32::to_string).collect();
    // ", " between P's: `P = 16,128` would read as one P of sixteen thousand.
    s.push_str(&format!("; left: P = {}", names.join(", ")));
    match remaining_s(done, left) {
        Some((secs, k)) => s.push_str(&format!(", about {secs:.0} s (cost ∝ P^{k:.1})")),
        None => s.push_str(", no estimate before two P's are done"),
    }
    s
}

/// This process's peak resident memory so far, bytes (`ru_maxrss` of `getrusage`, which
/// Linux reports in KiB); 0 if it cannot be read.
pub fn peak_rss_bytes() -> u64 {
    // SAFETY: an all-zero rusage is a valid value, and getrusage writes only into it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF and a pointer to a live local.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

/// Refuses P = `p` when `estimate` bytes exceed the machine's `available` memory, both
/// named in the message.
///
/// Errors: the refusal, naming P, the estimate and the machine's figure.
pub fn check_memory(p: u32, estimate: u64, available: u64) -> Result<(), String> {
    if estimate <= available {
        return Ok(());
    }
    Err(format!(
        "P = {p} needs about {} MB by the engine's estimate, more than this machine's {} MB \
         of available memory (MemAvailable); leave that P out, or use fewer repetitions",
        estimate / 1_000_000,
        available / 1_000_000
    ))
}

/// Peak resident memory, bytes, of a finished child and everything it waited for (`smpirun`
/// is a script that runs the simulator as its child): `ru_maxrss` of `wait4`, which Linux
/// reports in KiB. Returns the exit status and the peak.
///
/// Errors: the `wait4` error.
pub fn wait_with_peak(
    child: &mut std::process::Child,
) -> std::io::Result<(std::process::ExitStatus, u64)> {
    use std::os::unix::process::ExitStatusExt;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes only into the two
    // locals passed by pointer.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is this process's own unwaited child; pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    Ok((std::process::ExitStatus::from_raw(status), peak))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(procs: u32, wall_s: f64) -> Done {
        Done { procs, wall_s }
    }

    #[test]
    fn a_power_law_above_the_start_up_is_fitted_and_extrapolated() {
        // 0.5 s of start-up + (P / 1024)^2.5
        let t = |p: u32| 0.5 + (p as f64 / 1024.0).powf(2.5);
        let done: Vec<Done> = [2, 256, 512, 1024, 2048]
            .iter()
            .map(|&p| d(p, t(p)))
            .collect();
        let k = exponent(&done).unwrap();
        assert!((k - 2.5).abs() < 1e-3, "{k}");
        let (s, _) = remaining_s(&done, &[4096, 8192]).unwrap();
        let want = t(4096) + t(8192);
        assert!((s - want).abs() < 1e-2 * want, "{s} vs {want}");
    }

    #[test]
    fn no_estimate_before_two_points_above_the_start_up() {
        assert!(exponent(&[d(2, 0.5)]).is_none());
        assert!(exponent(&[d(2, 0.5), d(4, 0.6)]).is_none());
        let line = line_tail(&[d(2, 0.5)], &[4, 8], 150_000_000);
        assert_eq!(
            line,
            ", peak memory 150 MB; left: P = 4, 8, no estimate before two P's are done"
        );
        assert_eq!(
            line_tail(&[d(2, 0.5)], &[], 2_000_000),
            ", peak memory 2 MB"
        );
        // Barely growing times still extrapolate at least linearly in P.
        assert_eq!(exponent(&[d(2, 0.5), d(4, 1.6), d(8, 1.61)]), Some(1.0));
    }

    #[test]
    fn milliseconds_of_jitter_are_not_fitted() {
        // The LogGOPS engine's small P's: no start-up, times of milliseconds whose ratio
        // is jitter (here P^4 between 64 and 128). No estimate until a P takes long enough,
        // then the slope between two such P's.
        let mut done = vec![d(2, 0.001), d(64, 0.002), d(128, 0.032)];
        assert_eq!(exponent(&done), None);
        done.push(d(4096, 1.0));
        assert_eq!(exponent(&done), None);
        done.push(d(8192, 2.1));
        let k = exponent(&done).unwrap();
        assert!((k - (2.099f64 / 0.999).log2()).abs() < 1e-9, "{k}");
    }

    #[test]
    fn a_p_above_the_machine_memory_is_refused_naming_both() {
        assert!(check_memory(1024, 1_000_000, 2_000_000).is_ok());
        let e = check_memory(1 << 26, 60_000_000_000, 20_000_000_000).unwrap_err();
        assert!(
            e.contains("P = 67108864") && e.contains("60000 MB") && e.contains("20000 MB"),
            "{e}"
        );
    }

    #[test]
    fn this_process_peak_memory_is_read() {
        let held = vec![1u8; 64 << 20];
        let peak = peak_rss_bytes();
        assert!(
            (64 << 20..1 << 40).contains(&peak),
            "{peak} {}",
            held[12345]
        );
    }

    #[test]
    fn the_peak_memory_of_a_child_is_read() {
        // This test binary listing its tests: a child that exists on every host, also the
        // one without MPI whose PATH holds only cargo, rustc and cc.
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--list")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let (status, peak) = wait_with_peak(&mut child).unwrap();
        assert!(status.success());
        assert!(peak > 0 && peak < 1 << 34, "{peak}");
    }
}
