//! `delaybench clocksync --simulate`: every method in the event-driven simulator
//! ([`super::eventsim`]) for P up to 65,536, clock error vs P and vs time after the
//! synchronisation, median and spread over seeds. The shape to compare with is Hunold and
//! Carpen-Amarie 2015, §7, Figures 8-10 (HCA and JK error vs time after the sync, sync
//! time vs P).

use super::eventsim::{run_event_world, EventSimConfig, START_S};
use super::{build, ClockSync, ClockSyncMethod, ClockSyncParams};
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use std::time::Instant;

/// What to simulate.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingPlan {
    /// Methods, in the order of the rows.
    pub methods: Vec<ClockSyncMethod>,
    /// Process counts P.
    pub procs: Vec<usize>,
    /// Runs per method and P; run k uses seed `config.seed + k` (clocks, links, delays).
    pub seeds: u32,
    /// Times after the end of the synchronisation at which the error is taken, seconds.
    pub waits_s: Vec<f64>,
    /// Method parameters.
    pub params: ClockSyncParams,
    /// The simulated cluster (its seed is the first run's).
    pub config: EventSimConfig,
    /// OS threads running seeds side by side (each world is single-threaded).
    pub threads: usize,
}

/// One synchronisation of P simulated ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// Virtual time from the start until the last rank finished, seconds.
    pub sync_s: f64,
    /// Per wait of the plan: the largest |error| over the ranks at that time after the last
    /// rank finished, seconds.
    pub max_error_s: Vec<f64>,
    /// Wall-clock time the simulation took, seconds.
    pub wall_s: f64,
}

/// Error of one method at one P after one wait, over the seeds (one row of the table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalingRow {
    /// Method name.
    pub method: String,
    /// P, the number of simulated ranks.
    pub nprocs: u32,
    /// Time after the end of the synchronisation, seconds.
    pub wait_s: f64,
    /// Runs (seeds) summarised.
    pub seeds: u32,
    /// Median virtual duration of the synchronisation, seconds.
    pub sync_s: f64,
    /// Median over the seeds of the largest |error| over the ranks, seconds.
    pub error_median_s: f64,
    /// Smallest of those maxima, seconds.
    pub error_min_s: f64,
    /// Largest of those maxima, seconds.
    pub error_max_s: f64,
    /// Median wall-clock time of one simulated synchronisation, seconds.
    pub wall_s: f64,
}

/// Synchronises `p` simulated ranks with `method` and takes the true error after each wait.
pub fn run_trial(
    method: ClockSyncMethod,
    params: &ClockSyncParams,
    p: usize,
    config: &EventSimConfig,
    waits_s: &[f64],
) -> Trial {
    let started = Instant::now();
    let sync: Rc<dyn ClockSync> = Rc::from(build(method, params) as Box<dyn ClockSync>);
    let (out, clocks) = run_event_world(p, config, move |t| {
        let model = sync.synchronize(t).model;
        (model, t.base_now())
    });
    let end = out.iter().map(|o| o.1).fold(START_S, f64::max);
    let max_error_s = waits_s
        .iter()
        .map(|w| {
            out.iter()
                .enumerate()
                .map(|(r, (m, _))| clocks.error(r, m, end + w).abs())
                .fold(0.0, f64::max)
        })
        .collect();
    Trial {
        sync_s: end - START_S,
        max_error_s,
        wall_s: started.elapsed().as_secs_f64(),
    }
}

/// Runs the plan; `progress` sees the rows of each (method, P) as they are done.
pub fn simulate(plan: &ScalingPlan, progress: &mut dyn FnMut(&[ScalingRow])) -> Vec<ScalingRow> {
    let mut rows = Vec::new();
    for &p in &plan.procs {
        for &method in &plan.methods {
            let trials = run_seeds(plan, method, p);
            let found = summarise(method, p, &plan.waits_s, &trials);
            progress(&found);
            rows.extend(found);
        }
    }
    rows
}

/// The plan's seeds of one (method, P), on up to `plan.threads` threads.
fn run_seeds(plan: &ScalingPlan, method: ClockSyncMethod, p: usize) -> Vec<Trial> {
    let seeds: Vec<u64> = (0..plan.seeds.max(1) as u64)
        .map(|k| plan.config.seed + k)
        .collect();
    let threads = plan.threads.clamp(1, seeds.len());
    let chunk = seeds.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = seeds
            .chunks(chunk)
            .map(|mine| {
                s.spawn(move || {
                    mine.iter()
                        .map(|&seed| {
                            let config = EventSimConfig {
                                seed,
                                ..plan.config.clone()
                            };
                            run_trial(method, &plan.params, p, &config, &plan.waits_s)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a simulation thread panicked"))
            .collect()
    })
}

/// One row per wait: median, smallest and largest of the trials' max |error|.
pub fn summarise(
    method: ClockSyncMethod,
    p: usize,
    waits_s: &[f64],
    trials: &[Trial],
) -> Vec<ScalingRow> {
    let sync_s = median(trials.iter().map(|t| t.sync_s).collect());
    let wall_s = median(trials.iter().map(|t| t.wall_s).collect());
    waits_s
        .iter()
        .enumerate()
        .map(|(i, &wait_s)| {
            let errors: Vec<f64> = trials.iter().map(|t| t.max_error_s[i]).collect();
            ScalingRow {
                method: method.name().into(),
                nprocs: p as u32,
                wait_s,
                seeds: trials.len() as u32,
                sync_s,
                error_median_s: median(errors.clone()),
                error_min_s: errors.iter().copied().fold(f64::INFINITY, f64::min),
                error_max_s: errors.iter().copied().fold(0.0, f64::max),
                wall_s,
            }
        })
        .collect()
}

/// Median (mean of the two middle values for an even count); NaN when empty.
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread_over_trials() {
        let trial = |e: f64| Trial {
            sync_s: e,
            max_error_s: vec![e, 2.0 * e],
            wall_s: 1.0,
        };
        let trials = [trial(3.0), trial(1.0), trial(2.0), trial(10.0)];
        let rows = summarise(ClockSyncMethod::Jk, 8, &[0.0, 5.0], &trials);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].error_median_s, 2.5);
        assert_eq!((rows[0].error_min_s, rows[0].error_max_s), (1.0, 10.0));
        assert_eq!(rows[1].error_median_s, 5.0);
        assert_eq!(rows[1].wait_s, 5.0);
        assert_eq!((rows[1].seeds, rows[1].nprocs), (4, 8));
    }

    #[test]
    fn offset_only_error_grows_with_the_skew() {
        // Skews within ±20 ppm: after 10 s an offset-only sync is off by up to 400 µs,
        // and surely by more than the 1 µs of right after the sync.
        let plan = ScalingPlan {
            methods: vec![ClockSyncMethod::Offset],
            procs: vec![16],
            seeds: 3,
            waits_s: vec![0.0, 10.0],
            params: ClockSyncParams::default(),
            config: EventSimConfig::default(),
            threads: 2,
        };
        let rows = simulate(&plan, &mut |_| {});
        assert_eq!(rows.len(), 2);
        assert!(rows[0].error_median_s < 2e-6, "{:?}", rows[0]);
        assert!(rows[1].error_median_s > 20e-6, "{:?}", rows[1]);
        assert!(rows[1].error_max_s < 401e-6, "{:?}", rows[1]);
        assert!(rows[0].error_min_s <= rows[0].error_median_s);
    }
}
