//! `arrival_causes`, a figure of `delaybench arrivals`: who made everyone wait. The
//! (rank, region)s that caused the most waiting (docs/capture.md, "Who made everyone
//! wait"), one horizontal bar each, split into the direct cost (waiting at the calls the
//! rank arrived late at) and the propagated cost (waiting passed on through the ranks it
//! held), after Böhme, Geimer, Wolf, Arnold, Wylie and Schulz (2010); the headline is the
//! subtitle, and the unexplained remainder is named beside it.

use super::capture_names::{short_name, subtitle};
use super::clock_error::COLORS;
use super::layout::PART_SEP;
use super::rank_heatmaps::swatch;
use super::spec::LegendEntry;
use super::xy::{Bar, XyFigure, XyPanel};
use crate::analysis::causes::{CauseRow, CausesReport};
use crate::capture::Matched;

/// Causes drawn as bars.
const MAX_CAUSES: usize = 12;
/// Colours of the two costs.
const DIRECT: (u8, u8, u8) = COLORS[0];
const PROPAGATED: (u8, u8, u8) = COLORS[1];

/// A site's name for a bar: its file and line when the capture's debug information gave
/// them (`causes.c:64` of `main (causes.c:64)`), else its symbol and offset
/// ([`short_name`]).
fn site_name(label: &str) -> String {
    let line = label
        .strip_suffix(')')
        .and_then(|l| l.rsplit_once(" ("))
        .map(|(_, inner)| inner)
        .filter(|inner| inner.contains(':') && !inner.contains("+0x"));
    line.map_or_else(|| short_name(label), str::to_owned)
}

/// A region's name for a figure: each of its two sites shortened (`a+0x1 → b+0x2`).
fn region_name(label: &str) -> String {
    match label.split_once(" → ") {
        Some((from, to)) => format!("{} → {}", site_name(from), site_name(to)),
        None => match label.split_once(' ') {
            // `inside SITE`: the time in a call itself.
            Some((inside, site)) => format!("{inside} {}", site_name(site)),
            None => site_name(label),
        },
    }
}

/// The figure's file stem.
pub(super) const STEM: &str = "arrival_causes";

/// The causes `arrival_causes` draws: the largest [`MAX_CAUSES`] with a cost, in the
/// report's order.
pub(super) fn drawn_causes(c: &CausesReport) -> Vec<&CauseRow> {
    c.causes
        .iter()
        .filter(|k| k.direct_s + k.propagated_s > 0.0)
        .take(MAX_CAUSES)
        .collect()
}

/// `arrival_causes` (module docs); None when no cause was named.
pub fn causes_figure(m: &Matched, c: &CausesReport) -> Option<XyFigure> {
    let rows = drawn_causes(c);
    if rows.is_empty() {
        return None;
    }
    let n = rows.len();
    let mut bars = Vec::with_capacity(2 * n);
    // The largest cause at the top: row 0 is the bottom of the axis.
    for (i, k) in rows.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        let (d, p) = (k.direct_s * 1e3, k.propagated_s * 1e3);
        for (x0, x1, color) in [(0.0, d, DIRECT), (d, d + p, PROPAGATED)] {
            if x1 > x0 {
                bars.push(Bar {
                    y,
                    x0,
                    x1,
                    color,
                    half_height: 0.35,
                });
            }
        }
    }
    let y_names = (0..n)
        .map(|row| {
            let k = rows[n - 1 - row];
            format!("rank {} {}", k.rank, region_name(&k.region_label))
        })
        .collect();
    let xhi = rows
        .iter()
        .map(|k| (k.direct_s + k.propagated_s) * 1e3)
        .fold(0.0, f64::max);
    let shown = if c.causes.len() > n {
        format!("{PART_SEP}the {n} largest of {} causes", c.causes.len())
    } else {
        String::new()
    };
    let headline = c.headline().unwrap_or_default();
    Some(XyFigure {
        stem: STEM.into(),
        title: "Who made everyone wait".into(),
        subtitle: format!(
            "{headline}{PART_SEP}{}{PART_SEP}waiting {} in all, {} unexplained (Böhme et al. \
             2010){shown}",
            subtitle(m),
            crate::units::format_duration(c.wait_total_s),
            crate::units::format_duration(c.unexplained_s),
        ),
        warnings: Vec::new(),
        panels: vec![XyPanel::ranked_bars(
            "cause: rank and region (from call site → to call site)".into(),
            "waiting caused (ms), summed over calls and ranks".into(),
            xhi,
            bars,
            y_names,
        )],
        legend: vec![
            LegendEntry {
                label: "direct (at the calls it was late for)".into(),
                style: swatch(DIRECT),
            },
            LegendEntry {
                label: "propagated (through the ranks it held)".into(),
                style: swatch(PROPAGATED),
            },
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::causes::CauseRow;

    fn row(rank: u32, direct_s: f64, propagated_s: f64) -> CauseRow {
        CauseRow {
            rank,
            region: rank as usize,
            region_label: format!("main+0x{rank} (app+0x1) → step+0x2 (app+0x2)"),
            delay_s: direct_s,
            direct_s,
            propagated_s,
            share: 0.0,
            calls: 3,
            via: if propagated_s > 0.0 {
                vec![(0, propagated_s)]
            } else {
                Vec::new()
            },
        }
    }

    fn report() -> CausesReport {
        CausesReport {
            wait_total_s: 0.1,
            attributed_s: 0.09,
            unexplained_s: 0.01,
            causes: vec![row(3, 0.06, 0.0), row(2, 0.01, 0.02)],
            regions: vec![],
            what_if: vec![],
            calls: vec![],
        }
    }

    #[test]
    fn the_top_cause_is_the_top_bar_split_into_its_costs() {
        let m = Matched {
            instances: vec![],
            incomplete_calls: 0,
            world_size: 4,
            wall_s: 1.0,
            min_rtt_s: 2e-6,
            unfinished_ranks: vec![],
            vectors: Default::default(),
        };
        let f = causes_figure(&m, &report()).unwrap();
        let p = &f.panels[0];
        // Rank 3: one direct bar; rank 2: direct then propagated, stacked.
        assert_eq!(p.bars.len(), 3);
        assert_eq!(p.y_names[1], "rank 3 main+0x3 → step+0x2");
        assert!(p
            .bars
            .iter()
            .any(|b| (b.x0 - 10.0).abs() < 1e-9 && (b.x1 - 30.0).abs() < 1e-9));
        assert_eq!(
            region_name("main (causes.c:64) → main (causes.c:62)"),
            "causes.c:64 → causes.c:62"
        );
        assert_eq!(
            region_name("inside main (causes.c:62)"),
            "inside causes.c:62"
        );
        assert_eq!(region_name("MPI_Init → app+0x10"), "MPI_Init → app+0x10");
        assert!(f.subtitle.starts_with("rank 3 in `"), "{}", f.subtitle);
        let dir = tempfile::tempdir().unwrap();
        let paths = super::super::render::write_all(
            &[super::super::render::Drawable::Custom(f)],
            dir.path(),
        )
        .unwrap();
        let svg = paths
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "svg"));
        let svg = std::fs::read_to_string(svg.unwrap()).unwrap();
        assert!(svg.contains("rank 3 main+0x3"), "the top cause is named");
        let none = CausesReport {
            causes: vec![],
            ..report()
        };
        assert!(causes_figure(&m, &none).is_none());
    }
}
