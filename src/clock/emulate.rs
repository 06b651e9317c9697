//! Emulated clocks: a known offset and rate per rank applied to every clock reading, so that
//! clock synchronisation — and drift-aware methods in particular — can be checked on one host
//! (`--emulate-clock SPEC`; see docs/clock-sync.md).
//!
//! # Reading
//!
//! A rank with offset o (seconds) and skew s (dimensionless; rate 1 + s) reads, for a reading b
//! of the underlying clock,
//!
//! ```text
//! reading(b) = b + s · (b − epoch) + o
//! ```
//!
//! so o is the rank's offset to the underlying clock at the underlying reading `epoch`
//! (seconds, default 0; a run can set it to a common recent reading with
//! [`EmulationSpec::with_epoch`] so that the offsets printed look like the spec) and the rank's
//! clock runs s faster. On one host every rank reads the same underlying clock, so rank 0's
//! emulated reading of an underlying instant *is* the true global time of that instant
//! ([`true_global`]), and a rank's true offset and a model's true error follow exactly
//! ([`true_offset`], [`true_error`]).
//!
//! # Grammar
//!
//! ```text
//! spec     := item ("," item)*
//! item     := "offset=" duration [rule] | "skew=" skew [rule] | "epoch=" duration
//!           | "list:" entry (";" entry)*
//! rule     := "*rank"            value × rank number
//!           | "*alt"             +value for even ranks, −value for odd ranks
//! entry    := duration "/" skew  one entry per rank, rank 0 first
//! duration := [+-] number ("s" | "ms" | "us" | "µs" | "ns")   ("0" needs no unit)
//! skew     := [+-] number ("ppm" | "ppb" | "")                  (no unit: a plain ratio)
//! ```
//!
//! A plain value (no rule) is the same for every rank; a missing `offset` or `skew` is 0.
//! `list:` cannot be combined with `offset=` or `skew=`; ranks beyond the list are an error
//! ([`EmulationSpec::check_ranks`]). Examples: `offset=1ms*rank,skew=20ppm*alt`;
//! `skew=-5ppm`; `list:0us/0ppm;1ms/+20ppm;2ms/-20ppm`.

use super::Clock;
use crate::clock::ClockModel;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Errors in a clock emulation spec.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EmulationError {
    #[error("empty clock emulation spec (example: offset=1ms*rank,skew=20ppm*alt)")]
    Empty,
    #[error(
        "unknown item `{0}` in clock emulation spec: expected offset=, skew=, epoch= or list:"
    )]
    UnknownItem(String),
    #[error("`{0}` is given twice in the clock emulation spec")]
    Duplicate(String),
    #[error("bad duration `{0}` in clock emulation spec: expected a number with unit s, ms, us, µs or ns, e.g. 1ms or -250us")]
    BadDuration(String),
    #[error("bad skew `{0}` in clock emulation spec: expected a number with unit ppm or ppb, or a plain ratio, e.g. 20ppm or -1e-5")]
    BadSkew(String),
    #[error("skew `{0}` in clock emulation spec is not between -1 and 1 (the clock would stop or run backwards)")]
    SkewOutOfRange(String),
    #[error("bad rank rule `*{0}` in clock emulation spec: expected *rank or *alt")]
    BadRule(String),
    #[error("`epoch=` takes a plain duration without *rank or *alt")]
    EpochRule,
    #[error("bad list entry `{0}` in clock emulation spec: expected OFFSET/SKEW, e.g. 1ms/+20ppm")]
    BadListEntry(String),
    #[error("`list:` cannot be combined with offset= or skew= in the clock emulation spec")]
    ListMixed,
    #[error("the clock emulation list gives {listed} rank(s) but {size} ranks run: give one OFFSET/SKEW entry per rank")]
    TooFewRanks { listed: usize, size: usize },
}

/// How one quantity (offset or skew) depends on the rank.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rule {
    /// The same for every rank.
    Same(f64),
    /// Value × rank.
    TimesRank(f64),
    /// +value for even ranks, −value for odd ranks.
    Alternating(f64),
}

impl Rule {
    fn value(self, rank: usize) -> f64 {
        match self {
            Rule::Same(v) => v,
            Rule::TimesRank(v) => v * rank as f64,
            Rule::Alternating(v) if rank % 2 == 0 => v,
            Rule::Alternating(v) => -v,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum PerRank {
    Rules {
        offset: Rule,
        skew: Rule,
    },
    /// (offset_s, skew) per rank.
    List(Vec<(f64, f64)>),
}

/// A parsed `--emulate-clock` spec: per rank an offset (seconds) and a skew (dimensionless),
/// see the [module documentation](self) for the grammar and the reading formula. Serialises
/// as its text, so it can be written into the records header and read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct EmulationSpec {
    per_rank: PerRank,
    /// The items other than `epoch=`, as given (whitespace removed).
    text: String,
    epoch_s: f64,
}

impl EmulationSpec {
    /// No emulation: every rank reads the underlying clock.
    pub fn none() -> Self {
        EmulationSpec {
            per_rank: PerRank::Rules {
                offset: Rule::Same(0.0),
                skew: Rule::Same(0.0),
            },
            text: "offset=0".into(),
            epoch_s: 0.0,
        }
    }

    /// (offset in seconds at the epoch, skew) of `rank`. Ranks beyond a `list:` get (0, 0);
    /// use [`check_ranks`](Self::check_ranks) to reject them.
    pub fn for_rank(&self, rank: usize) -> (f64, f64) {
        match &self.per_rank {
            PerRank::Rules { offset, skew } => (offset.value(rank), skew.value(rank)),
            PerRank::List(list) => list.get(rank).copied().unwrap_or((0.0, 0.0)),
        }
    }

    /// Errors when a `list:` spec has fewer entries than `size` ranks.
    pub fn check_ranks(&self, size: usize) -> Result<(), EmulationError> {
        match &self.per_rank {
            PerRank::List(list) if list.len() < size => Err(EmulationError::TooFewRanks {
                listed: list.len(),
                size,
            }),
            _ => Ok(()),
        }
    }

    /// Underlying-clock reading (seconds) at which the offsets apply.
    pub fn epoch_s(&self) -> f64 {
        self.epoch_s
    }

    /// The same spec with its offsets applying at underlying reading `epoch_s` (seconds);
    /// every rank of a run must use the same epoch.
    pub fn with_epoch(mut self, epoch_s: f64) -> Self {
        self.epoch_s = epoch_s;
        self
    }

    /// Emulated reading (seconds) of `rank` for underlying reading `base` (seconds):
    /// `base + skew · (base − epoch) + offset`.
    pub fn reading(&self, rank: usize, base: f64) -> f64 {
        let (offset, skew) = self.for_rank(rank);
        base + skew * (base - self.epoch_s) + offset
    }
}

/// True global time (seconds) of the underlying instant `base_reading`: rank 0's emulated
/// reading of it.
pub fn true_global(spec: &EmulationSpec, base_reading: f64) -> f64 {
    spec.reading(0, base_reading)
}

/// True offset (seconds) of `rank`'s emulated clock to rank 0's at the underlying instant
/// `base_reading`: rank's reading − rank 0's reading (the value a perfect model's
/// `offset_at` gives at that instant).
pub fn true_offset(spec: &EmulationSpec, rank: usize, base_reading: f64) -> f64 {
    spec.reading(rank, base_reading) - spec.reading(0, base_reading)
}

/// Error (seconds) of `rank`'s global clock under `model` at the underlying instant
/// `base_reading`: the global time the model gives minus the true global time (positive:
/// the rank's global clock is ahead).
pub fn true_error(spec: &EmulationSpec, rank: usize, model: &ClockModel, base_reading: f64) -> f64 {
    model.to_global(spec.reading(rank, base_reading)) - true_global(spec, base_reading)
}

impl fmt::Display for EmulationSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        if self.epoch_s != 0.0 {
            write!(f, ",epoch={}s", self.epoch_s)?;
        }
        Ok(())
    }
}

impl From<EmulationSpec> for String {
    fn from(s: EmulationSpec) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for EmulationSpec {
    type Error = EmulationError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl FromStr for EmulationSpec {
    type Err = EmulationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return Err(EmulationError::Empty);
        }
        let (mut offset, mut skew, mut epoch, mut list) = (None, None, None, None);
        let mut kept = Vec::new();
        for item in compact.split(',') {
            if item.is_empty() {
                return Err(EmulationError::Empty);
            }
            if let Some(entries) = item.strip_prefix("list:") {
                set_once(&mut list, "list:", parse_list(entries)?)?;
                kept.push(item);
                continue;
            }
            let Some((key, value)) = item.split_once('=') else {
                return Err(EmulationError::UnknownItem(item.into()));
            };
            let (value, rule) = match value.split_once('*') {
                Some((v, r)) => (v, Some(r)),
                None => (value, None),
            };
            match key {
                "offset" => set_once(&mut offset, key, with_rule(parse_duration(value)?, rule)?)?,
                "skew" => set_once(&mut skew, key, with_rule(parse_skew(value)?, rule)?)?,
                "epoch" => {
                    if rule.is_some() {
                        return Err(EmulationError::EpochRule);
                    }
                    set_once(&mut epoch, key, parse_duration(value)?)?;
                    continue;
                }
                _ => return Err(EmulationError::UnknownItem(item.into())),
            }
            kept.push(item);
        }
        let per_rank = match list {
            Some(_) if offset.is_some() || skew.is_some() => return Err(EmulationError::ListMixed),
            Some(list) => PerRank::List(list),
            None if offset.is_none() && skew.is_none() => return Err(EmulationError::Empty),
            None => PerRank::Rules {
                offset: offset.unwrap_or(Rule::Same(0.0)),
                skew: skew.unwrap_or(Rule::Same(0.0)),
            },
        };
        Ok(EmulationSpec {
            per_rank,
            text: kept.join(","),
            epoch_s: epoch.unwrap_or(0.0),
        })
    }
}

fn set_once<T>(slot: &mut Option<T>, key: &str, value: T) -> Result<(), EmulationError> {
    if slot.is_some() {
        return Err(EmulationError::Duplicate(key.trim_end_matches('=').into()));
    }
    *slot = Some(value);
    Ok(())
}

fn with_rule(v: f64, rule: Option<&str>) -> Result<Rule, EmulationError> {
    match rule {
        None => Ok(Rule::Same(v)),
        Some("rank") => Ok(Rule::TimesRank(v)),
        Some("alt") => Ok(Rule::Alternating(v)),
        Some(other) => Err(EmulationError::BadRule(other.into())),
    }
}

fn parse_list(entries: &str) -> Result<Vec<(f64, f64)>, EmulationError> {
    entries
        .split(';')
        .map(|e| {
            let (o, s) = e
                .split_once('/')
                .ok_or_else(|| EmulationError::BadListEntry(e.into()))?;
            Ok((parse_duration(o)?, parse_skew(s)?))
        })
        .collect()
}

/// Splits a known unit suffix off `text` and parses the number before it; each unit comes
/// with its divisor (1e3 for ms: dividing by a power of ten keeps 5ppm exactly 5e-6).
fn number_with_unit(text: &str, units: &[(&str, f64)]) -> Option<f64> {
    let (num, divisor) = units
        .iter()
        .find_map(|&(u, d)| text.strip_suffix(u).map(|n| (n, d)))
        .unwrap_or((text, f64::NAN));
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    if divisor.is_nan() {
        // No unit: only allowed where the caller says (0 for durations, ratios for skews).
        return Some(v).filter(|_| units.iter().any(|&(u, _)| u.is_empty()) || v == 0.0);
    }
    Some(v / divisor)
}

fn parse_duration(text: &str) -> Result<f64, EmulationError> {
    const UNITS: [(&str, f64); 5] = [
        ("ms", 1e3),
        ("us", 1e6),
        ("µs", 1e6),
        ("ns", 1e9),
        ("s", 1.0),
    ];
    number_with_unit(text, &UNITS).ok_or_else(|| EmulationError::BadDuration(text.into()))
}

fn parse_skew(text: &str) -> Result<f64, EmulationError> {
    const UNITS: [(&str, f64); 3] = [("ppm", 1e6), ("ppb", 1e9), ("", 1.0)];
    let v = number_with_unit(text, &UNITS).ok_or_else(|| EmulationError::BadSkew(text.into()))?;
    if v.abs() >= 1.0 {
        return Err(EmulationError::SkewOutOfRange(text.into()));
    }
    Ok(v)
}

/// A [`Clock`] with a known offset and rate over an underlying clock:
/// `now() = epoch + rate · (inner − epoch) + offset` (see the [module documentation](self)).
pub struct EmulatedClock {
    /// The underlying clock.
    pub inner: Box<dyn Clock>,
    /// Offset in seconds at underlying reading `epoch_s`.
    pub offset_s: f64,
    /// Rate relative to the underlying clock, 1 + skew (dimensionless).
    pub rate: f64,
    /// Underlying reading (seconds) at which `offset_s` applies.
    pub epoch_s: f64,
}

impl EmulatedClock {
    /// `rank`'s emulated clock of `spec` over `inner`.
    pub fn for_rank(inner: Box<dyn Clock>, spec: &EmulationSpec, rank: usize) -> Self {
        let (offset_s, skew) = spec.for_rank(rank);
        EmulatedClock {
            inner,
            offset_s,
            rate: 1.0 + skew,
            epoch_s: spec.epoch_s(),
        }
    }

    /// Emulated reading (seconds) for underlying reading `base` (seconds).
    pub fn reading_at(&self, base: f64) -> f64 {
        base + (self.rate - 1.0) * (base - self.epoch_s) + self.offset_s
    }
}

impl Clock for EmulatedClock {
    fn now(&self) -> f64 {
        self.reading_at(self.inner.now())
    }

    fn resolution_s(&self) -> f64 {
        self.inner.resolution_s()
    }

    /// The underlying source's name: the emulation itself is recorded as its spec.
    fn name(&self) -> &'static str {
        self.inner.name()
    }
}

impl fmt::Debug for EmulatedClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmulatedClock")
            .field("inner", &self.inner.name())
            .field("offset_s", &self.offset_s)
            .field("rate", &self.rate)
            .field("epoch_s", &self.epoch_s)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> EmulationSpec {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-15 + 1e-12 * a.abs().max(b.abs())
    }

    #[test]
    fn rules_per_rank() {
        let s = spec("offset=1ms*rank,skew=20ppm*alt");
        let expect = [(0.0, 20e-6), (1e-3, -20e-6), (2e-3, 20e-6), (3e-3, -20e-6)];
        for (r, (o, k)) in expect.into_iter().enumerate() {
            let (fo, fk) = s.for_rank(r);
            assert!(close(fo, o) && close(fk, k), "rank {r}: {fo} {fk}");
        }
        let same = spec("skew=-5ppm");
        assert_eq!(same.for_rank(3), (0.0, -5e-6));
        let ratio = spec("offset=-250us, skew=1e-5");
        assert!(close(ratio.for_rank(7).0, -250e-6) && close(ratio.for_rank(7).1, 1e-5));
        assert!(close(spec("offset=3ns").for_rank(0).0, 3e-9));
        assert!(close(spec("offset=2µs").for_rank(0).0, 2e-6));
        assert!(close(spec("offset=0.5s,skew=7ppb").for_rank(1).1, 7e-9));
    }

    #[test]
    fn explicit_list() {
        let s = spec("list:0us/0ppm;1ms/+20ppm;2ms/-20ppm");
        assert_eq!(s.for_rank(0), (0.0, 0.0));
        assert!(close(s.for_rank(1).0, 1e-3) && close(s.for_rank(1).1, 20e-6));
        assert!(close(s.for_rank(2).0, 2e-3) && close(s.for_rank(2).1, -20e-6));
        assert!(s.check_ranks(3).is_ok());
        assert_eq!(
            s.check_ranks(4),
            Err(EmulationError::TooFewRanks { listed: 3, size: 4 })
        );
    }

    #[test]
    fn errors_are_clear() {
        let cases: [(&str, EmulationError); 10] = [
            ("", EmulationError::Empty),
            ("offset=1ms,", EmulationError::Empty),
            ("ofset=1ms", EmulationError::UnknownItem("ofset=1ms".into())),
            ("offset=1", EmulationError::BadDuration("1".into())),
            (
                "offset=1parsec",
                EmulationError::BadDuration("1parsec".into()),
            ),
            ("skew=20pm", EmulationError::BadSkew("20pm".into())),
            ("skew=2", EmulationError::SkewOutOfRange("2".into())),
            ("offset=1ms*node", EmulationError::BadRule("node".into())),
            (
                "offset=1ms,offset=2ms",
                EmulationError::Duplicate("offset".into()),
            ),
            ("list:0s/0,skew=1ppm", EmulationError::ListMixed),
        ];
        for (text, err) in cases {
            assert_eq!(text.parse::<EmulationSpec>().unwrap_err(), err, "{text}");
        }
        let e = "list:1ms".parse::<EmulationSpec>().unwrap_err();
        assert_eq!(e, EmulationError::BadListEntry("1ms".into()));
        assert!(e.to_string().contains("OFFSET/SKEW"));
        assert!("offset=0".parse::<EmulationSpec>().is_ok());
    }

    #[test]
    fn text_and_serde_round_trip() {
        for text in [
            "offset=1ms*rank,skew=20ppm*alt",
            "list:0us/0ppm;1ms/+20ppm;2ms/-20ppm",
            "skew=-5ppm,epoch=12.5s",
        ] {
            let s = spec(text);
            assert_eq!(s.to_string(), text);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            let back: EmulationSpec = serde_json::from_str(&json).unwrap();
            assert_eq!(back, s);
        }
        let s = spec("offset = 1ms * rank").with_epoch(100.0);
        assert_eq!(s.to_string(), "offset=1ms*rank,epoch=100s");
        assert_eq!(spec(&s.to_string()), s);
        assert!(serde_json::from_str::<EmulationSpec>("\"skew=9\"").is_err());
    }

    #[test]
    fn readings_and_truth() {
        // Rank 1: offset 1 ms, skew −20 ppm; rank 0: skew +20 ppm; epoch 1000 s.
        let s = spec("offset=1ms*rank,skew=20ppm*alt").with_epoch(1000.0);
        let b = 1010.0;
        // Rank 0 reads 1010 + 20e-6 · 10 = 1010.0002; rank 1 reads 1010 − 0.0002 + 0.001.
        assert!(close(true_global(&s, b), 1010.0002));
        assert!(close(s.reading(1, b), 1010.0008));
        // True offset of rank 1: 1010.0008 − 1010.0002 = 0.6 ms.
        assert!((true_offset(&s, 1, b) - 0.6e-3).abs() < 1e-12);
        // A model with that exact offset at that instant has no error there.
        let m = ClockModel::offset_only(true_offset(&s, 1, b));
        assert!(true_error(&s, 1, &m, b).abs() < 1e-12);
        // ... and, with slope 0, error −40 ppm · 1 s one second later (rank 1 falls behind).
        assert!((true_error(&s, 1, &m, b + 1.0) + 40e-6).abs() < 1e-9);
        let c = EmulatedClock::for_rank(Box::new(super::super::MonotonicClock), &s, 1);
        assert!(close(c.reading_at(b), s.reading(1, b)));
        assert_eq!(c.name(), "monotonic");
    }
}
