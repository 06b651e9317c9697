//! Noise amplification of simulated runs (`plot noiseless.cbor noisy-*.cbor`, simulated
//! files of one plan that differ in their header's noise source): per kernel and size, the
//! undelayed median t_global of each noisy file divided by the noiseless file's, against P,
//! one line per noise source. The view of Hoefler, Schneider and Lumsdaine (2010, Figures
//! 6-8) and Ferreira, Bridges and Brightwell (2008): how much the same noise costs as P
//! grows, and how it depends on how the noise is generated.

use super::benefit::sorted_distinct;
use super::layout::{time_axis, PART_SEP};
use super::naming::pretty_bytes;
use super::render::Drawable;
use super::spec::{op_order, FigureSpec, LegendEntry, PanelSpec, SeriesSpec, SeriesStyle};
use super::{RunData, Stat};
use crate::analysis::{median, LaunchDigest};
use crate::plan::Op;

/// The "no slowdown" reference at 1.
const REFERENCE_COLOR: (u8, u8, u8) = (90, 90, 90);

/// The simulated noise source of a launch: `Some(None)` for a simulated run without noise,
/// `Some(Some(source))` with noise, `None` for a measured run.
fn noise_of(l: &LaunchDigest) -> Option<Option<&str>> {
    l.header.simulation.as_ref().map(|s| s.noise.as_deref())
}

/// The undelayed median t_global per P of `op` at `bytes` in launch `l`, seconds, ascending
/// in P (the first block of a P).
fn undelayed_medians(l: &LaunchDigest, op: Op, bytes: u64) -> Vec<(u32, Option<f64>)> {
    let mut pts: Vec<(u32, Option<f64>)> = Vec::new();
    for b in l
        .blocks
        .iter()
        .filter(|b| b.op == op && b.bytes == bytes && b.delay_s == 0.0)
    {
        if pts.iter().all(|p| p.0 != b.nprocs) {
            pts.push((b.nprocs, median(&b.t_globals)));
        }
    }
    pts.sort_by_key(|p| p.0);
    pts
}

/// The slowdown figure, or `None` unless the pooled files are simulated with at least one
/// noiseless file and one noisy one.
pub fn figure(data: &RunData, stem: String) -> Option<FigureSpec> {
    let sources: Vec<Option<Option<&str>>> = data.launches.iter().map(noise_of).collect();
    let quiet = data
        .launches
        .iter()
        .zip(&sources)
        .find(|(_, n)| **n == Some(None))
        .map(|(l, _)| l)?;
    let noisy: Vec<(&LaunchDigest, &str)> = data
        .launches
        .iter()
        .zip(&sources)
        .filter_map(|(l, n)| n.flatten().map(|s| (l, s)))
        .collect();
    if noisy.is_empty() {
        return None;
    }
    let mut configs: Vec<(Op, u64)> = quiet
        .blocks
        .iter()
        .filter(|b| b.delay_s == 0.0)
        .map(|b| (b.op, b.bytes))
        .collect();
    configs.sort_by_key(|&(op, b)| (op_order(op), b));
    configs.dedup();
    let procs = sorted_distinct(quiet.blocks.iter().map(|b| b.nprocs));
    let panels: Vec<PanelSpec> = configs
        .iter()
        .map(|&(op, bytes)| {
            let base = undelayed_medians(quiet, op, bytes);
            let mut series: Vec<SeriesSpec> = noisy
                .iter()
                .enumerate()
                .map(|(i, (l, source))| SeriesSpec {
                    name: source.to_string(),
                    style: source_style(i),
                    points: undelayed_medians(l, op, bytes)
                        .into_iter()
                        .map(|(p, t)| {
                            let t0 = base.iter().find(|b| b.0 == p).and_then(|b| b.1);
                            (p, t.zip(t0).map(|(t, t0)| t / t0))
                        })
                        .collect(),
                    intervals: Vec::new(),
                    boxes: Vec::new(),
                })
                .collect();
            series.push(SeriesSpec {
                name: "no slowdown".into(),
                style: reference_style(),
                points: base.iter().map(|&(p, _)| (p, Some(1.0))).collect(),
                intervals: Vec::new(),
                boxes: Vec::new(),
            });
            PanelSpec {
                title: if op.has_payload() {
                    format!("{op}, {}", pretty_bytes(bytes))
                } else {
                    op.name().to_string()
                },
                y: time_axis(series.iter().flat_map(|s| s.values().map(|(_, v)| v))),
                series,
            }
        })
        .collect();
    if panels.is_empty() {
        return None;
    }
    let mut legend: Vec<LegendEntry> = noisy
        .iter()
        .enumerate()
        .map(|(i, (_, source))| LegendEntry {
            label: source.to_string(),
            style: source_style(i),
        })
        .collect();
    legend.push(LegendEntry {
        label: "no slowdown (1)".into(),
        style: reference_style(),
    });
    Some(FigureSpec {
        stem,
        title: "Noise amplification: slowdown of the undelayed call vs P, per noise source".into(),
        subtitle: [
            "median t_global with noise / median t_global of the noiseless file, δ = 0",
            "one line per simulated file's noise source",
        ]
        .join(PART_SEP),
        x_label: "processes P".into(),
        y_label: "slowdown (×)".into(),
        procs,
        panels,
        legend,
        zero_line: false,
        dodge: false,
        x_format: Default::default(),
        hosts: data.hosts.clone(),
        warnings: Vec::new(),
    })
}

/// One colour per noise source, the launch figure's palette (one line per records file).
fn source_style(i: usize) -> SeriesStyle {
    super::launches::launch_style(i)
}

fn reference_style() -> SeriesStyle {
    SeriesStyle {
        reference: true,
        ..SeriesStyle::new(false, REFERENCE_COLOR)
    }
}

/// The `noise_slowdown_vs_p` figure, when simulated files with and without noise were given.
pub(super) fn drawables(data: &RunData, _: Stat) -> Vec<Drawable> {
    figure(data, "noise_slowdown_vs_p".into())
        .map(|f| data.grid(f))
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::{PlotRun, Selection};
    use crate::records::{testdata, Simulation};

    /// A simulated run of allreduce 8 B at P = 2 and 4 whose call takes `op_time_s`, with
    /// `noise` in its header.
    fn simulated(op_time_s: f64, noise: Option<&str>) -> PlotRun {
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for d in [0.0, 50e-6] {
                blocks.push(testdata::block(Op::Allreduce, 8, p, d, 9, op_time_s));
            }
        }
        let mut r = testdata::records(4, blocks);
        r.header.simulation = Some(Simulation {
            engine_option: "loggops".into(),
            noise: noise.map(str::to_string),
            ..Default::default()
        });
        PlotRun::of(&r)
    }

    #[test]
    fn a_line_per_noise_source_divided_by_the_noiseless_file() {
        let runs = vec![
            simulated(10e-6, None),
            simulated(20e-6, Some("periodic:1000Hz:25us")),
            simulated(40e-6, Some("periodic:10Hz:2.5ms")),
        ];
        let data = RunData::of_runs(runs, &Selection::default()).unwrap();
        let f = figure(&data, "s".into()).unwrap();
        assert_eq!(f.panels.len(), 1);
        let s = &f.panels[0].series;
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["periodic:1000Hz:25us", "periodic:10Hz:2.5ms", "no slowdown"]
        );
        // The slowdown is the ratio of the undelayed medians, at every P.
        for (i, want) in [(0, 2.0), (1, 4.0), (2, 1.0)] {
            let got: Vec<f64> = s[i].points.iter().map(|p| p.1.unwrap()).collect();
            assert_eq!(s[i].points.iter().map(|p| p.0).collect::<Vec<_>>(), [2, 4]);
            for g in got {
                assert!((g - want).abs() < 1e-9, "{}: {g} != {want}", s[i].name);
            }
        }
        // Without a noiseless file, or without a noisy one, there is nothing to divide.
        for runs in [
            vec![
                simulated(20e-6, Some("periodic:1000Hz:25us")),
                simulated(40e-6, Some("periodic:10Hz:2.5ms")),
            ],
            vec![simulated(10e-6, None), simulated(10e-6, None)],
        ] {
            let data = RunData::of_runs(runs, &Selection::default()).unwrap();
            assert!(figure(&data, "s".into()).is_none());
        }
    }
}
