//! Parsing of quantities with units: durations (`50us`, `1.5ms`) and sizes (`8`, `1KiB`).
//!
//! Durations are read by the `humantime` crate (units `ns`, `us`/`µs`, `ms`, `s`, `m`, `h` and
//! their long names, decimals allowed, terms added up: `1ms500us`); sizes use the `bytesize` crate
//! (`8`, `128B`, `1KiB`, `1kB` = 1000 bytes). Values are returned in seconds (f64) and bytes (u64).
//!
//! Size lists ([`parse_size_list`]) also take ranges of powers of two as OSU and IMB users write
//! them: `8:1MiB` (OSU's `-m MIN:MAX`) or `8..1MiB`, each MIN, 2·MIN, 4·MIN, ... up to MAX.
//! A decimal unit (`1k`, `1MB`: 1000 and 10^6 bytes, bytesize's reading) is accepted but noted,
//! since benchmark users usually mean 1024 and 2^20 ([`SizeList::decimal_notes`]).

use thiserror::Error;

/// Why a quantity could not be parsed.
#[derive(Debug, Error, PartialEq)]
pub enum UnitError {
    /// A duration without a unit, such as `50`.
    #[error("duration '{0}' has no unit: write it with one, e.g. 50us, 1.5ms or 2s")]
    MissingUnit(String),
    /// A duration that starts with a minus sign.
    #[error("duration '{0}' is negative: delays and windows must be >= 0")]
    Negative(String),
    /// Anything else the duration grammar rejects.
    #[error("cannot read duration '{0}': expected a number and a unit (ns, us, ms, s), e.g. 50us")]
    BadDuration(String),
    /// A size the size grammar rejects.
    #[error(
        "cannot read size '{0}': expected bytes with an optional unit, e.g. 8, 128, 1KiB, 4MiB"
    )]
    BadSize(String),
    /// A range of sizes that gives no size or never ends.
    #[error("size range '{0}' {1}: write MIN:MAX or MIN..MAX with 1 <= MIN <= MAX, e.g. 8:1MiB")]
    BadRange(String, &'static str),
}

/// Parses a non-negative duration with a unit into seconds.
///
/// `0` alone is accepted (it needs no unit). Errors: [`UnitError::MissingUnit`],
/// [`UnitError::Negative`], [`UnitError::BadDuration`].
pub fn parse_duration_s(text: &str) -> Result<f64, UnitError> {
    let t = text.trim();
    if t == "0" {
        return Ok(0.0);
    }
    if t.starts_with('-') {
        return Err(UnitError::Negative(text.to_string()));
    }
    if !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '+')
    {
        return Err(UnitError::MissingUnit(text.to_string()));
    }
    // Both micro signs (U+00B5 on keyboards, Greek mu U+03BC from some editors) mean `us`;
    // humantime knows only the first.
    let t = t.replace(['\u{b5}', '\u{3bc}'], "u");
    humantime::parse_duration(&t)
        .map(|d| d.as_secs_f64())
        .map_err(|_| UnitError::BadDuration(text.to_string()))
}

/// Parses a size such as `8`, `1KiB` or `1kB` into bytes. Errors: [`UnitError::BadSize`].
pub fn parse_size_bytes(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    if t.starts_with('-') || t.is_empty() {
        return Err(UnitError::BadSize(text.to_string()));
    }
    t.parse::<bytesize::ByteSize>()
        .map(|b| b.as_u64())
        .map_err(|_| UnitError::BadSize(text.to_string()))
}

/// One size as a flag takes it (`--test-interval 2KiB`): bytes, and the warning for a decimal
/// unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Size {
    pub bytes: u64,
    /// As [`SizeList::decimal_notes`], for this one size.
    pub decimal_note: Option<String>,
}

impl std::str::FromStr for Size {
    type Err = UnitError;
    /// Errors: [`UnitError::BadSize`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Size {
            bytes: parse_size_bytes(s)?,
            decimal_note: decimal_note(s)?,
        })
    }
}

/// Message sizes as `--sizes` (`-m`) takes them: the bytes in the order written, and a note
/// for each term written with a decimal unit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SizeList {
    /// Sizes in bytes, in the order written; a range adds its sizes in ascending order.
    pub bytes: Vec<u64>,
    /// One warning per term with a decimal unit (`1k` = 1000 bytes), for the user to see
    /// before measuring; empty when every unit was binary or absent.
    pub decimal_notes: Vec<String>,
}

/// Parses a comma-separated list of sizes and ranges: `8,128,1KiB`, `8:1MiB` (OSU's
/// `-m MIN:MAX`) or `8..1MiB`. A range gives MIN, 2·MIN, 4·MIN, ... while at most MAX, as
/// OSU's loop over message sizes does (so `8:1MiB` is the 18 powers of two from 8 B to 1 MiB,
/// and a MAX that is no power-of-two multiple of MIN is not itself measured).
///
/// Errors: [`UnitError::BadSize`] for a term the size grammar rejects,
/// [`UnitError::BadRange`] for a range starting at 0 or ending below its start.
pub fn parse_size_list(text: &str) -> Result<SizeList, UnitError> {
    let mut list = SizeList::default();
    for term in text.split(',').map(str::trim) {
        let range = term
            .split_once("..")
            .or_else(|| term.split_once(':'))
            .map(|(a, b)| (a.trim(), b.trim()));
        let ends: Vec<&str> = match range {
            Some((lo, hi)) => vec![lo, hi],
            None => vec![term],
        };
        for end in &ends {
            if let Some(note) = decimal_note(end)? {
                list.decimal_notes.push(note);
            }
        }
        match range {
            None => list.bytes.push(parse_size_bytes(term)?),
            Some((lo, hi)) => {
                let (lo, hi) = (parse_size_bytes(lo)?, parse_size_bytes(hi)?);
                if lo == 0 {
                    return Err(UnitError::BadRange(term.into(), "starts at 0 bytes"));
                }
                if hi < lo {
                    return Err(UnitError::BadRange(term.into(), "ends below its start"));
                }
                let mut b = lo;
                while b <= hi {
                    list.bytes.push(b);
                    match b.checked_mul(2) {
                        Some(next) => b = next,
                        None => break,
                    }
                }
            }
        }
    }
    Ok(list)
}

impl std::str::FromStr for SizeList {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_size_list(s)
    }
}

/// The warning for a size written with a decimal unit (`1k`, `1MB`), or `None` for plain bytes
/// and binary units (`1KiB`). Errors: [`UnitError::BadSize`] when `term` is no size.
pub fn decimal_note(term: &str) -> Result<Option<String>, UnitError> {
    let bytes = parse_size_bytes(term)?;
    let t = term.trim();
    let unit = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace());
    let decimal = !unit.is_empty() && !unit.eq_ignore_ascii_case("b") && !unit.contains(['i', 'I']);
    if !decimal {
        return Ok(None);
    }
    let number = &t[..t.len() - unit.len()];
    let prefix = unit[..1].to_ascii_uppercase();
    Ok(Some(format!(
        "size '{t}' has a decimal unit and means {bytes} bytes; write {}{prefix}iB for the \
         power of two",
        number.trim()
    )))
}

/// Formats seconds with a human unit (`50us`, `1.5ms`, `2s`), the inverse of
/// [`parse_duration_s`] for display in tables, legends and file names.
pub fn format_duration(seconds: f64) -> String {
    let (value, unit) = if seconds == 0.0 {
        (0.0, "s")
    } else if seconds.abs() < 1e-6 {
        (seconds * 1e9, "ns")
    } else if seconds.abs() < 1e-3 {
        (seconds * 1e6, "us")
    } else if seconds.abs() < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    };
    let s = format!("{value:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{unit}")
}

/// Formats bytes with a binary unit when exact (`8B`, `1KiB`), for legends and panel titles.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, factor) in UNITS {
        if bytes >= factor && bytes % factor == 0 {
            return format!("{}{unit}", bytes / factor);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_with_units() {
        assert!((parse_duration_s("50us").unwrap() - 50e-6).abs() < 1e-15);
        assert!((parse_duration_s("50µs").unwrap() - 50e-6).abs() < 1e-15);
        assert!((parse_duration_s("1.5ms").unwrap() - 1.5e-3).abs() < 1e-15);
        assert!((parse_duration_s("2s").unwrap() - 2.0).abs() < 1e-12);
        assert!((parse_duration_s("100ns").unwrap() - 100e-9).abs() < 1e-18);
        assert!((parse_duration_s("50\u{3bc}s").unwrap() - 50e-6).abs() < 1e-15);
        assert!((parse_duration_s("1ms500us").unwrap() - 1.5e-3).abs() < 1e-15);
        assert!((parse_duration_s("2m").unwrap() - 120.0).abs() < 1e-12);
        assert!((parse_duration_s("1h").unwrap() - 3600.0).abs() < 1e-9);
        assert_eq!(parse_duration_s("0s").unwrap(), 0.0);
        assert_eq!(parse_duration_s("0").unwrap(), 0.0);
    }

    #[test]
    fn durations_rejected() {
        assert_eq!(
            parse_duration_s("50"),
            Err(UnitError::MissingUnit("50".into()))
        );
        assert_eq!(
            parse_duration_s("1.5"),
            Err(UnitError::MissingUnit("1.5".into()))
        );
        assert_eq!(
            parse_duration_s("-50us"),
            Err(UnitError::Negative("-50us".into()))
        );
        assert!(matches!(
            parse_duration_s("50 parsecs"),
            Err(UnitError::BadDuration(_))
        ));
        assert!(matches!(
            parse_duration_s(""),
            Err(UnitError::BadDuration(_))
        ));
        assert!(matches!(
            parse_duration_s("5\u{e9}s"),
            Err(UnitError::BadDuration(_))
        ));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size_bytes("8").unwrap(), 8);
        assert_eq!(parse_size_bytes("128B").unwrap(), 128);
        assert_eq!(parse_size_bytes("1KiB").unwrap(), 1024);
        assert_eq!(parse_size_bytes("4MiB").unwrap(), 4 << 20);
        assert!(parse_size_bytes("-8").is_err());
        assert!(parse_size_bytes("eight").is_err());
    }

    #[test]
    fn size_ranges_are_powers_of_two_as_osu_writes_them() {
        let pow2 = |lo: u32, hi: u32| (lo..=hi).map(|k| 1u64 << k).collect::<Vec<_>>();
        assert_eq!(parse_size_list("8:1MiB").unwrap().bytes, pow2(3, 20));
        assert_eq!(parse_size_list("8..1MiB").unwrap().bytes, pow2(3, 20));
        assert_eq!(parse_size_list("8..1MiB").unwrap().bytes.len(), 18);
        // Doubling from MIN, as OSU's loop does; MAX itself only when reached.
        assert_eq!(parse_size_list("24:100").unwrap().bytes, vec![24, 48, 96]);
        assert_eq!(parse_size_list("64:64").unwrap().bytes, vec![64]);
        // Lists and ranges mix, in the order written.
        assert_eq!(
            parse_size_list("4, 8..32,1KiB").unwrap().bytes,
            vec![4, 8, 16, 32, 1024]
        );
        assert_eq!(
            parse_size_list("8,128,1024").unwrap().bytes,
            vec![8, 128, 1024]
        );
        assert!(matches!(
            parse_size_list("0:8"),
            Err(UnitError::BadRange(_, _))
        ));
        assert!(matches!(
            parse_size_list("1MiB:8"),
            Err(UnitError::BadRange(_, _))
        ));
        assert!(matches!(
            parse_size_list("8:lots"),
            Err(UnitError::BadSize(_))
        ));
        assert!(parse_size_list("8,,16").is_err());
    }

    #[test]
    fn decimal_units_are_noted_binary_ones_are_not() {
        let l = parse_size_list("8,1KiB,4MiB,128B").unwrap();
        assert!(l.decimal_notes.is_empty(), "{:?}", l.decimal_notes);
        for (text, bytes) in [("1k", 1000), ("1MB", 1_000_000), ("2kB", 2000)] {
            let l = parse_size_list(text).unwrap();
            assert_eq!(l.bytes, vec![bytes]);
            assert_eq!(l.decimal_notes.len(), 1, "{text}");
            let note = &l.decimal_notes[0];
            assert!(note.contains(&format!("{bytes} bytes")), "{note}");
            assert!(note.contains("iB"), "{note}");
        }
        // Both ends of a range are looked at.
        let l = parse_size_list("8:1M").unwrap();
        assert_eq!(l.decimal_notes.len(), 1);
        assert!(l.decimal_notes[0].contains("1MiB"), "{:?}", l.decimal_notes);
    }

    #[test]
    fn formatting_round_trips() {
        for s in ["50us", "1.5ms", "2s", "100ns"] {
            assert_eq!(format_duration(parse_duration_s(s).unwrap()), s);
        }
        assert_eq!(format_bytes(8), "8B");
        assert_eq!(format_bytes(1024), "1KiB");
        assert_eq!(format_bytes(1000), "1000B");
    }
}
