//! The arguments of `delaybench arrivals`.

use crate::export::{Format, ARRIVALS};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench arrivals`: a capture and how to report it.
#[derive(Debug, Clone, Args)]
pub struct ArrivalsArgs {
    /// The capture's per-rank files, or its directory; or an OTF2 archive (Score-P's
    /// `traces.otf2`, or its directory), read as a capture (build feature `otf2`).
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Output: plain tables for reading, CSV rows (see --rows) or one JSON document.
    #[arg(long, value_parser = Format::parser(ARRIVALS), default_value = "table")]
    pub format: Format,
    /// The CSV's rows: per site, per rank, per call and rank (`calls`: site, op, comm,
    /// call, rank, comm_rank, enter_s, lateness_s, wait_s, cause_rank, cause_region,
    /// cause_kind; CSV or JSON), or per cause (`causes`: rank and region that made others
    /// wait, with delay and direct and propagated costs).
    #[arg(long, value_enum, default_value = "sites")]
    pub rows: crate::export::ArrivalsRows,
    /// Time of one message on this machine for the imbalance factors (`2us`) [default:
    /// half the smallest clock-synchronisation round trip of the capture].
    #[arg(long, value_parser = crate::units::parse_duration_s, value_name = "DURATION")]
    pub message_time: Option<f64>,
    /// Directory for the figures (arrival_spread, arrival_lateness, arrival_waiting; PNG
    /// and SVG) [default: beside the capture, named after it: `run/capture/` →
    /// `run/capture-arrivals/`]. It must be missing or empty: figures are never
    /// overwritten (a default folder that holds files is left alone with a warning).
    #[arg(long, value_name = "DIR", conflicts_with = "no_figures")]
    pub figures: Option<PathBuf>,
    /// Draw no figures.
    #[arg(long)]
    pub no_figures: bool,
    /// Causes listed in the table (per rank and region, the largest cost first; `--rows
    /// causes` lists all).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Re-time the capture with RANK's REGION (the causes table's `cause rank` and
    /// `region` columns, `3:2`) capped at the other ranks' median, and report the waiting
    /// and wall time before and after (a model of the collectives only) [default: the
    /// largest cause]. Repeatable.
    #[arg(long, value_name = "RANK:REGION", value_parser = parse_what_if)]
    pub what_if: Vec<(u32, usize)>,
    /// The new (or empty) directory of the OTF2 archive that `--format otf2` writes; only
    /// with that format.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Where to find the application's modules for file:line names of the call sites: files
    /// or directories [default: the application's argv[0]]. Repeatable.
    #[arg(long, value_name = "PATH")]
    pub modules: Vec<PathBuf>,
}

/// Reads `RANK:REGION` (`3:2`).
fn parse_what_if(s: &str) -> Result<(u32, usize), String> {
    let bad = || {
        format!(
            "'{s}' is not RANK:REGION: give a world rank and a region number as the causes table names them, e.g. 3:2"
        )
    };
    let (rank, region) = s.split_once(':').ok_or_else(bad)?;
    Ok((
        rank.trim().parse().map_err(|_| bad())?,
        region
            .trim()
            .trim_start_matches('#')
            .parse()
            .map_err(|_| bad())?,
    ))
}
