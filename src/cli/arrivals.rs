//! The arguments of `delaybench arrivals`.

use crate::export::{Format, ARRIVALS};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench arrivals`: a capture and how to report it.
#[derive(Debug, Clone, Args)]
pub struct ArrivalsArgs {
    /// The capture's per-rank files, or its directory.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Output: plain tables for reading, CSV rows (see --rows) or one JSON document.
    #[arg(long, value_parser = Format::parser(ARRIVALS), default_value = "table")]
    pub format: Format,
    /// The CSV's rows: per site, per rank, or per call and rank (`calls`: site, op, comm,
    /// call, rank, comm_rank, enter_s, lateness_s, wait_s; CSV or JSON).
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
}
