//! Per-configuration statistics for `delaybench analyze` and `compare`: the distribution of
//! t_global, bootstrap confidence intervals, the delay overlap benefit with its interval and
//! ceiling, and, over several launches of one plan, the between-launch variation.

use super::bootstrap::{Bootstrap, Interval};
use super::digest::{BlockDigest, LaunchDigest};
use super::fdr::benjamini_hochberg;
use super::launch_level::over_launches;
use super::median;
use super::stats::{describe, SampleStats};
use crate::plan::Op;
use crate::records::{Records, RunLabel};
use crate::timeline::baseline_among;
use serde::Serialize;
use thiserror::Error;

/// Version of the `analyze` CSV/JSON schema (columns of [`ConfigStats`]), documented in
/// `docs/exports.md`. Raised whenever a column is renamed, removed or changes meaning.
pub const ANALYZE_SCHEMA_VERSION: u32 = 10;

/// Fewer valid repetitions than this (in the block or its baseline) mark a row `few_valid`:
/// the median's interval is then wide and the quartiles rest on a handful of values.
pub const FEW_VALID: u32 = 30;

/// Statistics of one configuration (op, bytes, P, delay model), pooled over the launches
/// given. Times in seconds (`*_s`), benefits as fractions (1 = 100 %), counts of
/// repetitions; `None` (an empty CSV cell, JSON `null`) where there is nothing to compute.
///
/// Field names are the CSV columns and JSON keys of `delaybench analyze`, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigStats {
    /// [`ANALYZE_SCHEMA_VERSION`], on every row so that a loaded table says what it is.
    pub schema_version: u32,
    /// The run id of each launch pooled into the row (their distinct values joined with
    /// ` | `, see [`LaunchLabels`]).
    pub run_id: String,
    /// The MPI library in one line, per launch as `run_id`.
    pub mpi_library: String,
    /// The hosts of each launch, distinct, in order of first rank, joined with `,`; per
    /// launch as `run_id`.
    pub host_names: String,
    /// The `--tag`s of each launch (`key=value` joined with `;`), per launch as `run_id`.
    pub tags: String,
    pub op: Op,
    /// Message size in bytes as the kernel defines it (0 for barriers).
    pub bytes: u64,
    /// P, the number of processes.
    pub nprocs: u32,
    /// Distinct hosts the P ranks spanned (`--subcomm`; 0 in files that did not record it).
    pub hosts: u32,
    /// The collective algorithm the row was measured with (`--algorithms`,
    /// `--algorithm-from-env`; `default` is the library's own choice), empty when the run
    /// chose none.
    pub algorithm: String,
    /// The delay model (`0` for the baseline, `50us`, `exp:50us`).
    pub delay_model: String,
    /// Nominal delay δ in seconds (the mean of a sampled model; 0 for the baseline).
    pub delay_s: f64,
    /// Records files (mpirun launches) pooled into this row.
    pub launches: u32,
    /// Valid repetitions of this configuration (n_δ), over all launches.
    pub valid: u32,
    /// Repetitions measured.
    pub total: u32,
    /// Valid repetitions of the baseline (δ = 0) of the same op, bytes and P (n0).
    pub valid0: u32,
    /// Repetitions of the baseline measured.
    pub total0: u32,
    /// True when `valid` or `valid0` is below [`FEW_VALID`].
    pub few_valid: bool,
    pub t_global_min_s: Option<f64>,
    /// Lower quartile of t_global (R type 8).
    pub t_global_q1_s: Option<f64>,
    pub t_global_median_s: Option<f64>,
    /// Upper quartile of t_global (R type 8).
    pub t_global_q3_s: Option<f64>,
    pub t_global_max_s: Option<f64>,
    pub t_global_mean_s: Option<f64>,
    /// Interquartile mean (25 %-trimmed mean) of t_global.
    pub t_global_iqm_s: Option<f64>,
    /// Sample standard deviation of t_global.
    pub t_global_std_s: Option<f64>,
    /// Percentile bootstrap interval of the median t_global (level in the JSON header).
    pub t_global_median_ci_lo_s: Option<f64>,
    pub t_global_median_ci_hi_s: Option<f64>,
    /// Repetitions below q1 − 1.5·IQR (Tukey); counted, not dropped.
    pub outliers_low: u32,
    /// Repetitions above q3 + 1.5·IQR.
    pub outliers_high: u32,
    /// Repetitions beyond 3·IQR on either side (part of the two counts above).
    pub outliers_severe: u32,
    /// Minimum t_global of the baseline, t0 by the paper's statistic.
    pub t0_min_s: Option<f64>,
    /// Median t_global of the baseline.
    pub t0_median_s: Option<f64>,
    pub t0_median_ci_lo_s: Option<f64>,
    pub t0_median_ci_hi_s: Option<f64>,
    /// What the late arrival cost: tδ − t0 from the medians (`t_global_median_s −
    /// t0_median_s`), seconds; `None` for a baseline row or without a baseline. For every
    /// delay model, sampled ones included.
    pub cost_median_s: Option<f64>,
    /// Bootstrap interval of `cost_median_s` (baseline and delayed resampled independently,
    /// the same resamples as the benefit's interval).
    pub cost_median_ci_lo_s: Option<f64>,
    pub cost_median_ci_hi_s: Option<f64>,
    /// Delay overlap benefit from the minima (Niethammer et al. 2016, eq. 5, as the paper
    /// reports it). Only for plain late arrivals measured without `--overlap`; otherwise
    /// `None` with the reason in `benefit_na`.
    pub benefit_min: Option<f64>,
    /// Delay overlap benefit from the medians.
    pub benefit_median: Option<f64>,
    /// Bootstrap interval of `benefit_median` (baseline and delayed resampled independently).
    pub benefit_median_ci_lo: Option<f64>,
    pub benefit_median_ci_hi: Option<f64>,
    /// Two-sided bootstrap p-value of "no benefit" (b = 0) from the interval's resamples
    /// ([`super::two_sided_p`]: twice the share of resamples beyond 0, (1 + #) / (B + 1)).
    pub benefit_p: Option<f64>,
    /// True when `benefit_p` is rejected by the Benjamini-Hochberg procedure at false
    /// discovery rate 1 − level (5 % by default) over every `benefit_p` of the analysis
    /// ([`super::benjamini_hochberg`]): the benefit is told from none, with the many rows
    /// tested at once controlled for. `None` where there is no `benefit_p`.
    pub benefit_significant: Option<bool>,
    /// The verdict's category at the analysis' equivalence margin ([`super::Verdict::word`]:
    /// `hides`, `hides all`, `costs full delay`, `costs extra`, `faster than t0`,
    /// `inconclusive`, `too few`, `launches disagree`); `None` where a row has no single δ
    /// (a baseline, overlap mode, sampled delays, no baseline).
    pub verdict: Option<&'static str>,
    /// Bound on `benefit_median`, min(t0, δ) / max(t0, δ) from the median t0, under the
    /// assumption tδ ≥ t0 (see [`benefit_ceiling`]; delaybench's own).
    pub benefit_ceiling: Option<f64>,
    /// `benefit_median / benefit_ceiling`: the part of what could be hidden that was
    /// (1 = as well as the ceiling allows, 0 = nothing, < 0 = the delay cost extra).
    pub benefit_of_ceiling: Option<f64>,
    /// Smallest and largest per-launch median t_global (equal for one launch).
    pub launch_median_min_s: Option<f64>,
    pub launch_median_max_s: Option<f64>,
    /// Coefficient of variation (standard deviation / mean) of the per-launch medians;
    /// `None` for one launch. Hunold and Carpen-Amarie 2015, §4-5: results differ between launches, so compare this
    /// with the width of the median's interval before trusting one launch.
    pub launch_median_cv: Option<f64>,
    /// Smallest and largest per-launch benefit from medians.
    pub benefit_launch_min: Option<f64>,
    pub benefit_launch_max: Option<f64>,
    /// True when two launches contradict each other: one launch's own interval of the cost
    /// lies wholly above δ (the delay cost extra) and another's wholly below it (part of it
    /// was hidden), each at the analysis' level; false when none does; `None` for one
    /// launch, rows without a plain delay, or launches without intervals. The verdict then
    /// reads `launches disagree` whatever the interval over launches says.
    pub launches_disagree: Option<bool>,
    /// Bound on `benefit_min`: min(t0, δ) / max(t0, δ) from the minimum t0, under the
    /// assumption tδ ≥ t0 (the same statistic as the benefit it bounds).
    pub benefit_ceiling_min: Option<f64>,
    /// True when a benefit exceeds its ceiling (from medians or from minima): then tδ < t0,
    /// the delayed operation ran faster than the baseline, and the bound did not hold.
    pub above_ceiling: Option<bool>,
    /// Why a delayed row has no benefit (`None` where it has one, and for baselines).
    pub benefit_na: Option<&'static str>,
    /// The lower bound of t_global (last arrival plus one one-way point-to-point time at
    /// this size; [`super::BoundColumns`], docs/metrics.md): median over valid repetitions,
    /// seconds. `None` without a one-way time (format version 2, simulated runs).
    pub bound_s: Option<f64>,
    /// The model bound (last arrival plus ⌈log₂ P⌉ one-way times, LogP): median, seconds.
    pub model_bound_s: Option<f64>,
    /// Median over valid repetitions of t_global − bound, seconds.
    pub above_bound_s: Option<f64>,
    /// Median of t_global / bound.
    pub above_bound_ratio: Option<f64>,
    /// Smallest t_global − bound, seconds (below 0 only within the clocks' error).
    pub min_above_bound_s: Option<f64>,
    /// Median of t_global − model bound, seconds.
    pub above_model_bound_s: Option<f64>,
    /// Median of t_global / model bound.
    pub above_model_bound_ratio: Option<f64>,
    /// Valid repetitions faster than their model bound (an algorithm outside the model:
    /// shared memory, several messages at once).
    pub beat_model_bound_reps: Option<u32>,
}

/// Why the benefit of a block measured with `--overlap` is `n/a`: the punctual ranks
/// compute δ longer, so tδ ≥ t0 + δ and b ≤ 0 by construction.
pub const NA_BENEFIT_OVERLAP: &str = "overlap mode (b <= 0 by construction)";
/// Why the benefit of sampled or all-rank delays is `n/a` (see `analyze --distribution`).
pub const NA_BENEFIT_SAMPLED: &str = "sampled or all-rank delays (no single delta)";
/// Why a delayed row without a measured baseline has no benefit.
pub const NA_BENEFIT_NO_BASELINE: &str = "no valid baseline t0";

/// Why several records files cannot be analysed together.
#[derive(Debug, Error, PartialEq)]
pub enum AnalysisError {
    /// No records were given.
    #[error("no records files to analyse")]
    Empty,
    /// The launches did not measure the same configurations.
    #[error(
        "launch {launch} measured other configurations than launch 1 ({detail}): pool only \
         records of one plan, or compare different ones with `delaybench compare`"
    )]
    DifferentPlans { launch: usize, detail: String },
}

/// The largest delay overlap benefit for baseline t0 and delay δ (seconds), under the
/// assumption tδ ≥ t0: min(t0, δ) / max(t0, δ). delaybench's own bound, not from the paper.
/// The delayed operation cannot end before the late rank arrived (tδ ≥ δ, always) and, if it
/// does not run faster than undelayed (tδ ≥ t0: assumed, and checked by `above_ceiling`), b
/// (Niethammer et al. 2016, eq. 5) falls as tδ grows, so b ≤ (t0 + δ − max) / max. With
/// δ = 50 us and t0 = 2 us that is 4 %: "100 % = hidden perfectly" holds only when t0 = δ.
/// `None` when t0 or δ is not positive.
pub fn benefit_ceiling(t0_s: f64, delay_s: f64) -> Option<f64> {
    (t0_s > 0.0 && delay_s > 0.0).then(|| t0_s.min(delay_s) / t0_s.max(delay_s))
}

/// Identity of a configuration across records files.
type Key = (Op, u64, u32, String, String);

fn key(b: &BlockDigest) -> Key {
    (
        b.op,
        b.bytes,
        b.nprocs,
        b.delay_model.clone(),
        b.algorithm.clone(),
    )
}

/// One [`ConfigStats`] per configuration of `launches` (records files of one plan, each one
/// mpirun launch), in the measurement order of the first. Valid t_globals are pooled over the
/// launches for the distribution, the intervals and the benefit; the per-launch medians give
/// the between-launch columns. One launch is the usual case. Reduces each block to its
/// [`BlockDigest`] first; [`config_stats_of_digests`] takes digests read block by block.
///
/// Errors: [`AnalysisError::Empty`] for no records, [`AnalysisError::DifferentPlans`] when a
/// launch lacks a configuration of the first or has one more.
pub fn config_stats(
    launches: &[Records],
    boot: &Bootstrap,
) -> Result<Vec<ConfigStats>, AnalysisError> {
    let digests: Vec<LaunchDigest> = launches.iter().map(LaunchDigest::of).collect();
    config_stats_of_digests(&digests, boot)
}

/// [`config_stats`] over launches already reduced to digests (what `analyze` streams).
///
/// Errors: as [`config_stats`].
pub fn config_stats_of_digests(
    launches: &[LaunchDigest],
    boot: &Bootstrap,
) -> Result<Vec<ConfigStats>, AnalysisError> {
    let first = launches.first().ok_or(AnalysisError::Empty)?;
    let keys: Vec<Key> = first.blocks.iter().map(key).collect();
    let from_env = launches.iter().all(|l| l.header.plan.algorithm_from_env);
    for (i, r) in launches.iter().enumerate().skip(1) {
        let differ = plan_differences(&first.header.plan, &r.header.plan);
        if !differ.is_empty() {
            let detail = format!("its plan differs in {}", differ.join(", "));
            return Err(AnalysisError::DifferentPlans {
                launch: i + 1,
                detail,
            });
        }
        // Launches of `--algorithm-from-env` each ran their own algorithm: their
        // configurations are pooled per algorithm, not required in every launch.
        if from_env {
            continue;
        }
        let theirs: Vec<Key> = r.blocks.iter().map(key).collect();
        if let Some(k) = keys.iter().find(|k| !theirs.contains(k)) {
            let detail = format!("it lacks {} {} B P={} delay {}", k.0, k.1, k.2, k.3);
            return Err(AnalysisError::DifferentPlans {
                launch: i + 1,
                detail,
            });
        }
        if let Some(k) = theirs.iter().find(|k| !keys.contains(k)) {
            let detail = format!("it adds {} {} B P={} delay {}", k.0, k.1, k.2, k.3);
            return Err(AnalysisError::DifferentPlans {
                launch: i + 1,
                detail,
            });
        }
    }
    let labels = LaunchLabels::of(launches);
    let mut rows: Vec<ConfigStats> = Vec::new();
    // Every configuration in the order first measured: the first launch's, then (pooling
    // launches of different algorithms) each later launch's new ones.
    let mut order: Vec<&BlockDigest> = Vec::new();
    let mut seen: Vec<Key> = Vec::new();
    for b in launches.iter().flat_map(|l| &l.blocks) {
        if !seen.contains(&key(b)) {
            seen.push(key(b));
            order.push(b);
        }
    }
    rows.extend(
        order
            .into_iter()
            .map(|block| row(launches, block, boot, &labels)),
    );
    control_false_discoveries(&mut rows, boot);
    for r in &mut rows {
        r.verdict = super::Verdict::of(r, boot.margin).map(|v| v.word());
    }
    Ok(rows)
}

/// Sets each row's `benefit_significant` from the Benjamini-Hochberg procedure over every
/// `benefit_p` of `rows` at false discovery rate 1 − level: hundreds of rows tested at 95 %
/// each would call some benefits significant by chance alone.
fn control_false_discoveries(rows: &mut [ConfigStats], boot: &Bootstrap) {
    let p: Vec<Option<f64>> = rows.iter().map(|r| r.benefit_p).collect();
    for (r, s) in rows.iter_mut().zip(benjamini_hochberg(&p, boot.fdr())) {
        r.benefit_significant = s;
    }
}

/// Names of the plan settings in which `a` and `b` differ, the seed aside (each launch may
/// draw its own): pooling a `--sync window` and a `--sync barrier` run would mix two
/// measurements.
fn plan_differences(a: &crate::plan::Plan, b: &crate::plan::Plan) -> Vec<String> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return Vec::new();
    };
    a.iter()
        .filter(|(k, v)| k.as_str() != "seed" && b.get(k.as_str()) != Some(v))
        .map(|(k, _)| k.clone())
        .collect()
}

/// The blocks of configuration `k` in every launch (the first if a launch repeats it).
fn blocks_of<'a>(launches: &'a [LaunchDigest], k: &Key) -> Vec<&'a BlockDigest> {
    launches
        .iter()
        .filter_map(|r| r.blocks.iter().find(|b| &key(b) == k))
        .collect()
}

crate::timeline::pairing::configuration!(ConfigStats);

/// The baseline of `block` in every launch ([`baseline_among`]).
fn baselines_of<'a>(launches: &'a [LaunchDigest], block: &BlockDigest) -> Vec<&'a BlockDigest> {
    launches
        .iter()
        .filter_map(|r| baseline_among(&r.blocks, block, |_| true))
        .collect()
}

/// The valid t_globals of each of `blocks` (one per launch), launches without any left out.
fn by_launch(blocks: &[&BlockDigest]) -> Vec<Vec<f64>> {
    blocks
        .iter()
        .filter(|b| !b.t_globals.is_empty())
        .map(|b| b.t_globals.clone())
        .collect()
}

/// The valid t_globals of `block`'s configuration and of its baseline, per launch that
/// measured both with at least one valid repetition each: (delayed, baseline), in launch
/// order, paired by launch.
fn paired_by_launch(
    launches: &[LaunchDigest],
    block: &BlockDigest,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    launch_samples(launches, &key(block))
        .into_iter()
        .filter(|(_, t0s)| !t0s.is_empty())
        .unzip()
}

/// Per launch with a valid repetition of configuration `k`: its valid t_globals and its
/// baseline's (empty without a baseline), in launch order.
fn launch_samples(launches: &[LaunchDigest], k: &Key) -> Vec<(Vec<f64>, Vec<f64>)> {
    launches
        .iter()
        .filter_map(|l| {
            let own = l.blocks.iter().find(|b| &key(b) == k)?;
            let base = baseline_among(&l.blocks, own, |_| true);
            (!own.t_globals.is_empty()).then(|| {
                let t0s = base.map_or_else(Vec::new, |b| b.t_globals.clone());
                (own.t_globals.clone(), t0s)
            })
        })
        .collect()
}

/// Whether the launches of one delayed configuration contradict each other
/// ([`ConfigStats::launches_disagree`]): each launch's own interval of the cost (its
/// repetitions resampled, [`Bootstrap::cost_ci`]) against δ, one wholly below
/// δ · (1 − m) and another wholly above δ · (1 + m), m the verdicts' margin
/// ([`Bootstrap::margin`]): a launch within the margin of δ neither hid the delay nor cost
/// extra by the verdicts' own measure. (Without a margin, eight launches of a 50 µs delay on
/// an 8 B allreduce here, costs 49.2 to 50.2 µs, read "launches disagree" because one
/// interval was [49.19, 49.45] and another [50.01, 50.21] µs.) `None` for fewer than two
/// launches with an interval.
fn launches_disagree(
    baseline: &[Vec<f64>],
    delayed: &[Vec<f64>],
    delay_s: f64,
    boot: &Bootstrap,
) -> Option<bool> {
    let intervals: Vec<Interval> = baseline
        .iter()
        .zip(delayed)
        .filter_map(|(t0, td)| boot.cost_ci(t0, td))
        .collect();
    let margin = boot.margin * delay_s;
    (intervals.len() > 1).then(|| {
        intervals.iter().any(|c| c.lo > delay_s + margin)
            && intervals.iter().any(|c| c.hi < delay_s - margin)
    })
}

fn pooled(blocks: &[&BlockDigest]) -> Vec<f64> {
    blocks
        .iter()
        .flat_map(|b| b.t_globals.iter().copied())
        .collect()
}

/// The run columns of rows pooled over `launches` (every launch has every configuration):
/// each label's distinct values over the launches, in launch order, joined with ` | `, a
/// separator that run ids, library lines, host lists (`,`) and tags (`;`) do not use.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaunchLabels {
    pub run_id: String,
    pub mpi_library: String,
    pub host_names: String,
    pub tags: String,
}

impl LaunchLabels {
    /// The labels of `launches`, from their headers.
    pub fn of(launches: &[LaunchDigest]) -> LaunchLabels {
        let labels: Vec<RunLabel> = launches.iter().map(|l| RunLabel::of(&l.header)).collect();
        let joined = |f: fn(&RunLabel) -> &str| {
            let mut seen: Vec<&str> = Vec::new();
            for l in &labels {
                if !seen.contains(&f(l)) {
                    seen.push(f(l));
                }
            }
            seen.join(" | ")
        };
        LaunchLabels {
            run_id: joined(|l| &l.run_id),
            mpi_library: joined(|l| &l.mpi_library),
            host_names: joined(|l| &l.host_names),
            tags: joined(|l| &l.tags),
        }
    }
}

fn row(
    launches: &[LaunchDigest],
    block: &BlockDigest,
    boot: &Bootstrap,
    labels: &LaunchLabels,
) -> ConfigStats {
    let own = blocks_of(launches, &key(block));
    let base = baselines_of(launches, block);
    let (ts, t0s) = (pooled(&own), pooled(&base));
    let s = describe(&ts);
    let s0 = describe(&t0s);
    // Decisions rest on launches, the unit of replication (`launch_level`): every launch's
    // valid t_globals apart, launches without any left out, the delayed block and its
    // baseline paired by the launch that measured both.
    let (ts_by, t0s_by) = (by_launch(&own), by_launch(&base));
    let (paired_d, paired_0) = paired_by_launch(launches, block);
    let t_ci = boot.median_ci(&ts_by);
    let t0_ci = boot.median_ci(&t0s_by);
    let median_of = |by: &Vec<Vec<f64>>, stats: &Option<SampleStats>| match by.len() {
        0 | 1 => stats.as_ref().map(|x| x.median),
        _ => over_launches([by], |[m]| m),
    };
    let (t_median, t0_median) = (median_of(&ts_by, &s), median_of(&t0s_by, &s0));
    // A benefit needs one δ for every repetition (plain late arrivals only) and the same
    // work on every rank with and without delay (not overlap mode, where the punctual ranks
    // compute δ longer).
    let overlap = own.iter().any(|b| b.overlap);
    let late = own.iter().all(|b| b.late_arrival) && !overlap;
    let delay = block.delay_s;
    let pair = |f: fn(&SampleStats) -> f64| match (&s0, &s) {
        (Some(a), Some(b)) if late => Some((f(a), f(b))),
        _ => None,
    };
    let b_min = pair(|x| x.min).map(|(t0, t)| benefit(t0, t, delay));
    let b_med = pair(|x| x.median)
        .and_then(|_| over_launches([&paired_0, &paired_d], |[t0, t]| benefit(t0, t, delay)));
    let b_test = late
        .then(|| boot.benefit_test(&paired_0, &paired_d, delay))
        .flatten();
    let b_ci = b_test.map(|t| t.0);
    // The cost needs a baseline, not one δ per repetition: every delayed row has one.
    // (A baseline is the block with δ = 0, as `timeline::pairing` defines it.)
    let delayed = delay != 0.0;
    let cost = match (&s0, &s) {
        (Some(_), Some(_)) if delayed => over_launches([&paired_0, &paired_d], |[t0, t]| t - t0),
        _ => None,
    };
    let cost_ci = delayed
        .then(|| boot.cost_ci(&paired_0, &paired_d))
        .flatten();
    let disagree = (delayed && late)
        .then(|| launches_disagree(&paired_0, &paired_d, delay, boot))
        .flatten();
    let ceiling = t0_median
        .filter(|_| late && s.is_some())
        .and_then(|t0| benefit_ceiling(t0, delay));
    let ceiling_min = s0
        .filter(|_| late && s.is_some())
        .and_then(|s0| benefit_ceiling(s0.min, delay));
    // A tiny tolerance: b = ceiling exactly when tδ = max(t0, δ).
    let above = |b: Option<f64>, c: Option<f64>| b.zip(c).map(|(b, c)| b > c + 1e-12);
    let above_ceiling = match (above(b_med, ceiling), above(b_min, ceiling_min)) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(false) || b.unwrap_or(false)),
    };
    let benefit_na = if delay <= 0.0 || b_med.is_some() {
        None
    } else if overlap {
        Some(NA_BENEFIT_OVERLAP)
    } else if !late {
        Some(NA_BENEFIT_SAMPLED)
    } else {
        Some(NA_BENEFIT_NO_BASELINE)
    };
    let launch = between_launches(&own, &base, delay, late);
    let count = |bs: &[&BlockDigest]| bs.iter().map(|b| b.nrep).sum::<u32>();
    let (valid, valid0) = (ts.len() as u32, t0s.len() as u32);
    let get = |f: fn(&SampleStats) -> f64| s.as_ref().map(f);
    let k = key(block);
    let bound = super::bound_columns(launches.iter().filter_map(|l| {
        let b = l.blocks.iter().find(|b| key(b) == k)?;
        Some((l.header.p2p.as_ref(), b))
    }));
    ConfigStats {
        schema_version: ANALYZE_SCHEMA_VERSION,
        run_id: labels.run_id.clone(),
        mpi_library: labels.mpi_library.clone(),
        host_names: labels.host_names.clone(),
        tags: labels.tags.clone(),
        op: block.op,
        bytes: block.bytes,
        nprocs: block.nprocs,
        hosts: block.hosts,
        algorithm: block.algorithm.clone(),
        delay_model: block.delay_model.clone(),
        delay_s: delay,
        launches: own.len() as u32,
        valid,
        total: count(&own),
        valid0,
        total0: count(&base),
        few_valid: valid < FEW_VALID || valid0 < FEW_VALID,
        t_global_min_s: get(|x| x.min),
        t_global_q1_s: get(|x| x.q1),
        t_global_median_s: t_median,
        t_global_q3_s: get(|x| x.q3),
        t_global_max_s: get(|x| x.max),
        t_global_mean_s: get(|x| x.mean),
        t_global_iqm_s: get(|x| x.iqm),
        t_global_std_s: get(|x| x.std_dev),
        t_global_median_ci_lo_s: t_ci.map(|c| c.lo),
        t_global_median_ci_hi_s: t_ci.map(|c| c.hi),
        outliers_low: s.map_or(0, |x| x.outliers.low),
        outliers_high: s.map_or(0, |x| x.outliers.high),
        outliers_severe: s.map_or(0, |x| x.outliers.severe),
        t0_min_s: s0.map(|x| x.min),
        t0_median_s: t0_median,
        t0_median_ci_lo_s: t0_ci.map(|c| c.lo),
        t0_median_ci_hi_s: t0_ci.map(|c| c.hi),
        cost_median_s: cost,
        cost_median_ci_lo_s: cost_ci.map(|c| c.lo),
        cost_median_ci_hi_s: cost_ci.map(|c| c.hi),
        benefit_min: b_min,
        benefit_median: b_med,
        benefit_median_ci_lo: b_ci.map(|c| c.lo),
        benefit_median_ci_hi: b_ci.map(|c| c.hi),
        benefit_p: b_test.map(|t| t.1),
        // Decided over all rows at once ([`control_false_discoveries`]).
        benefit_significant: None,
        // From the finished row, below.
        verdict: None,
        benefit_ceiling: ceiling,
        benefit_of_ceiling: b_med.zip(ceiling).map(|(b, c)| b / c),
        launch_median_min_s: launch.median_min,
        launch_median_max_s: launch.median_max,
        launch_median_cv: launch.median_cv,
        benefit_launch_min: launch.benefit_min,
        benefit_launch_max: launch.benefit_max,
        launches_disagree: disagree,
        benefit_ceiling_min: ceiling_min,
        above_ceiling,
        benefit_na,
        bound_s: bound.bound_s,
        model_bound_s: bound.model_bound_s,
        above_bound_s: bound.above_bound_s,
        above_bound_ratio: bound.above_bound_ratio,
        min_above_bound_s: bound.min_above_bound_s,
        above_model_bound_s: bound.above_model_bound_s,
        above_model_bound_ratio: bound.above_model_bound_ratio,
        beat_model_bound_reps: bound.beat_model_bound_reps,
    }
}

/// The valid t_globals of `row`'s configuration and of its baseline in `launches`, per
/// launch ([`super::ByLaunch`], launch order): (the row's own, the baseline's), paired by
/// launch. A launch without a valid repetition of the row is left out; one without a
/// baseline keeps an empty baseline, on which no paired interval is computed. Empty when
/// `launches` lack the configuration.
pub fn samples_of(launches: &[LaunchDigest], row: &ConfigStats) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let k: Key = (
        row.op,
        row.bytes,
        row.nprocs,
        row.delay_model.clone(),
        row.algorithm.clone(),
    );
    launch_samples(launches, &k).into_iter().unzip()
}

impl ConfigStats {
    /// The median's interval, if there is one.
    pub fn median_ci(&self) -> Option<Interval> {
        Some(Interval {
            lo: self.t_global_median_ci_lo_s?,
            hi: self.t_global_median_ci_hi_s?,
        })
    }

    /// The benefit's interval, if there is one.
    pub fn benefit_ci(&self) -> Option<Interval> {
        Some(Interval {
            lo: self.benefit_median_ci_lo?,
            hi: self.benefit_median_ci_hi?,
        })
    }
}

#[derive(Default)]
struct BetweenLaunches {
    median_min: Option<f64>,
    median_max: Option<f64>,
    median_cv: Option<f64>,
    benefit_min: Option<f64>,
    benefit_max: Option<f64>,
}

/// Spread of the per-launch medians (and benefits from them) of one configuration.
fn between_launches(
    own: &[&BlockDigest],
    base: &[&BlockDigest],
    delay_s: f64,
    late: bool,
) -> BetweenLaunches {
    use statrs::statistics::Statistics;
    let medians: Vec<f64> = own.iter().filter_map(|b| median(&b.t_globals)).collect();
    let range = |v: &[f64]| {
        let lo = v.iter().copied().reduce(f64::min);
        let hi = v.iter().copied().reduce(f64::max);
        (lo, hi)
    };
    let (median_min, median_max) = range(&medians);
    let median_cv = (medians.len() > 1).then(|| medians.iter().std_dev() / medians.iter().mean());
    // Launch i's benefit uses launch i's own baseline: both come from the same mpirun.
    let benefits: Vec<f64> = if late && own.len() == base.len() {
        own.iter()
            .zip(base)
            .filter_map(|(b, b0)| {
                let t = median(&b.t_globals)?;
                let t0 = median(&b0.t_globals)?;
                Some(benefit(t0, t, delay_s))
            })
            .collect()
    } else {
        Vec::new()
    };
    let (benefit_min, benefit_max) = range(&benefits);
    BetweenLaunches {
        median_min,
        median_max,
        median_cv,
        benefit_min,
        benefit_max,
    }
}

/// Delay overlap benefit b = (t0 + δ − tδ) / tδ (Niethammer et al. 2016, eq. 5): 1 hides the delay completely up
/// to t0, 0 means the delay just adds, < 0 costs extra. All arguments in seconds.
pub fn benefit(t0_s: f64, t_delayed_s: f64, delay_s: f64) -> f64 {
    (t0_s + delay_s - t_delayed_s) / t_delayed_s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benefit_formula() {
        // Delay hidden completely: t_delta = t0 -> b = delta / t0.
        assert!((benefit(10e-6, 10e-6, 10e-6) - 1.0).abs() < 1e-12);
        // Delay just adds: t_delta = t0 + delta -> b = 0.
        assert!(benefit(10e-6, 60e-6, 50e-6).abs() < 1e-12);
        // Delay costs extra -> b < 0.
        assert!(benefit(10e-6, 80e-6, 50e-6) < 0.0);
    }

    use crate::records::testdata;

    fn records(op_time_s: f64, nrep: u32) -> Records {
        testdata::records(
            2,
            vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, nrep, op_time_s),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, nrep, op_time_s),
            ],
        )
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1e-12))
    }

    #[test]
    fn ceiling_by_hand() {
        // t0 = 2 us, δ = 50 us: 2/50 = 4 %; t0 = δ: 1; t0 = 100 us: 0.5.
        assert!(close(benefit_ceiling(2e-6, 50e-6), 0.04));
        assert!(close(benefit_ceiling(50e-6, 50e-6), 1.0));
        assert!(close(benefit_ceiling(100e-6, 50e-6), 0.5));
        assert_eq!(benefit_ceiling(0.0, 50e-6), None);
        assert_eq!(benefit_ceiling(1e-6, 0.0), None);
    }

    #[test]
    fn one_launch_by_hand() {
        // testdata: valid reps 0, 2, 3, 4 take 10, 12, 13, 14 us (+ 50 us when delayed).
        let rows = config_stats(&[records(10e-6, 5)], &Bootstrap::default()).unwrap();
        let (base, late) = (&rows[0], &rows[1]);
        assert_eq!(
            (base.valid, base.total, base.valid0, base.total0),
            (4, 5, 4, 5)
        );
        assert!(base.few_valid);
        assert_eq!((base.benefit_median, base.benefit_ceiling), (None, None));
        assert!(close(late.t_global_min_s, 60e-6) && close(late.t_global_max_s, 64e-6));
        assert!(close(late.t_global_median_s, 62.5e-6));
        assert!(close(late.t_global_mean_s, 62.25e-6));
        // n = 4: IQM drops one value at each end, mean of 62 and 63.
        assert!(close(late.t_global_iqm_s, 62.5e-6));
        assert!(close(late.t0_median_s, 12.5e-6));
        // tδ = t0 + δ exactly: b = 0 by min and median; the ceiling is 12.5/50.
        assert!(close(late.benefit_min, 0.0) || late.benefit_min.unwrap().abs() < 1e-9);
        assert!(late.benefit_median.unwrap().abs() < 1e-9);
        assert!(close(late.benefit_ceiling, 0.25));
        // 4 valid repetitions a side, under MIN_VALID_FOR_CI: no interval, no significance.
        assert_eq!(late.benefit_significant, None);
        assert_eq!((late.median_ci(), late.benefit_ci()), (None, None));
        assert_eq!(late.cost_median_ci_lo_s, None);
        // One launch: no between-launch variation, its range is the one median.
        assert_eq!(late.launch_median_cv, None);
        assert!(close(late.launch_median_min_s, 62.5e-6));
        assert_eq!(late.launches, 1);
    }

    #[test]
    fn enough_repetitions_give_intervals() {
        // 8 repetitions, 7 valid: 10, 12..17 us (+ 50 us when delayed), medians 14 and 64 us.
        let rows = config_stats(&[records(10e-6, 8)], &Bootstrap::default()).unwrap();
        let late = &rows[1];
        assert_eq!((late.valid, late.valid0), (7, 7));
        // tδ = t0 + δ: the interval brackets 0, not significant.
        assert!(late.benefit_ci().unwrap().contains(0.0));
        assert_eq!(late.benefit_significant, Some(false));
        let ci = late.median_ci().unwrap();
        assert!(ci.lo >= 60e-6 - 1e-12 && ci.hi <= 67e-6 + 1e-12, "{ci:?}");
        let (lo, hi) = (
            late.cost_median_ci_lo_s.unwrap(),
            late.cost_median_ci_hi_s.unwrap(),
        );
        assert!(lo <= 50e-6 + 1e-12 && 50e-6 - 1e-12 <= hi, "[{lo}, {hi}]");
    }

    #[test]
    fn significance_is_controlled_over_the_rows() {
        // Twelve rows: eleven without a benefit (tδ = t0 + δ) and one with a clear one.
        let mut rows = config_stats(&[records(10e-6, 40)], &Bootstrap::default()).unwrap();
        let clear = rows[1].clone();
        assert!(clear.benefit_p.unwrap() > 0.05, "{clear:?}");
        rows = std::iter::repeat_n(clear, 12).collect();
        // One p of 0.03 among p-values of 0.5: below 0.05 alone, not below 0.05 / 12.
        for r in rows.iter_mut() {
            r.benefit_p = Some(0.5);
        }
        rows[3].benefit_p = Some(0.03);
        control_false_discoveries(&mut rows, &Bootstrap::default());
        assert!(rows.iter().all(|r| r.benefit_significant == Some(false)));
        // At 0.004 < 0.05 / 12 it is a discovery.
        rows[3].benefit_p = Some(0.004);
        control_false_discoveries(&mut rows, &Bootstrap::default());
        assert_eq!(rows[3].benefit_significant, Some(true));
        assert_eq!(
            rows.iter()
                .filter(|r| r.benefit_significant == Some(true))
                .count(),
            1
        );
        // A real benefit in the data: the smallest p, significant.
        let mut r = records(10e-6, 40);
        for x in r.blocks[1].t_end_global_s.0.iter_mut() {
            *x -= 20e-6;
        }
        let rows = config_stats(&[r], &Bootstrap::default()).unwrap();
        assert!(rows[1].benefit_p.unwrap() < 0.002, "{:?}", rows[1]);
        assert_eq!(rows[1].benefit_significant, Some(true));
        assert_eq!(
            (rows[0].benefit_p, rows[0].benefit_significant),
            (None, None)
        );
    }

    #[test]
    fn launches_pool_and_report_their_spread() {
        // Launch 2 is 20 % slower in both blocks.
        let rows = config_stats(
            &[records(10e-6, 5), records(12e-6, 5)],
            &Bootstrap::default(),
        )
        .unwrap();
        let late = &rows[1];
        assert_eq!((late.launches, late.valid, late.total), (2, 8, 10));
        // Per-launch medians 62.5 and 65 us (12, 14.4, 15.6, 16.8 -> 15 us, + 50 us).
        assert!(close(late.launch_median_min_s, 62.5e-6));
        assert!(close(late.launch_median_max_s, 65e-6));
        let (m, sd) = (63.75e-6, (2.5e-6f64 * 2.5e-6 / 2.0).sqrt());
        assert!(close(late.launch_median_cv, sd / m), "{late:?}");
        // Each launch alone has tδ = t0 + δ: b = 0 in both.
        assert!(late.benefit_launch_min.unwrap().abs() < 1e-9);
        assert!(late.benefit_launch_max.unwrap().abs() < 1e-9);
    }

    /// Launch `i` of five (0..5): both blocks take `op_time_s` plus the launch's own offset
    /// (launch medians 62.5 + k us apart), with 40 repetitions each.
    fn five_launches(extra_cost_s: [f64; 5]) -> Vec<Records> {
        [0.0, 6e-6, 2e-6, 4e-6, 1e-6]
            .iter()
            .zip(extra_cost_s)
            .map(|(&shift, extra)| {
                let mut r = records(10e-6 + shift, 40);
                for x in r.blocks[1].t_end_global_s.0.iter_mut() {
                    *x += extra;
                }
                r
            })
            .collect()
    }

    #[test]
    fn several_launches_decide_on_the_launches() {
        let boot = Bootstrap::default();
        let launches = five_launches([0.0; 5]);
        let rows = config_stats(&launches, &boot).unwrap();
        let late = &rows[1];
        assert_eq!(late.launches, 5);
        // The point is the median over launches of each launch's median: each launch's
        // median lies inside the interval over launches, which the pooled repetitions'
        // interval (what one launch would claim) does not hold.
        let medians: Vec<f64> = launches
            .iter()
            .map(|r| {
                let d = LaunchDigest::of(r);
                median(&d.blocks[1].t_globals).unwrap()
            })
            .collect();
        let ci = late.median_ci().unwrap();
        for m in &medians {
            assert!(ci.contains(*m), "launch median {m} outside {ci:?}");
        }
        let mut sorted = medians.clone();
        sorted.sort_by(f64::total_cmp);
        assert!(close(late.t_global_median_s, sorted[2]), "{late:?}");
        let pooled: Vec<f64> = launches
            .iter()
            .flat_map(|r| LaunchDigest::of(r).blocks[1].t_globals.clone())
            .collect();
        let narrow = boot.median_ci(&pooled).unwrap();
        assert!(narrow.hi - narrow.lo < ci.hi - ci.lo, "{narrow:?} {ci:?}");
        // Every launch has tδ = t0 + δ: the cost is δ, no launch disagrees.
        assert!(close(late.cost_median_s, 50e-6), "{late:?}");
        assert_eq!(late.launches_disagree, Some(false));
    }

    #[test]
    fn launches_that_contradict_each_other_are_named() {
        let boot = Bootstrap::default();
        // Launch 1 hides 40 us of the delay, launch 2 costs 40 us more than it: each by an
        // interval (about ±10 us here) that excludes δ.
        let rows = config_stats(&five_launches([-40e-6, 40e-6, 0.0, 0.0, 0.0]), &boot).unwrap();
        assert_eq!(rows[1].launches_disagree, Some(true), "{:?}", rows[1]);
        // One launch of them: nothing to disagree with.
        let one = config_stats(&five_launches([-40e-6; 5])[..1], &boot).unwrap();
        assert_eq!(one[1].launches_disagree, None);
    }

    #[test]
    fn launches_within_the_margin_of_the_delay_do_not_disagree() {
        let mut boot = Bootstrap::default();
        // Narrow launches (60 repetitions within 10 ns): t0 = 10 us, cost `cost` us.
        let reps =
            |base: f64| -> Vec<f64> { (0..60).map(|i| base + f64::from(i) * 1e-10).collect() };
        let pair = |cost_us: f64| (reps(10e-6), reps(10e-6 + cost_us * 1e-6));
        let disagree = |costs: &[f64]| {
            let (t0s, tds): (Vec<_>, Vec<_>) = costs.iter().map(|&c| pair(c)).unzip();
            launches_disagree(&t0s, &tds, 50e-6, &boot)
        };
        // At the default 10 % margin: 6 % below and above δ both cost the delay; 12 % below
        // and above, one hid part of it and the other cost extra.
        assert_eq!(disagree(&[47.0, 53.0]), Some(false));
        assert_eq!(disagree(&[44.0, 56.0]), Some(true));
        // At a 1 % margin, 0.4 % either side is within it, 1.2 % is not.
        boot.margin = 0.01;
        let disagree = |costs: &[f64]| {
            let (t0s, tds): (Vec<_>, Vec<_>) = costs.iter().map(|&c| pair(c)).unzip();
            launches_disagree(&t0s, &tds, 50e-6, &boot)
        };
        assert_eq!(disagree(&[49.8, 50.2]), Some(false));
        assert_eq!(disagree(&[49.4, 50.6]), Some(true));
        assert_eq!(disagree(&[49.4]), None);
    }

    #[test]
    fn pooled_rows_name_every_launch_once() {
        let (a, mut b) = (records(10e-6, 5), records(12e-6, 5));
        b.header.provenance.run_id = "second".into();
        b.header.hosts = vec!["node1".into(); b.header.hosts.len()];
        let rows = config_stats(&[a.clone(), b], &Bootstrap::default()).unwrap();
        for r in &rows {
            assert_eq!(r.run_id, "00000000-0000-4000-8000-000000000007 | second");
            assert_eq!(r.host_names, "node0 | node1");
            // The same in both launches: said once.
            assert_eq!(
                (r.tags.as_str(), r.mpi_library.as_str()),
                ("system=test", "synthetic")
            );
        }
        let one = config_stats(&[a], &Bootstrap::default()).unwrap();
        assert_eq!(one[0].run_id, "00000000-0000-4000-8000-000000000007");
    }

    #[test]
    fn launches_of_other_plans_are_refused() {
        let mut other = records(10e-6, 5);
        other.blocks[1].delay_model = "100us".into();
        let e = config_stats(&[records(10e-6, 5), other], &Bootstrap::default()).unwrap_err();
        assert!(matches!(e, AnalysisError::DifferentPlans { launch: 2, .. }));
        assert!(
            e.to_string().contains("lacks allreduce 8 B P=2 delay 50us"),
            "{e}"
        );
        assert_eq!(
            config_stats(&[], &Bootstrap::default()),
            Err(AnalysisError::Empty)
        );
    }

    #[test]
    fn sampled_delays_have_no_single_benefit() {
        let mut r = records(10e-6, 40);
        // A sampled delay: rank 0 got 42 us, not the nominal 50 us.
        r.blocks[1].applied_delay_s.0[0] = 42e-6;
        let rows = config_stats(&[r], &Bootstrap::default()).unwrap();
        let late = &rows[1];
        assert_eq!((late.benefit_median, late.benefit_ceiling), (None, None));
        assert_eq!(late.benefit_significant, None);
        assert!(!late.few_valid, "39 valid repetitions on both sides");
        assert!(late.t_global_median_s.is_some());
        assert_eq!(late.benefit_na, Some(NA_BENEFIT_SAMPLED));
    }

    #[test]
    fn ceiling_from_the_benefits_statistic() {
        // Minima: t0 10 us, tδ 60 us; medians: t0 12.5 us, tδ 62.5 us (see one_launch_by_hand).
        let rows = config_stats(&[records(10e-6, 5)], &Bootstrap::default()).unwrap();
        let late = &rows[1];
        assert!(close(late.benefit_ceiling_min, 10.0 / 50.0));
        assert!(close(late.benefit_ceiling, 12.5 / 50.0));
        assert!(
            close(late.benefit_of_ceiling, 0.0) || late.benefit_of_ceiling.unwrap().abs() < 1e-9
        );
        assert_eq!((late.above_ceiling, late.benefit_na), (Some(false), None));
        assert_eq!(rows[0].above_ceiling, None);
    }

    #[test]
    fn a_benefit_above_its_bound_is_flagged() {
        // Valid reps take 100, 120, 130, 140 us (t0 median 125 us); the delayed block ends
        // 100 us earlier than t0 + δ: tδ median 75 us, b = (125 + 50 − 75) / 75 = 4/3, far
        // above the bound min(125, 50) / max(125, 50) = 0.4: there tδ < t0.
        let mut r = records(100e-6, 5);
        for x in r.blocks[1].t_end_global_s.0.iter_mut() {
            *x -= 100e-6;
        }
        let rows = config_stats(&[r], &Bootstrap::default()).unwrap();
        let late = &rows[1];
        assert!(close(late.benefit_median, 4.0 / 3.0), "{late:?}");
        assert!(close(late.benefit_ceiling, 0.4));
        assert_eq!(late.above_ceiling, Some(true));
        let warnings = super::super::launches::metric_warnings(&rows);
        assert!(
            warnings[0].starts_with("1 configuration(s) have a benefit above"),
            "{warnings:?}"
        );
    }

    #[test]
    fn no_benefit_in_overlap_mode() {
        let mut r = records(10e-6, 5);
        r.blocks = r.blocks.into_iter().map(testdata::with_overlap).collect();
        let rows = config_stats(&[r], &Bootstrap::default()).unwrap();
        let late = &rows[1];
        assert_eq!((late.benefit_median, late.benefit_min), (None, None));
        assert_eq!(
            (late.benefit_ceiling, late.benefit_ceiling_min),
            (None, None)
        );
        assert_eq!(late.benefit_na, Some(NA_BENEFIT_OVERLAP));
        assert_eq!(rows[0].benefit_na, None, "a baseline has nothing to be n/a");
    }
}
