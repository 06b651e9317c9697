//! Application captures as delaybench reads them: the per-rank capture files and what their
//! calls say about arrivals.
//!
//! This module is delaybench's side of a capture. The interposer that writes the files is a
//! separate crate, `delaybench-capture` (`capture/` at the repository root, built as
//! `libdelaybench_capture.so`, docs/capture.md); it depends on this module for the file
//! format and its writer, never the other way round.
//!
//! - The files (`items.rs`, `op.rs`, `writer.rs`, `reader.rs`): one per rank, in the records
//!   frames (`crate::records::frame`: magic, kind, length, CBOR payload, CRC-32C). A capture
//!   file is a header frame ([`CaptureHeader`], item tag `capture_header`), any number of
//!   chunk frames ([`CaptureChunk`]: the call sites first seen since the previous chunk and
//!   the calls recorded since), and a footer frame ([`CaptureFooter`]) written at
//!   `MPI_Finalize` with the second clock synchronisation. A rank killed midway leaves the
//!   header and every chunk it flushed; [`read_capture`] reads those and says the footer is
//!   missing. `gaps.rs` names what a capture's files lack for `arrivals`: ranks without a
//!   file, files without a footer, a skipped MPI_Finalize synchronisation.
//! - The matching (`matching.rs`, `instance.rs`): the ranks' calls as collective instances on
//!   the global clock, each with its lateness, spread, imbalance and wait states.
//! - OTF2 archives (`otf2_import.rs`, feature `otf2`): Score-P's MPI collective records read
//!   as the same [`RankCapture`]s, wherever a capture folder is accepted ([`read_captures`]).
//! - By call site (`sites.rs`, `counts.rs`): the groups `arrivals` reports, the site with the
//!   most waiting, a site's lateness vectors and a call's count vectors, which
//!   `--delay replay:CAPTURE@SITE` replays.
//!
//! Layering: below `delay/` (the replay model reads captures through here) and `analysis/`
//! (the `arrivals` report's statistics over the calls); it uses only the clock's offset
//! interpolation and the records frames. Plain Rust, no MPI.

mod counts;
mod error;
mod gaps;
mod instance;
mod items;
mod matching;
mod op;
#[cfg_attr(not(feature = "otf2"), path = "otf2_import_off.rs")]
mod otf2_import;
mod reader;
mod sites;
#[cfg(test)]
pub(crate) mod testdata;
mod writer;

pub use counts::{bytes_per_rank, call_counts, CountsMissing};
pub use error::CaptureFileError;
pub use gaps::{capture_gaps, CaptureGaps, Unfinished};
pub use instance::{Entry, Instance};
pub use items::{
    counts_hash, is_algorithm_variable, CaptureChunk, CaptureCounts, CaptureEvent, CaptureFooter,
    CaptureHeader, CaptureSite, CaptureSync, CAPTURE_FORMAT_NAME, CAPTURE_FORMAT_VERSION,
    MAX_VECTORS_PER_SITE, OTF2_MODULE,
};
pub use matching::{match_calls, MatchError, Matched};
pub use op::{CaptureOp, WaitKind};
pub use otf2_import::read_otf2;
pub use reader::{is_capture_header, otf2_anchor, read_capture, read_captures, RankCapture};
pub use sites::{busiest_site, by_site, demangle, site_lateness, site_names, wait_total, SiteKey};
pub use writer::CaptureWriter;
