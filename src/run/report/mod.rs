//! What rank 0 tells the user during a measurement run, as observers of the run (in the style
//! of criterion's `Report`): the runner announces what happens ([`Report`]'s events) to a
//! [`Reports`] list, and each observer prints what it is for. Rank 0 gets the console (start
//! line, noise line, progress, warnings) and the end-of-run summary; the other ranks none.

mod console;
mod end_of_run;
mod plan_text;
mod progress;
mod warning;

pub use console::Console;
pub use end_of_run::Summary;
pub use plan_text::describe_plan;
pub use progress::repetition_done;
pub use warning::Warning;

use crate::clock::ClockModel;
use crate::plan::Op;
use crate::records::{Block, NoiseCheck, SharedClockCheck};
use std::path::Path;

/// The run is about to measure: its clocks are synchronised and its header written.
pub struct RunStart<'a> {
    /// Ranks in the world.
    pub ranks: i32,
    /// Hosts the ranks run on.
    pub hosts: usize,
    /// The clock synchronisation's name.
    pub clock_sync: &'a str,
    /// How long the initial clock synchronisation took, seconds.
    pub clock_sync_s: f64,
    /// Every world rank's shared-clock check.
    pub shared: &'a [SharedClockCheck],
    /// Every world rank's clock model (offsets to rank 0).
    pub models: &'a [ClockModel],
    /// The records file being written.
    pub path: &'a Path,
    /// Blocks the run will measure.
    pub blocks: u64,
    /// The most repetitions a block can have.
    pub most_repetitions: u64,
}

/// An observer of a measurement run. Every event has a default that does nothing, so an
/// observer implements only those it reports. The runner announces them in this order:
/// `noise_checked` (unless `--no-noise-check`), `measurement_start`, then per configuration
/// `configuration_start` and a `block_done` per block, `warning` whenever one arises,
/// `measurement_end`, then `interrupted` (after a signal, and nothing more) or `run_end`.
pub trait Report {
    /// The noise check's result, before the measurement.
    fn noise_checked(&mut self, _check: &NoiseCheck) {}
    /// The measurement starts.
    fn measurement_start(&mut self, _start: &RunStart) {}
    /// A new (op, bytes, P) is being measured.
    fn configuration_start(&mut self, _op: Op, _bytes: u64, _p: u32) {}
    /// A block was measured and written.
    fn block_done(&mut self, _block: &Block) {}
    /// A warning for the user (the runner also keeps it for the footer).
    fn warning(&mut self, _warning: &Warning) {}
    /// Every block is measured (or the run was interrupted).
    fn measurement_end(&mut self) {}
    /// A signal (`signal`) stopped the run; the records in `path` have no footer.
    fn interrupted(&mut self, _signal: i32, _path: &Path) {}
    /// The records in `path` are complete, footer included.
    fn run_end(&mut self, _path: &Path) {}
}

/// The observers of a run, each told every event in the order they were added.
#[derive(Default)]
pub struct Reports(Vec<Box<dyn Report>>);

impl Reports {
    /// No observer: what the ranks other than 0 get.
    pub fn none() -> Self {
        Reports::default()
    }

    /// Adds `report` after the observers already there.
    pub fn push(&mut self, report: impl Report + 'static) {
        self.0.push(Box::new(report));
    }
}

impl Report for Reports {
    fn noise_checked(&mut self, check: &NoiseCheck) {
        self.0.iter_mut().for_each(|r| r.noise_checked(check));
    }
    fn measurement_start(&mut self, start: &RunStart) {
        self.0.iter_mut().for_each(|r| r.measurement_start(start));
    }
    fn configuration_start(&mut self, op: Op, bytes: u64, p: u32) {
        self.0
            .iter_mut()
            .for_each(|r| r.configuration_start(op, bytes, p));
    }
    fn block_done(&mut self, block: &Block) {
        self.0.iter_mut().for_each(|r| r.block_done(block));
    }
    fn warning(&mut self, warning: &Warning) {
        self.0.iter_mut().for_each(|r| r.warning(warning));
    }
    fn measurement_end(&mut self) {
        self.0.iter_mut().for_each(|r| r.measurement_end());
    }
    fn interrupted(&mut self, signal: i32, path: &Path) {
        self.0.iter_mut().for_each(|r| r.interrupted(signal, path));
    }
    fn run_end(&mut self, path: &Path) {
        self.0.iter_mut().for_each(|r| r.run_end(path));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Notes every event it hears, tagged with its name, in one log shared by all.
    struct Recorder(&'static str, Arc<Mutex<Vec<String>>>);

    impl Recorder {
        fn note(&self, what: String) {
            self.1.lock().unwrap().push(format!("{}: {what}", self.0));
        }
    }

    impl Report for Recorder {
        fn configuration_start(&mut self, op: Op, bytes: u64, p: u32) {
            self.note(format!("configuration {op} {bytes} {p}"));
        }
        fn warning(&mut self, warning: &Warning) {
            self.note(format!("warning {warning}"));
        }
        fn measurement_end(&mut self) {
            self.note("end".into());
        }
        fn interrupted(&mut self, signal: i32, path: &Path) {
            self.note(format!("signal {signal} {}", path.display()));
        }
        fn run_end(&mut self, path: &Path) {
            self.note(format!("done {}", path.display()));
        }
    }

    /// An observer with only the defaults.
    struct Silent;
    impl Report for Silent {}

    #[test]
    fn every_event_reaches_every_observer_in_order() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut reports = Reports::none();
        reports.push(Recorder("a", log.clone()));
        reports.push(Silent);
        reports.push(Recorder("b", log.clone()));
        reports.configuration_start(Op::Allreduce, 8, 2);
        reports.warning(&Warning::Oversubscribed("crowded".into()));
        reports.measurement_end();
        reports.interrupted(2, Path::new("x.cbor"));
        reports.run_end(Path::new("x.cbor"));
        assert_eq!(
            *log.lock().unwrap(),
            [
                "a: configuration allreduce 8 2",
                "b: configuration allreduce 8 2",
                "a: warning crowded",
                "b: warning crowded",
                "a: end",
                "b: end",
                "a: signal 2 x.cbor",
                "b: signal 2 x.cbor",
                "a: done x.cbor",
                "b: done x.cbor",
            ]
        );
    }
}
