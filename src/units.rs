//! Parsing of quantities with units: durations (`50us`, `1.5ms`) and sizes (`8`, `1KiB`).
//!
//! Durations use Go's `time.ParseDuration` grammar (units `ns`, `us`/`µs`, `ms`, `s`, `m`, `h`,
//! decimals allowed) through the `go-parse-duration` crate; sizes use the `bytesize` crate
//! (`8`, `128B`, `1KiB`, `1kB` = 1000 bytes). Values are returned in seconds (f64) and bytes (u64).

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
    // go-parse-duration panics on multi-byte characters, so the micro signs become `u` and any
    // other non-ASCII text is rejected before it reaches the crate.
    let t = t.replace(['\u{b5}', '\u{3bc}'], "u");
    if !t.is_ascii() {
        return Err(UnitError::BadDuration(text.to_string()));
    }
    let ns = go_parse_duration::parse_duration(&t)
        .map_err(|_| UnitError::BadDuration(text.to_string()))?;
    if ns < 0 {
        return Err(UnitError::Negative(text.to_string()));
    }
    Ok(ns as f64 * 1e-9)
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
    fn formatting_round_trips() {
        for s in ["50us", "1.5ms", "2s", "100ns"] {
            assert_eq!(format_duration(parse_duration_s(s).unwrap()), s);
        }
        assert_eq!(format_bytes(8), "8B");
        assert_eq!(format_bytes(1024), "1KiB");
        assert_eq!(format_bytes(1000), "1000B");
    }
}
