//! Which errors of an offline command are the user's input (exit status 2) and which are a
//! failure while it ran (1), by the type of the error or of one of its causes: one status per
//! class across the commands, as `--help` lists them ([`crate::exit::EXIT_STATUS_HELP`]).

use crate::analysis::AnalysisError;
use crate::capture::{CaptureFileError, MatchError};
use crate::exit::{causes, BadInput};
use crate::export::ExportError;
use crate::plot::{PlotError, SelectError};
use crate::records::RecordsError;
use crate::simulate::{SimulateError, SmpiError};
use std::error::Error;

/// True when `error`, or one of its causes, says the input was bad: an error the command
/// raised as [`BadInput`]; an input file missing, unreadable, damaged or not of the kind the
/// command reads (records, noise, capture and clocksync CSV files); an output file or folder
/// the command was told to create that already exists or cannot be created; records files
/// that cannot be analysed or pooled together; filters that match nothing; a plan `simulate`
/// refuses.
/// Anything else (a write that failed, a tool that is missing) is a failure while running.
pub fn is_bad_input(error: &(dyn Error + 'static)) -> bool {
    causes(error).any(bad_in_itself)
}

/// [`is_bad_input`] of one error, its causes left out.
fn bad_in_itself(e: &(dyn Error + 'static)) -> bool {
    if e.is::<BadInput>()
        || e.is::<CaptureFileError>()
        || e.is::<MatchError>()
        || e.is::<AnalysisError>()
    {
        return true;
    }
    // Transparent variants give their inner error's causes, not the inner error: look in.
    if let Some(r) = e.downcast_ref::<RecordsError>() {
        return records_input(r);
    }
    if let Some(x) = e.downcast_ref::<ExportError>() {
        return match x {
            ExportError::ReadCsv(_) => true,
            ExportError::Records(r) => records_input(r),
            _ => false,
        };
    }
    if let Some(p) = e.downcast_ref::<PlotError>() {
        return matches!(
            p,
            PlotError::NoData { .. } | PlotError::Pool { .. } | PlotError::CreateDir { .. }
        );
    }
    if let Some(s) = e.downcast_ref::<SelectError>() {
        return match s {
            SelectError::NoMatch { .. } => true,
            SelectError::Records(r) => records_input(r),
        };
    }
    if let Some(s) = e.downcast_ref::<SmpiError>() {
        return smpi_input(s);
    }
    if let Some(s) = e.downcast_ref::<SimulateError>() {
        return match s {
            SimulateError::Plan(_) => true,
            SimulateError::Smpi(s) => smpi_input(s),
            SimulateError::Records(r) => records_input(r),
        };
    }
    false
}

/// True for an SMPI engine's error about the plan or a records file the user named.
fn smpi_input(s: &SmpiError) -> bool {
    match s {
        SmpiError::Plan(_) | SmpiError::NotYet(_) => true,
        SmpiError::Records(r) => records_input(r),
        _ => false,
    }
}

/// True for a records error about the file the user named rather than about writing one:
/// every variant but [`RecordsError::Write`].
fn records_input(r: &RecordsError) -> bool {
    !matches!(r, RecordsError::Write(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;
    use std::io::ErrorKind;

    #[test]
    fn input_errors_are_bad_input_and_write_errors_failures() {
        let open = RecordsError::Open {
            path: "run.cbor".into(),
            source: std::io::Error::from(ErrorKind::NotFound),
        };
        let e = anyhow::Error::new(open).context("reading run.cbor");
        assert!(is_bad_input(e.as_ref()));
        let inside = ExportError::Records(RecordsError::NotRecords {
            path: "x".into(),
            reason: "no".into(),
        });
        assert!(is_bad_input(&inside));
        let e: anyhow::Result<()> = Err(BadInput("--figures DIR holds files".into()).into());
        assert!(is_bad_input(e.context("arrivals").unwrap_err().as_ref()));
        let no_match = SelectError::NoMatch {
            asked: "--procs 3".into(),
            why: "is not in the file".into(),
            offered: "P 2".into(),
        };
        assert!(is_bad_input(&no_match));

        let write = ExportError::from(std::io::Error::other("disk full"));
        assert!(!is_bad_input(&write));
        assert!(!is_bad_input(&RecordsError::Write("disk full".into())));
        let figure = PlotError::Write {
            path: "a.png".into(),
            reason: "disk full".into(),
        };
        assert!(!is_bad_input(&figure));
        assert!(!is_bad_input(anyhow::anyhow!("anything else").as_ref()));
    }
}
