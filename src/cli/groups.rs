//! Argument groups the offline commands share: which configurations to draw, which global
//! times to read, and the bootstrap of the intervals.

use super::parsers::{parse_delays, parse_level, parse_margin, parse_op, DelayList};
use crate::analysis::{Bootstrap, MIN_RESAMPLES};
use crate::plan::Op;
use crate::timeline::GlobalTimes;
use clap::Args;

/// Which configurations `plot` draws and `analyze` shows; each option left out selects all
/// of its dimension. One value or a list, so `--op` and `--size`; the measurement's plural
/// spellings (`--ops`, `--sizes`) are accepted too (hidden aliases).
#[derive(Debug, Clone, Args)]
pub struct SelectArgs {
    /// Only these kernels, comma-separated (allreduce,iallreduce).
    #[arg(long = "op", alias = "ops", value_delimiter = ',', value_parser = parse_op, value_name = "OPS")]
    pub ops: Vec<Op>,
    /// Only these message sizes with units (8,1KiB); barriers are kept.
    #[arg(long = "size", alias = "sizes", value_delimiter = ',', value_parser = crate::units::parse_size_bytes, value_name = "SIZES")]
    pub sizes: Vec<u64>,
    /// Only these process counts P (2,4).
    #[arg(long = "procs", value_delimiter = ',', value_name = "P")]
    pub procs: Vec<u32>,
    /// Only these delay models, in the grammar of the measurement's --delay (50us,exp:20us);
    /// the undelayed baseline is always kept.
    #[arg(long = "delay", value_parser = parse_delays, allow_hyphen_values = true, value_name = "DELAYS")]
    pub delays: Option<DelayList>,
}

impl SelectArgs {
    /// The selection for [`crate::plot`].
    pub fn selection(&self) -> crate::plot::Selection {
        crate::plot::Selection {
            ops: self.ops.clone(),
            sizes: self.sizes.clone(),
            procs: self.procs.clone(),
            delays: self
                .delays
                .iter()
                .flat_map(|l| l.0.iter().map(|m| m.label()))
                .collect(),
        }
    }
}

/// Which global times an offline command reads, the same option for every command.
#[derive(Debug, Clone, Copy, Args)]
pub struct TimesArgs {
    /// Global times: recomputed after the run (`posthoc`) or as recorded (`online`).
    ///
    /// `posthoc` recomputes them by interpolating each rank's offset between its
    /// drift-tracking probes (Becker et al. 2008), and decides validity on them; runs without
    /// probes keep their online times. `online`: as recorded during the run.
    #[arg(long, value_enum, default_value = "posthoc")]
    pub global_times: GlobalTimes,
}

/// Bootstrap settings of `analyze` and `compare`.
#[derive(Debug, Clone, Args)]
pub struct BootstrapArgs {
    /// Bootstrap resamples per confidence interval, at least 1000: each bound of a 95 %
    /// percentile interval rests on the 2.5 % tail of the resamples (Efron and Tibshirani
    /// 1993, §19.3).
    #[arg(long, default_value_t = Bootstrap::default().resamples, value_parser = parse_resamples)]
    pub resamples: u32,
    /// Confidence level of the intervals, between 0 and 1 (e.g. 0.99).
    #[arg(long, default_value_t = Bootstrap::default().level, value_parser = parse_level)]
    pub confidence: f64,
    /// Equivalence margin of the verdicts, a share of the delay (`10%`): an interval of the
    /// delay hidden inside +-margin reads `costs full delay`, one above it `hides`, below it
    /// `costs extra`, across it `inconclusive` (Schuirmann 1987). `0%` calls any
    /// significant share a verdict, which the next launch often contradicts.
    #[arg(long, default_value = "10%", value_parser = parse_margin)]
    pub margin: f64,
}

/// `--resamples N`: a whole number of at least [`MIN_RESAMPLES`].
fn parse_resamples(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n >= MIN_RESAMPLES => Ok(n),
        _ => Err(format!(
            "`{s}` resamples: give at least {MIN_RESAMPLES}, as each bound of a percentile \
             interval rests on a tail of the resamples (2.5 % of them at 95 %); the default \
             is {}",
            Bootstrap::default().resamples
        )),
    }
}

impl BootstrapArgs {
    /// The bootstrap these options describe, with the default (fixed) seed.
    pub fn bootstrap(&self) -> Bootstrap {
        Bootstrap {
            resamples: self.resamples,
            level: self.confidence,
            margin: self.margin,
            ..Bootstrap::default()
        }
    }
}
