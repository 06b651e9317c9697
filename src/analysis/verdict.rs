//! The verdict of a delayed configuration: did the operation hide the late arrival, cost the
//! full delay, or cost more? Decided on the interval of the share of δ hidden (from the
//! interval of the cost tδ − t0 over launches), with an equivalence margin.
//!
//! Without a margin, "hides" means only that the interval lies above 0. Five launches of 200
//! repetitions resolve shares of 1 % on a 50 µs delay, far finer than the machine repeats:
//! two studies of the main job, each of five launches, read "hides < 1 %" in one and "costs
//! full delay" in the other in 14 of 26 rows at P = 2, every row within ±4 % in both. The
//! margin m (`--margin`, 10 % of δ by default) turns the question into the one a user asks,
//! as equivalence testing does (Schuirmann 1987, "A comparison of the two one-sided tests
//! procedure and the power approach for assessing the equivalence of average
//! bioavailability", J. Pharmacokinet. Biopharm. 15(6); Lakens 2017, "Equivalence tests",
//! Soc. Psychol. Personal. Sci. 8(4)): an interval inside [−m, m] shows the operation
//! cost the full delay (hid less than m), one above m that it hid more than m, one below −m
//! that it cost more than m extra; an interval across a margin decides neither, and reads
//! `inconclusive`. A 95 % interval inside [−m, m] is the two one-sided tests at 2.5 % each.

use super::ConfigStats;

/// The default equivalence margin of the verdicts, a share of δ: 10 %. Two studies of the
/// main job on this project's 2-core machine placed every P = 2 row's interval within
/// [−4 %, +8 %]; 5 µs of a 50 µs delay is also about the launch-to-launch spread of an
/// undelayed 8 B collective's median there.
pub const DEFAULT_MARGIN: f64 = 0.10;

/// An interval of the share hidden wider than this (a fraction of δ) decides nothing: the
/// verdict says `inconclusive` rather than reading its point estimate.
pub const WIDE_INTERVAL: f64 = 0.5;

/// What a delayed configuration's interval says, at a margin ([`Verdict::of`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The interval lies above the margin: the operation hid this share of δ (the point).
    Hides(f64),
    /// The interval lies within the margin of 1: δ cost nothing.
    HidesAll,
    /// The interval lies within [−m, m]: the late arrival cost the whole delay.
    CostsFullDelay,
    /// The interval lies below −m: it cost this share of δ more than δ (the point, > 0).
    CostsExtra(f64),
    /// The interval lies above 1 + m: faster than without the delay.
    FasterThanT0,
    /// The interval crosses a margin or is wider than [`WIDE_INTERVAL`].
    Inconclusive,
    /// No interval: fewer valid repetitions than an interval needs (the smaller side).
    TooFew(u32),
    /// One launch's own interval of the cost hid more than m of δ and another's cost more
    /// than m extra ([`ConfigStats::launches_disagree`]).
    LaunchesDisagree,
}

impl Verdict {
    /// The verdict of row `r` at margin `margin` (a share of δ). `None` for a row with no
    /// single δ a late rank brought: a baseline, no baseline, overlap mode, sampled delays.
    pub fn of(r: &ConfigStats, margin: f64) -> Option<Verdict> {
        let (value, ci) = hidden_share(r)?;
        let Some((lo, hi)) = ci else {
            return Some(Verdict::TooFew(r.valid.min(r.valid0)));
        };
        // One launch hid part of the delay and another cost more than the delay, each by
        // its own interval: the answer depends on the launch, whatever the interval over
        // launches says.
        if r.launches_disagree == Some(true) {
            return Some(Verdict::LaunchesDisagree);
        }
        let m = margin;
        Some(if hi < -m {
            Verdict::CostsExtra(-value)
        } else if lo > 1.0 + m {
            Verdict::FasterThanT0
        } else if hi - lo > WIDE_INTERVAL {
            Verdict::Inconclusive
        } else if lo >= -m && hi <= m {
            Verdict::CostsFullDelay
        } else if lo >= 1.0 - m {
            Verdict::HidesAll
        } else if lo > m {
            Verdict::Hides(value)
        } else {
            Verdict::Inconclusive
        })
    }

    /// The verdict's category, without its figure: the `verdict` column of the exports.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Hides(_) => "hides",
            Verdict::HidesAll => "hides all",
            Verdict::CostsFullDelay => "costs full delay",
            Verdict::CostsExtra(_) => "costs extra",
            Verdict::FasterThanT0 => "faster than t0",
            Verdict::Inconclusive => "inconclusive",
            Verdict::TooFew(_) => "too few",
            Verdict::LaunchesDisagree => "launches disagree",
        }
    }
}

impl std::fmt::Display for Verdict {
    /// The table's words: the category with its figure (`hides 62 %`, `costs 4 % extra`,
    /// `too few (n=3)`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // A margin of 0 lets the smallest shares through; they read as under 1 %.
            Verdict::Hides(v) if *v < 0.005 => f.write_str("hides < 1 %"),
            Verdict::Hides(v) => write!(f, "hides {:.0} %", v * 100.0),
            Verdict::CostsExtra(v) if *v < 0.005 => f.write_str("costs < 1 % extra"),
            Verdict::CostsExtra(v) => write!(f, "costs {:.0} % extra", v * 100.0),
            Verdict::TooFew(n) => write!(f, "too few (n={n})"),
            other => f.write_str(other.word()),
        }
    }
}

/// The share of δ that was hidden, 1 − cost/δ = (t0 + δ − tδ) / δ, with its interval from
/// the cost's interval (the same resamples): `(value, Some((lo, hi)))` as fractions, `None`
/// for the interval where there is none. `None` for a baseline, without a baseline, and for
/// overlap mode and sampled delays, where δ is no single delay a late rank brought (their
/// `benefit_na`).
pub fn hidden_share(r: &ConfigStats) -> Option<(f64, Option<(f64, f64)>)> {
    if r.delay_s <= 0.0 || r.benefit_na.is_some() {
        return None;
    }
    let share = |cost: f64| 1.0 - cost / r.delay_s;
    let value = share(r.cost_median_s?);
    let ci = r
        .cost_median_ci_lo_s
        .zip(r.cost_median_ci_hi_s)
        // A larger cost is a smaller share: the bounds swap.
        .map(|(lo, hi)| (share(hi), share(lo)));
    Some((value, ci))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Configuration;

    /// A delayed row of δ = 50 µs whose cost interval is [`lo`, `hi`] µs, point between.
    fn row(lo: f64, hi: f64) -> ConfigStats {
        let a = crate::export::test_support::analysis();
        let mut r = a.rows.into_iter().find(|r| !r.is_baseline()).unwrap();
        r.delay_s = 50e-6;
        r.benefit_na = None;
        r.launches_disagree = None;
        (r.valid, r.valid0) = (100, 100);
        r.cost_median_s = Some((lo + hi) / 2.0 * 1e-6);
        r.cost_median_ci_lo_s = Some(lo * 1e-6);
        r.cost_median_ci_hi_s = Some(hi * 1e-6);
        r
    }

    #[test]
    fn the_margin_decides_between_full_delay_hides_and_inconclusive() {
        let say = |lo, hi, m| Verdict::of(&row(lo, hi), m).unwrap().to_string();
        // Hidden share [1 %, 3 %]: above 0, but within a 10 % margin.
        assert_eq!(say(48.5, 49.5, 0.10), "costs full delay");
        assert_eq!(say(48.5, 49.5, 0.0), "hides 2 %");
        // [12 %, 16 %]: beyond the margin.
        assert_eq!(say(42.0, 44.0, 0.10), "hides 14 %");
        // [6 %, 16 %]: across the margin.
        assert_eq!(say(42.0, 47.0, 0.10), "inconclusive");
        // Cost 12-14 % above δ.
        assert_eq!(say(56.0, 57.0, 0.10), "costs 13 % extra");
        assert_eq!(say(51.0, 52.0, 0.10), "costs full delay");
        // Hidden 96-100 %.
        assert_eq!(say(0.0, 2.0, 0.10), "hides all");
        assert_eq!(say(10.0, 40.0, 0.10), "inconclusive");
        assert_eq!(say(-10.0, -8.0, 0.10), "faster than t0");
    }

    #[test]
    fn no_interval_or_disagreeing_launches_override_the_interval() {
        let mut r = row(48.0, 49.0);
        r.cost_median_ci_lo_s = None;
        r.valid0 = 4;
        assert_eq!(Verdict::of(&r, 0.1), Some(Verdict::TooFew(4)));
        let mut r = row(48.0, 49.0);
        r.launches_disagree = Some(true);
        assert_eq!(Verdict::of(&r, 0.1).unwrap().word(), "launches disagree");
        let mut r = row(48.0, 49.0);
        r.delay_s = 0.0;
        assert_eq!(Verdict::of(&r, 0.1), None);
    }
}
