//! The LogGOPS parameters (Hoefler, Schneider and Lumsdaine, HPDC 2010): L, o, g, G, O and S.

use super::LoggopsError;
use crate::units::{parse_duration_s, parse_size_bytes};

/// The parameters of the LogGOPS model, times in nanoseconds.
///
/// - `l_ns` (L): the latency of the network, first byte sent to first byte received.
/// - `o_ns` (o): the CPU overhead of sending or receiving a message.
/// - `g_ns` (g): the gap between two messages on a NIC (the inverse of the message rate).
/// - `big_g_ns` (G): the gap per byte on a NIC, ns per byte (the inverse of the bandwidth).
/// - `big_o_ns` (O): the CPU overhead per byte, ns per byte.
/// - `s_bytes` (S): the eager limit; a message of more than S bytes uses the rendezvous
///   protocol (its send completes when the receive matches it).
///
/// The default is LogGOPSim's (Hoefler et al. 2010, its command line's defaults at
/// spcl/LogGOPSim 76451de): L = 2,500 ns, o = 1,500 ns, g = 1,000 ns, G = 6 ns/B, O = 0 and
/// S = 65,535 B, the values its documentation's reference results use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub l_ns: f64,
    pub o_ns: f64,
    pub g_ns: f64,
    pub big_g_ns: f64,
    pub big_o_ns: f64,
    pub s_bytes: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            l_ns: 2500.0,
            o_ns: 1500.0,
            g_ns: 1000.0,
            big_g_ns: 6.0,
            big_o_ns: 0.0,
            s_bytes: 65_535,
        }
    }
}

impl Params {
    /// The defaults with the terms of `spec` overriding them: comma-separated `NAME=VALUE`
    /// with NAME one of `L`, `o`, `g`, `G`, `O` (case-sensitive, as the model writes them)
    /// and `S`. L, o and g are durations with a unit (`2.5us`); G and O durations per byte
    /// (`6ns` or `6ns/B`); S a size (`64KiB`, `65535`). `0` needs no unit.
    ///
    /// Errors: [`LoggopsError::Params`] naming the term: an unknown name, a term without
    /// `=`, a value without a unit or one the grammar rejects.
    pub fn from_spec(spec: &str) -> Result<Params, LoggopsError> {
        let fail = |reason: String| LoggopsError::Params {
            spec: spec.to_string(),
            reason,
        };
        let mut p = Params::default();
        for term in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (name, value) = term
                .split_once('=')
                .ok_or_else(|| fail(format!("term '{term}' is not NAME=VALUE")))?;
            let (name, value) = (name.trim(), value.trim());
            let ns = |v: &str| {
                parse_duration_s(v)
                    .map(|s| s * 1e9)
                    .map_err(|e| fail(format!("{name}: {e}")))
            };
            match name {
                "L" => p.l_ns = ns(value)?,
                "o" => p.o_ns = ns(value)?,
                "g" => p.g_ns = ns(value)?,
                "G" => p.big_g_ns = per_byte_ns(value).map_err(|e| fail(format!("G: {e}")))?,
                "O" => p.big_o_ns = per_byte_ns(value).map_err(|e| fail(format!("O: {e}")))?,
                "S" => p.s_bytes = parse_size_bytes(value).map_err(|e| fail(format!("S: {e}")))?,
                other => {
                    return Err(fail(format!(
                        "unknown parameter '{other}': expected L, o, g, G, O or S"
                    )))
                }
            }
        }
        Ok(p)
    }

    /// The parameters as `from_spec` reads them, for the records header and messages.
    pub fn spec(&self) -> String {
        format!(
            "L={}ns,o={}ns,g={}ns,G={}ns/B,O={}ns/B,S={}",
            self.l_ns, self.o_ns, self.g_ns, self.big_g_ns, self.big_o_ns, self.s_bytes
        )
    }
}

/// A time per byte in ns: `6ns`, `0.1ns/B`, `100ps`, `0.01us`, or `0`. Fractions of a
/// nanosecond matter here (0.1 ns/B is 10 GB/s), which the duration grammar does not take.
fn per_byte_ns(text: &str) -> Result<f64, String> {
    let t = text.trim().trim_end_matches("/B");
    if t == "0" {
        return Ok(0.0);
    }
    let units = [("ps", 1e-3), ("ns", 1.0), ("us", 1e3), ("\u{b5}s", 1e3)];
    let (num, scale) = units
        .iter()
        .find_map(|(u, scale)| t.strip_suffix(u).map(|n| (n, *scale)))
        .ok_or_else(|| {
            format!("'{text}' has no unit: write a time per byte, e.g. 6ns or 0.1ns/B")
        })?;
    match num.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x * scale),
        _ => Err(format!(
            "cannot read '{text}' as a time per byte, e.g. 6ns or 0.1ns/B"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_overrides_the_defaults_with_units() {
        let p = Params::from_spec("L=3us, G=0.5ns/B,S=64KiB").unwrap();
        assert_eq!(p.l_ns, 3000.0);
        assert_eq!(p.big_g_ns, 0.5);
        assert_eq!(p.s_bytes, 65_536);
        assert_eq!(p.o_ns, Params::default().o_ns);
        assert_eq!(Params::from_spec(&p.spec()).unwrap(), p);
    }

    #[test]
    fn a_value_without_a_unit_or_an_unknown_name_is_refused_by_name() {
        let e = Params::from_spec("L=2500").unwrap_err().to_string();
        assert!(e.contains("L:") && e.contains("no unit"), "{e}");
        let e = Params::from_spec("x=1us").unwrap_err().to_string();
        assert!(e.contains("unknown parameter 'x'"), "{e}");
        assert!(Params::from_spec("o").is_err());
        let e = Params::from_spec("G=6").unwrap_err().to_string();
        assert!(e.contains("G:") && e.contains("no unit"), "{e}");
        assert_eq!(Params::from_spec("O=100ps").unwrap().big_o_ns, 0.1);
    }
}
