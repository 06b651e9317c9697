//! `analyze --algorithms`: which collective algorithm hides a late rank. Per (op, size, P,
//! delay) of a run that swept the library's algorithms (`--algorithms`, or launches of
//! `--algorithm-from-env` pooled), the fastest algorithm without delay (median t0), the
//! fastest with the late rank (median t_delta), the one with the highest delay overlap
//! benefit (Niethammer et al. 2016, eq. 5, from medians), and for each whether the winner's
//! bootstrap interval stays clear of every other algorithm's (the intervals of
//! `analyze`, per block).

use super::ConfigStats;
use crate::plan::Op;
use serde::Serialize;

/// One winner: the algorithm, its value, and whether its interval overlaps no other's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Winner {
    pub algorithm: String,
    /// The winning statistic (seconds for times, a fraction for the benefit).
    pub value: f64,
    /// The winner's interval lies clear of every other algorithm's (below it for times,
    /// above it for the benefit); false when any overlaps or an interval is missing.
    pub significant: bool,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_model: String,
    pub delay_s: f64,
    /// Algorithms compared (rows with the statistic).
    pub algorithms: u32,
    pub fastest_undelayed: Option<Winner>,
    pub fastest_delayed: Option<Winner>,
    pub highest_benefit: Option<Winner>,
}

/// The table of `rows` (an analysis): one row per delayed configuration measured with more
/// than one algorithm, in the order first seen.
pub fn algorithm_rows(rows: &[ConfigStats]) -> Vec<AlgorithmRow> {
    let mut out: Vec<AlgorithmRow> = Vec::new();
    let delayed: Vec<&ConfigStats> = rows
        .iter()
        .filter(|r| r.delay_s != 0.0 && !r.algorithm.is_empty())
        .collect();
    let mut seen: Vec<(Op, u64, u32, &str)> = Vec::new();
    for r in &delayed {
        let k = (r.op, r.bytes, r.nprocs, r.delay_model.as_str());
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        let group: Vec<&ConfigStats> = delayed
            .iter()
            .copied()
            .filter(|x| (x.op, x.bytes, x.nprocs, x.delay_model.as_str()) == k)
            .collect();
        if group.len() < 2 {
            continue;
        }
        out.push(AlgorithmRow {
            op: r.op,
            bytes: r.bytes,
            nprocs: r.nprocs,
            delay_model: r.delay_model.clone(),
            delay_s: r.delay_s,
            algorithms: group.len() as u32,
            fastest_undelayed: best(&group, Better::Lower, |x| {
                (x.t0_median_s, x.t0_median_ci_lo_s, x.t0_median_ci_hi_s)
            }),
            fastest_delayed: best(&group, Better::Lower, |x| {
                (
                    x.t_global_median_s,
                    x.t_global_median_ci_lo_s,
                    x.t_global_median_ci_hi_s,
                )
            }),
            highest_benefit: best(&group, Better::Higher, |x| {
                (
                    x.benefit_median,
                    x.benefit_median_ci_lo,
                    x.benefit_median_ci_hi,
                )
            }),
        });
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
}

type Stat = (Option<f64>, Option<f64>, Option<f64>);

/// The best of `group` by `stat` (value, interval low, high), and whether its interval is
/// clear of every other's.
fn best(
    group: &[&ConfigStats],
    better: Better,
    stat: impl Fn(&ConfigStats) -> Stat,
) -> Option<Winner> {
    let with: Vec<(&ConfigStats, Stat)> = group
        .iter()
        .map(|&x| (x, stat(x)))
        .filter(|(_, s)| s.0.is_some_and(f64::is_finite))
        .collect();
    let key = |s: &Stat| match better {
        Better::Lower => s.0.unwrap_or(f64::INFINITY),
        Better::Higher => -s.0.unwrap_or(f64::NEG_INFINITY),
    };
    let (win, ws) = with.iter().min_by(|a, b| key(&a.1).total_cmp(&key(&b.1)))?;
    let significant = with.len() > 1
        && with
            .iter()
            .filter(|(x, _)| !std::ptr::eq(*x, *win))
            .all(|(_, s)| match (better, ws.1, ws.2, s.1, s.2) {
                (Better::Lower, _, Some(hi), Some(lo), _) => hi < lo,
                (Better::Higher, Some(lo), _, _, Some(hi)) => lo > hi,
                _ => false,
            });
    Some(Winner {
        algorithm: win.algorithm.clone(),
        value: ws.0.unwrap_or(f64::NAN),
        significant,
    })
}

/// The table as text: times in microseconds, benefit in percent, `*` for a winner whose
/// interval is clear of every other algorithm's.
pub fn algorithm_table_text(rows: &[AlgorithmRow]) -> String {
    if rows.is_empty() {
        return "no configuration was measured with more than one algorithm (run with \
                --algorithms, or pool launches of --algorithm-from-env)\n"
            .into();
    }
    let show = |w: &Option<Winner>, scale: f64, unit: &str| match w {
        Some(w) => format!(
            "{} {:.1}{unit}{}",
            w.algorithm,
            w.value * scale,
            if w.significant { " *" } else { "" }
        ),
        None => "-".into(),
    };
    let mut lines = vec![vec![
        "op".to_string(),
        "size".into(),
        "P".into(),
        "delay".into(),
        "algorithms".into(),
        "fastest undelayed (t0)".into(),
        "fastest with late rank (t_delta)".into(),
        "highest benefit (b med)".into(),
    ]];
    for r in rows {
        lines.push(vec![
            r.op.name().into(),
            crate::units::format_bytes(r.bytes),
            r.nprocs.to_string(),
            r.delay_model.clone(),
            r.algorithms.to_string(),
            show(&r.fastest_undelayed, 1e6, " us"),
            show(&r.fastest_delayed, 1e6, " us"),
            show(&r.highest_benefit, 100.0, " %"),
        ]);
    }
    let widths: Vec<usize> = (0..lines[0].len())
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in &lines {
        let cells: Vec<String> = l
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.push_str(
        "median t_global; *: the winner's 95% bootstrap interval lies clear of every other \
         algorithm's (significant); without *: the intervals overlap.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(algorithm: &str, t0: f64, t: f64, ci: f64, b: f64, bci: f64) -> ConfigStats {
        ConfigStats {
            algorithm: algorithm.into(),
            delay_model: "50us".into(),
            t0_median_s: Some(t0),
            t0_median_ci_lo_s: Some(t0 - ci),
            t0_median_ci_hi_s: Some(t0 + ci),
            t_global_median_s: Some(t),
            t_global_median_ci_lo_s: Some(t - ci),
            t_global_median_ci_hi_s: Some(t + ci),
            benefit_median: Some(b),
            benefit_median_ci_lo: Some(b - bci),
            benefit_median_ci_hi: Some(b + bci),
            ..crate::plot::fixtures::stats(Op::Allreduce, 8, 4, 50e-6)
        }
    }

    #[test]
    fn winners_and_their_significance_come_from_the_intervals() {
        let rows = [
            row("default", 10e-6, 60e-6, 1e-6, 0.0, 0.01),
            row("ring", 20e-6, 52e-6, 1e-6, 0.3, 0.01),
            row("linear", 10.5e-6, 53e-6, 1e-6, 0.1, 0.01),
        ];
        let t = algorithm_rows(&rows);
        assert_eq!(t.len(), 1);
        let w = t[0].fastest_undelayed.as_ref().unwrap();
        // 10 ± 1 overlaps 10.5 ± 1: fastest, not significantly.
        assert_eq!((w.algorithm.as_str(), w.significant), ("default", false));
        let w = t[0].fastest_delayed.as_ref().unwrap();
        assert_eq!((w.algorithm.as_str(), w.significant), ("ring", false));
        let w = t[0].highest_benefit.as_ref().unwrap();
        assert_eq!((w.algorithm.as_str(), w.significant), ("ring", true));
        assert!(algorithm_table_text(&t).contains("ring 30.0 % *"));
    }

    #[test]
    fn a_configuration_of_one_algorithm_or_without_algorithms_has_no_row() {
        assert!(algorithm_rows(&[row("ring", 1.0, 2.0, 0.1, 0.0, 0.1)]).is_empty());
        assert!(algorithm_rows(&[
            row("", 1.0, 2.0, 0.1, 0.0, 0.1),
            row("", 1.0, 2.0, 0.1, 0.0, 0.1)
        ])
        .is_empty());
    }
}
