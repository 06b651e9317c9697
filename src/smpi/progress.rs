//! What one simulated P cost (wall time, the simulator's peak memory) and how long the P's
//! left of a curve will take: SMPI's wall time per launch grows as a power of P (cost ∝ P^k,
//! k ≈ 1-3 depending on the algorithm, docs/simulate.md), so the exponent fitted to the
//! P's done so far extrapolates the rest.

/// Wall time of one finished P, for the estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    /// Process count.
    pub procs: u32,
    /// Wall time of its simulation(s), seconds.
    pub wall_s: f64,
}

/// The fitted exponent k of cost ∝ P^k: the least-squares slope of ln(wall) against ln(P)
/// over the last three finished P's (the small P's are dominated by the simulator's start,
/// about half a second whatever P, so older points would pull k down). `None` with fewer
/// than two distinct P's or a non-positive time; clamped to [0, 4].
pub fn exponent(done: &[Done]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = done
        .iter()
        .rev()
        .take(3)
        .filter(|d| d.wall_s > 0.0 && d.procs > 0)
        .map(|d| ((d.procs as f64).ln(), d.wall_s.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    Some((sxy / sxx).clamp(0.0, 4.0))
}

/// Estimated wall time, seconds, of the P's in `left`: the last finished P's time scaled by
/// (P / P_last)^k with k from [`exponent`]. `None` when k cannot be fitted yet.
pub fn remaining_s(done: &[Done], left: &[u32]) -> Option<(f64, f64)> {
    let k = exponent(done)?;
    let last = done.last()?;
    let s = left
        .iter()
        .map(|&p| last.wall_s * (p as f64 / last.procs as f64).powf(k))
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
    s.push_str(&format!("; left: P = {}", names.join(",")));
    match remaining_s(done, left) {
        Some((secs, k)) => s.push_str(&format!(", about {secs:.0} s (cost ∝ P^{k:.1})")),
        None => s.push_str(", no estimate before two P's are done"),
    }
    s
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
    fn a_power_law_is_fitted_and_extrapolated() {
        // 0.1 * (P / 1024)^2.5
        let done: Vec<Done> = [256, 512, 1024, 2048]
            .iter()
            .map(|&p| d(p, 0.1 * (p as f64 / 1024.0).powf(2.5)))
            .collect();
        let k = exponent(&done).unwrap();
        assert!((k - 2.5).abs() < 1e-9, "{k}");
        let (s, _) = remaining_s(&done, &[4096, 8192]).unwrap();
        let want = 0.1 * (4f64.powf(2.5) + 8f64.powf(2.5));
        assert!((s - want).abs() < 1e-9 * want, "{s} vs {want}");
    }

    #[test]
    fn no_estimate_from_one_point_and_the_line_says_so() {
        assert!(exponent(&[d(2, 0.5)]).is_none());
        let line = line_tail(&[d(2, 0.5)], &[4, 8], 150_000_000);
        assert_eq!(
            line,
            ", peak memory 150 MB; left: P = 4,8, no estimate before two P's are done"
        );
        assert_eq!(
            line_tail(&[d(2, 0.5)], &[], 2_000_000),
            ", peak memory 2 MB"
        );
        // Start-up dominated (flat) times give k = 0, never a negative exponent.
        assert_eq!(exponent(&[d(2, 0.6), d(4, 0.5)]), Some(0.0));
    }

    #[test]
    fn the_peak_memory_of_a_child_is_read() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let (status, peak) = wait_with_peak(&mut child).unwrap();
        assert!(status.success());
        assert!(peak > 0 && peak < 1 << 34, "{peak}");
    }
}
