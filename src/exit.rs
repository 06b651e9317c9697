//! Exit codes of the binary that scripts read, beside 0 (success), 1 (failure) and 2 (bad
//! input, nothing measured), and how an error reaches the user: each cause said once, a
//! closed output pipe no error. Kept out of `run` so that they exist in a build without MPI.

/// Exit code of a run that measured but had a block without any valid repetition: its
/// records are kept, but scripts must notice (2 is bad input, 3 the `--timeout` watchdog).
pub const NO_VALID_EXIT: u8 = 4;

/// Exit code of usage errors and bad input: an option or value refused, a study file that
/// does not parse, an input file that is missing, unreadable or not what the command reads,
/// an output that exists or cannot be created, filters that match nothing. Nothing was
/// measured.
pub const BAD_INPUT_EXIT: u8 = 2;

/// The exit statuses, one per class of error, as `--help` and the manual page list them.
pub const EXIT_STATUS_HELP: &str = "Exit status:
  0  success, also when the output was closed early (`| head`)
  1  failure while running: a write that failed, an MPI error, a command that needs MPI
     in a build without it
  2  usage or bad input: an option, value or study file refused; an input file missing,
     unreadable or not of the kind the command reads; an output file or folder that
     exists or cannot be created; filters that match nothing. Nothing was measured
  3  the --timeout watchdog ended the run
  4  the run measured, but a block had no valid repetition (its records are kept)";

/// An error in what the user gave (an argument, a file, a filter) found while a command
/// ran: the command exits with [`BAD_INPUT_EXIT`] rather than 1. The message says what was
/// wrong and what to give instead.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

use std::error::Error;
use std::io::ErrorKind;

/// An error and its causes joined by `: `, each said once. A library error whose message
/// already holds its cause's text (a thiserror `{0}` or `{source}` that is also its
/// `#[source]`) would otherwise print that text twice, as in "No such file or directory
/// (os error 2): No such file or directory (os error 2)"; a cause whose text the message so
/// far contains is left out.
pub fn said_once(error: &(dyn Error + 'static)) -> String {
    let mut message = String::new();
    for cause in causes(error) {
        let text = cause.to_string();
        if text.is_empty() || message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// True when `error`, or any of its causes, is a write to a closed pipe (`delaybench ... |
/// head`): the reader had what it wanted, so the command ends quietly with status 0, as
/// `cat` and `grep` do when their output is closed. Looks inside the csv and serde_json
/// errors, which carry an I/O error without always giving it as their source.
pub fn is_broken_pipe(error: &(dyn Error + 'static)) -> bool {
    causes(error).any(|e| {
        let kind = if let Some(io) = e.downcast_ref::<std::io::Error>() {
            Some(io.kind())
        } else if let Some(json) = e.downcast_ref::<serde_json::Error>() {
            json.io_error_kind()
        } else if let Some(csv) = e.downcast_ref::<csv::Error>() {
            match csv.kind() {
                csv::ErrorKind::Io(io) => Some(io.kind()),
                _ => None,
            }
        } else {
            None
        };
        kind == Some(ErrorKind::BrokenPipe)
    })
}

/// `error` and its sources, outermost first.
pub fn causes<'a>(
    error: &'a (dyn Error + 'static),
) -> impl Iterator<Item = &'a (dyn Error + 'static)> {
    std::iter::successors(Some(error), |e: &&'a (dyn Error + 'static)| (*e).source())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot open records file run.cbor: {0}")]
    struct Open(#[source] std::io::Error);

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(
            ErrorKind::NotFound,
            "No such file or directory (os error 2)",
        );
        let e = anyhow::Error::new(Open(io)).context("reading run.cbor");
        // anyhow's own `{:#}` repeats the cause; said_once does not.
        assert_eq!(
            format!("{e:#}"),
            "reading run.cbor: cannot open records file run.cbor: No such file or directory \
             (os error 2): No such file or directory (os error 2)"
        );
        assert_eq!(
            said_once(e.as_ref()),
            "reading run.cbor: cannot open records file run.cbor: No such file or directory \
             (os error 2)"
        );
        // A cause the message does not hold is kept.
        let e = anyhow::anyhow!("disk full").context("cannot write the export");
        assert_eq!(said_once(e.as_ref()), "cannot write the export: disk full");
    }

    #[test]
    fn broken_pipes_are_found_inside_wrappers() {
        let pipe = || std::io::Error::from(ErrorKind::BrokenPipe);
        let e = anyhow::Error::new(crate::export::ExportError::from(pipe())).context("export");
        assert!(is_broken_pipe(e.as_ref()));
        let csv = crate::export::ExportError::from(csv::Error::from(pipe()));
        assert!(is_broken_pipe(&csv));
        let json = crate::export::ExportError::from(serde_json::Error::io(pipe()));
        assert!(is_broken_pipe(&json));
        let other = crate::export::ExportError::from(std::io::Error::other("disk full"));
        assert!(!is_broken_pipe(&other));
    }
}
