//! The per-rank timeline of one repetition on the global clock, like the traces of Niethammer et al. 2016,
//! Figures 2 and 3: each rank's wait for its (delayed) start, then its time inside the
//! operation until it returned. The blocking and the nonblocking kernel of one family, each
//! undelayed and under δ, at the smallest size and largest P; the repetition shown is the one
//! with the median t_global, so the picture is typical, not the best or worst case.

use super::naming::DelayKey;
use super::over_run::config_title;
use super::render::Drawable;
use super::spec::{family_color, LegendEntry, SeriesStyle};
use super::xy::{Bar, XyAxis, XyFigure, XyPanel};
use super::RunData;
use crate::analysis::{BlockDigest, BlockTimes};
use crate::plan::kernel::Family;
use crate::plan::Op;
use crate::records::Block;
use crate::timeline::baseline_among;

/// Microseconds per second.
const US: f64 = 1e6;
/// Colour of a rank's delay before it entered: Okabe–Ito yellow, the one colour no kernel
/// family uses, so a delay never looks like time inside the operation.
const DELAY_COLOR: (u8, u8, u8) = (240, 228, 66);
/// Rank labels that fit a panel's height; more ranks are labelled every k-th (late ranks
/// always).
const MAX_RANK_LABELS: usize = 16;
/// Colour of a wait that is not a delay (a late start, or barrier synchronisation).
const WAIT_COLOR: (u8, u8, u8) = (200, 200, 200);
/// Half a bar's height, in ranks.
const HALF: f64 = 0.3;
/// Configurations one timeline figure shows at most (two panels each): more panels would be
/// too small to read; the subtitle says how many were left out.
const MAX_CONFIGS: usize = 4;

/// The valid repetition (of a block whose valid repetitions and t_globals are `times`) whose
/// t_global is the median (the lower one of an even count), or
/// `None` without a valid repetition.
pub fn median_of(times: &BlockTimes) -> Option<usize> {
    let mut reps: Vec<(f64, usize)> = times
        .t_globals
        .iter()
        .zip(&times.reps)
        .map(|(&t, &r)| (t, r as usize))
        .collect();
    if reps.is_empty() {
        return None;
    }
    // Selection, not a sort: one O(n) pass per block. Ties in t_global go to the earlier
    // repetition, as a stable sort by t_global would order them.
    let mid = (reps.len() - 1) / 2;
    let (_, &mut (_, r), _) =
        reps.select_nth_unstable_by(mid, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    Some(r)
}

/// The bars of repetition `rep`: per rank, from the repetition's start instant (the scheduled
/// start, or the earliest start with barrier sync) to its start (delay colour when the rank was
/// delayed, grey otherwise), then from start to end in `op_color`. Times in µs after the
/// start instant, y = rank.
pub fn rep_bars(block: &Block, rep: usize, op_color: (u8, u8, u8)) -> Vec<Bar> {
    let p = block.nprocs as usize;
    let row = rep * p..(rep + 1) * p;
    let starts = &block.t_start_global_s.0[row.clone()];
    let ends = &block.t_end_global_s.0[row.clone()];
    let delays = &block.applied_delay_s.0[row];
    let scheduled = block.scheduled_start_s.0[rep];
    let zero = if scheduled.is_finite() {
        scheduled
    } else {
        starts.iter().copied().fold(f64::INFINITY, f64::min)
    };
    let mut bars = Vec::new();
    for rank in 0..p {
        let (s, e) = ((starts[rank] - zero) * US, (ends[rank] - zero) * US);
        if s > 0.0 {
            bars.push(Bar {
                y: rank as f64,
                x0: 0.0,
                x1: s,
                color: if delays[rank] > 0.0 {
                    DELAY_COLOR
                } else {
                    WAIT_COLOR
                },
                half_height: HALF,
            });
        }
        bars.push(Bar {
            y: rank as f64,
            x0: s,
            x1: e,
            color: op_color,
            half_height: HALF,
        });
    }
    bars
}

/// Labels of ranks `0..p`: `3 (late)` for the delayed ranks, the number for every k-th rank
/// so that at most about [`MAX_RANK_LABELS`] are labelled, empty (no tick) for the others.
pub fn rank_names(p: usize, delayed: &[usize]) -> Vec<String> {
    let step = p.div_ceil(MAX_RANK_LABELS).max(1);
    (0..p)
        .map(|r| {
            if delayed.contains(&r) {
                format!("{r} (late)")
            } else if r % step == 0 || r + 1 == p {
                r.to_string()
            } else {
                String::new()
            }
        })
        .collect()
}

/// The family the timeline shows: the first of the run's kernels measured under `key` with a
/// valid repetition, and the size and P it is shown at (smallest size, largest P with a
/// valid repetition: on an oversubscribed machine the largest P may have none).
fn chosen(blocks: &[&BlockDigest], key: &DelayKey) -> Option<(Family, u64, u32)> {
    let delayed = |b: &&&BlockDigest| key.matches(&b.delay_model, b.delay_s);
    let first = blocks.iter().find(delayed)?.op.family();
    let bytes = blocks
        .iter()
        .filter(delayed)
        .filter(|b| b.op.family() == first)
        .map(|b| b.bytes)
        .min()?;
    let p = blocks
        .iter()
        .filter(delayed)
        .filter(|b| b.op.family() == first && b.bytes == bytes)
        .map(|b| b.nprocs)
        .max()?;
    Some((first, bytes, p))
}

/// The (op, bytes, P) the timeline of `key` shows, and a note on what it left out. Without a
/// selection: the blocking and nonblocking kernel of the first family, at its smallest size
/// and largest P. With `plot --op/--size/--procs`: every selected configuration measured
/// under `key`, up to [`MAX_CONFIGS`].
fn configs(data: &RunData, key: &DelayKey) -> (Vec<(Op, u64, u32)>, Option<String>) {
    // Blocks with a valid repetition only: the others have nothing to draw.
    let blocks: Vec<&BlockDigest> = data
        .run
        .launch
        .blocks
        .iter()
        .zip(&data.run.extras)
        .filter(|(_, x)| x.median.is_some())
        .map(|(b, _)| b)
        .collect();
    let mut all: Vec<(Op, u64, u32)> = blocks
        .iter()
        .filter(|b| key.matches(&b.delay_model, b.delay_s))
        .map(|b| (b.op, b.bytes, b.nprocs))
        .collect();
    all.sort_by_key(|&(op, bytes, p)| (super::spec::op_order(op), bytes, p));
    all.dedup();
    if data.selection.is_everything() {
        let Some((family, bytes, p)) = chosen(&blocks, key) else {
            return (Vec::new(), None);
        };
        // The family's kernels, blocking first (Op::ALL lists each blocking kernel first).
        let shown: Vec<(Op, u64, u32)> = Op::ALL
            .iter()
            .filter(|op| op.family() == family)
            .map(|&op| (op, bytes, p))
            .filter(|c| all.contains(c))
            .collect();
        let note = (all.len() > shown.len()).then(|| {
            format!(
                "{} of {} configurations shown; choose others with plot --op, --size, --procs",
                shown.len(),
                all.len()
            )
        });
        return (shown, note);
    }
    let note = (all.len() > MAX_CONFIGS).then(|| {
        format!(
            "the first {MAX_CONFIGS} of {} selected configurations; narrow the selection to see others",
            all.len()
        )
    });
    all.truncate(MAX_CONFIGS);
    (all, note)
}

/// The timeline figure for delay model `key`, or `None` without a delayed block that has a
/// valid repetition.
pub fn figure(data: &RunData, key: &DelayKey, stem: String) -> Option<XyFigure> {
    let blocks = &data.run.launch.blocks;
    let (shown, note) = configs(data, key);
    let families = super::benefit::sorted_distinct(shown.iter().map(|c| c.0.family()));
    let mut panels = Vec::new();
    let mut x_hi: f64 = 0.0;
    // A figure needs a delayed panel: undelayed ones alone show nothing of the delay.
    let mut any_delayed = false;
    for (op, bytes, p) in shown {
        let late = blocks.iter().find(|b| {
            b.op == op
                && b.bytes == bytes
                && b.nprocs == p
                && key.matches(&b.delay_model, b.delay_s)
        });
        for delayed in [false, true] {
            // The baseline is the delayed block's as `timeline::pairing` pairs them (same
            // algorithm too, in a run with `--algorithms`).
            let found = if delayed {
                late
            } else {
                late.and_then(|l| baseline_among(blocks, l, |_| true))
            };
            // The median repetition was kept, cut out of its block, while the file was read.
            let extras = |b: &BlockDigest| {
                let i = blocks.iter().position(|x| std::ptr::eq(x, b))?;
                data.run.extras[i].median.as_ref()
            };
            let Some((rep, one)) = found.and_then(extras) else {
                continue;
            };
            let (rep, block) = (*rep, one);
            any_delayed |= delayed;
            let color = SeriesStyle::for_op(op, family_color(op)).color;
            let bars = rep_bars(block, 0, color);
            let latest_end = bars.iter().map(|b| b.x1).fold(0.0, f64::max);
            x_hi = x_hi.max(latest_end);
            let delayed_ranks: Vec<usize> = (0..p as usize)
                .filter(|&r| block.applied_delay_s.0[block.idx(0, r)] > 0.0)
                .collect();
            panels.push(XyPanel {
                title: format!(
                    "{}, {}: repetition {rep}",
                    config_title(op, bytes, p),
                    if delayed {
                        key.short()
                    } else {
                        "undelayed".to_string()
                    }
                ),
                x: XyAxis {
                    lo: 0.0,
                    hi: 1.0,
                    log: false,
                    label: "µs after the repetition's start instant (global clock)".into(),
                },
                y: XyAxis {
                    lo: -0.6,
                    hi: p as f64 - 0.4,
                    log: false,
                    label: "rank".into(),
                },
                bars,
                lines: Vec::new(),
                // Bars start at the repetition's start instant, which may precede the
                // earliest start: the line marks the latest end, where t_global ends.
                marks: vec![(latest_end, " latest end".into())],
                y_names: rank_names(p as usize, &delayed_ranks),
                heat: None,
            });
        }
    }
    if !any_delayed {
        return None;
    }
    // One time scale for all panels, so the undelayed and delayed traces compare by length.
    for panel in &mut panels {
        panel.x.hi = x_hi * 1.08;
    }
    let mut legend = vec![
        LegendEntry {
            label: "delay before entering".into(),
            style: SeriesStyle::new(false, DELAY_COLOR),
        },
        LegendEntry {
            label: "late start (not a delay)".into(),
            style: SeriesStyle::new(false, WAIT_COLOR),
        },
    ];
    legend.extend(families.iter().map(|f| LegendEntry {
        label: format!("inside {f} (nonblocking: post to wait)"),
        style: SeriesStyle::new(false, f.color()),
    }));
    Some(XyFigure {
        stem,
        title: format!(
            "Per-rank timeline of the median repetition, {}",
            key.describe()
        ),
        subtitle: [
            "each bar: one rank on the global clock",
            "coloured: inside the operation, from its start to its return",
            "the late rank's bar starts after its delay",
            "dotted: the latest end (t_global = latest end − earliest start)",
        ]
        .into_iter()
        .map(String::from)
        .chain(note)
        .collect::<Vec<_>>()
        .join(super::layout::PART_SEP),
        warnings: data.warnings.clone(),
        panels,
        legend,
    })
}

/// The `timeline_{δ}` figures of a run (the statistic does not apply: one repetition).
pub(super) fn drawables(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    data.per_model("timeline", |d, stem| {
        figure(data, d, stem).map(Drawable::Custom)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    #[test]
    fn median_rep_skips_invalid_repetitions() {
        // Valid reps 0, 2, 3, 4 with growing t_global: the lower median is rep 2.
        let b = testdata::block(Op::Allreduce, 8, 3, 50e-6, 5, 10e-6);
        assert_eq!(median_of(&BlockTimes::of(&b)), Some(2));
        let mut none = b.clone();
        none.flags.iter_mut().for_each(|f| *f = 1);
        assert_eq!(median_of(&BlockTimes::of(&none)), None);
    }

    #[test]
    fn median_rep_is_the_lower_median_and_the_earliest_of_ties() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for nrep in [1u32, 2, 5, 6, 40, 41] {
            let mut b = testdata::block(Op::Allreduce, 8, 2, 0.0, nrep, 10e-6);
            // Few distinct t_globals, so that ties are common; some repetitions invalid.
            for r in 0..nrep as usize {
                let t = f64::from(rng.random_range(1..5u8)) * 1e-6;
                b.t_start_global_s.0[2 * r..2 * r + 2].fill(0.0);
                b.t_end_global_s.0[2 * r..2 * r + 2].fill(t);
                b.flags[2 * r] = u8::from(rng.random_range(0..4) == 0);
            }
            // The definition: valid repetitions stably sorted by t_global, the lower middle.
            let mut by_t: Vec<(f64, usize)> = (0..nrep as usize)
                .filter(|&r| b.rep_valid(r))
                .map(|r| (b.t_end_global_s.0[2 * r], r))
                .collect();
            by_t.sort_by(|x, y| x.0.total_cmp(&y.0));
            let want = by_t.get(by_t.len().saturating_sub(1) / 2).map(|&(_, r)| r);
            assert_eq!(
                median_of(&BlockTimes::of(&b)),
                want,
                "nrep {nrep}: {by_t:?}"
            );
        }
    }

    #[test]
    fn many_ranks_are_thinned_but_late_ones_keep_their_label() {
        assert_eq!(rank_names(3, &[1]), vec!["0", "1 (late)", "2"]);
        let names = rank_names(64, &[5]);
        let labelled: Vec<usize> = (0..64).filter(|&r| !names[r].is_empty()).collect();
        assert_eq!(
            labelled,
            vec![0, 4, 5, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 63]
        );
        assert_eq!(names[5], "5 (late)");
    }

    #[test]
    fn bars_show_the_delay_then_the_operation() {
        let b = testdata::block(Op::Allreduce, 8, 3, 50e-6, 5, 10e-6);
        let bars = rep_bars(&b, 0, (1, 2, 3));
        // Rank 0: delay bar 0..50 us, then the operation 50..60 us; ranks 1, 2: operation only.
        assert_eq!(bars.len(), 4);
        assert_eq!(bars[0].color, DELAY_COLOR);
        assert!((bars[0].x1 - 50.0).abs() < 1e-6 && bars[0].x0 == 0.0);
        assert!((bars[1].x0 - 50.0).abs() < 1e-6 && (bars[1].x1 - 60.0).abs() < 1e-6);
        assert_eq!(bars[2].y, 1.0);
        assert!(bars[2].x0.abs() < 1e-6 && (bars[2].x1 - 59.9).abs() < 1e-6);
    }

    #[test]
    fn blocking_and_nonblocking_undelayed_and_delayed() {
        let mut blocks = Vec::new();
        for op in [Op::Allreduce, Op::Iallreduce] {
            for d in [0.0, 50e-6] {
                blocks.push(testdata::block(op, 8, 2, d, 5, 10e-6));
                blocks.push(testdata::block(op, 1024, 2, d, 5, 10e-6));
            }
        }
        let r = testdata::records(2, blocks);
        let fig = figure(&RunData::new(&r), &DelayKey::fixed(50e-6), "t".into()).unwrap();
        let titles: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "allreduce, 8 B, P = 2, undelayed: repetition 2",
                "allreduce, 8 B, P = 2, δ = 50 µs: repetition 2",
                "iallreduce, 8 B, P = 2, undelayed: repetition 2",
                "iallreduce, 8 B, P = 2, δ = 50 µs: repetition 2",
            ]
        );
        assert_eq!(fig.panels[1].y_names, vec!["0 (late)", "1"]);
        assert!(fig.panels.iter().all(|p| p.x.hi == fig.panels[0].x.hi));
        assert!(fig.panels[0].x.hi > 62.0);
        assert!(figure(&RunData::new(&r), &DelayKey::fixed(10e-6), "t".into()).is_none());
        // Without a selection the figure says what it left out.
        assert!(
            fig.subtitle.contains("2 of 4 configurations shown"),
            "{}",
            fig.subtitle
        );
    }

    #[test]
    fn a_selection_draws_each_selected_configuration() {
        let mut blocks = Vec::new();
        for op in [Op::Allreduce, Op::Bcast] {
            for bytes in [8, 1024] {
                for d in [0.0, 50e-6] {
                    blocks.push(testdata::block(op, bytes, 2, d, 5, 10e-6));
                }
            }
        }
        let r = testdata::records(2, blocks);
        let sel = crate::plot::Selection {
            sizes: vec![1024],
            ..Default::default()
        };
        let data = RunData::of_runs(vec![crate::plot::PlotRun::of(&r)], &sel).unwrap();
        let fig = figure(&data, &DelayKey::fixed(50e-6), "t".into()).unwrap();
        let titles: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "bcast, 1 KiB, P = 2, undelayed: repetition 2",
                "bcast, 1 KiB, P = 2, δ = 50 µs: repetition 2",
                "allreduce, 1 KiB, P = 2, undelayed: repetition 2",
                "allreduce, 1 KiB, P = 2, δ = 50 µs: repetition 2",
            ]
        );
        assert_eq!(fig.legend.len(), 4, "one colour per family shown");
        assert!(!fig.subtitle.contains("shown"));
    }

    #[test]
    fn the_undelayed_panel_is_the_delayed_blocks_own_algorithms() {
        // The library's own choice first, ten times slower than the ring.
        let r = testdata::two_algorithms(100e-6);
        let fig = figure(&RunData::new(&r), &DelayKey::fixed(50e-6), "t".into()).unwrap();
        assert_eq!(fig.panels.len(), 2);
        // The ring's baseline ends within its 10-14 us, not the default's 100 us and more.
        let end = fig.panels[0].bars.iter().map(|b| b.x1).fold(0.0, f64::max);
        assert!(end > 0.0 && end < 20.0, "{end}");
    }
}
