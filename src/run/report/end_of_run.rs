//! The end-of-run observer: rank 0's summary table on stdout, figures and summary files.

use super::Report;
use crate::end_of_run::EndOfRun;
use std::path::Path;

/// Makes what [`EndOfRun`] asks for from the finished records.
pub struct Summary(pub EndOfRun);

impl Report for Summary {
    fn run_end(&mut self, path: &Path) {
        crate::end_of_run::print_summary(path, &self.0, &mut std::io::stdout().lock());
    }
}
