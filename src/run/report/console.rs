//! What rank 0 prints on stderr while it measures: the noise line, the start line, progress,
//! warnings, and the note left by an interruption.

use super::progress::Progress;
use super::{Report, RunStart, Warning};
use crate::clock::shared::SharedVerdict;
use crate::clock::ClockModel;
use crate::plan::Op;
use crate::records::{Block, NoiseCheck, SharedClockCheck};
use std::path::Path;

/// Rank 0's stderr. `--quiet` leaves only the warnings and the interruption note.
pub struct Console {
    quiet: bool,
    /// Made when the measurement starts (it knows the blocks to come then); none when quiet.
    progress: Option<Progress>,
}

impl Console {
    /// The console of a run, quiet with `--quiet`.
    pub fn new(quiet: bool) -> Self {
        Console {
            quiet,
            progress: None,
        }
    }
}

impl Report for Console {
    fn noise_checked(&mut self, check: &NoiseCheck) {
        if !self.quiet {
            eprintln!("delaybench: {}", check.line());
        }
    }

    fn measurement_start(&mut self, start: &RunStart) {
        if self.quiet {
            return;
        }
        eprintln!(
            "delaybench: {} ranks on {} host(s); clock sync {} in {:.3} s ({}), offsets to rank 0: {}; writing {}",
            start.ranks,
            start.hosts,
            start.clock_sync,
            start.clock_sync_s,
            shared_line(start.shared),
            offsets_line(start.models),
            start.path.display()
        );
        for (rank, check) in start.shared.iter().enumerate() {
            if check.verdict == SharedVerdict::FailedCheck {
                eprintln!(
                    "delaybench: warning: rank {rank} has the clock identity of rank {} \
                     (same host, boot and time namespace) but is {:+.3} us off it (RTT \
                     {:.3} us): it was synchronised on its own",
                    check.leader,
                    check.offset_s * 1e6,
                    check.rtt_s * 1e6
                );
            }
        }
        self.progress = Some(Progress::new(start.blocks, start.most_repetitions));
    }

    fn configuration_start(&mut self, op: Op, bytes: u64, p: u32) {
        if let Some(progress) = self.progress.as_mut() {
            progress.configuration(op, bytes, p);
        }
    }

    fn block_done(&mut self, _block: &Block) {
        if let Some(progress) = self.progress.as_mut() {
            progress.block_done();
        }
    }

    fn warning(&mut self, warning: &Warning) {
        eprintln!("delaybench: warning: {warning}");
    }

    fn measurement_end(&mut self) {
        if let Some(progress) = &self.progress {
            progress.finish();
        }
    }

    fn interrupted(&mut self, signal: i32, path: &Path) {
        eprintln!(
            "delaybench: interrupted by signal {signal}: every block measured so far is in \
             {}, the last one with the repetitions done before the signal; the file has \
             no footer, so readers call it an interrupted run",
            path.display()
        );
    }
}

/// `3 shared a leader's clock, 1 synchronised` for the start message.
fn shared_line(checks: &[SharedClockCheck]) -> String {
    let count = |v: SharedVerdict| checks.iter().filter(|c| c.verdict == v).count();
    format!(
        "{} leader(s) synchronised; {} rank(s) share their leader's clock, checked; {} failed \
         the check and {} emulated, synchronised",
        count(SharedVerdict::Leader),
        count(SharedVerdict::Shared),
        count(SharedVerdict::FailedCheck),
        count(SharedVerdict::Emulated)
    )
}

/// Every rank's offset to rank 0 for the start message, microseconds: `+0.00us -1.25us`.
fn offsets_line(models: &[ClockModel]) -> String {
    models
        .iter()
        .map(|m| format!("{:+.2}us", m.intercept_s * 1e6))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(leader: u32, verdict: SharedVerdict) -> SharedClockCheck {
        SharedClockCheck {
            leader,
            verdict,
            offset_s: f64::NAN,
            rtt_s: f64::NAN,
        }
    }

    #[test]
    fn shared_line_counts_each_verdict() {
        let checks = [
            check(0, SharedVerdict::Leader),
            check(0, SharedVerdict::Shared),
            check(0, SharedVerdict::Shared),
            check(3, SharedVerdict::Leader),
            check(3, SharedVerdict::FailedCheck),
        ];
        assert_eq!(
            shared_line(&checks),
            "2 leader(s) synchronised; 2 rank(s) share their leader's clock, checked; 1 failed \
             the check and 0 emulated, synchronised"
        );
    }

    #[test]
    fn offsets_line_in_signed_microseconds() {
        let model = |intercept_s| ClockModel {
            slope: 0.0,
            intercept_s,
            t_ref_s: 0.0,
        };
        assert_eq!(
            offsets_line(&[model(0.0), model(-1.25e-6), model(3.004e-6)]),
            "+0.00us -1.25us +3.00us"
        );
        assert_eq!(offsets_line(&[]), "");
    }
}
