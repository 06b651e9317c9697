//! The value parsers of the command line: each turns one argument's text into its value,
//! or into the message clap prints after "invalid value".

use crate::delay::{parse_delay_list, DelayModel};
use crate::plan::Op;
use crate::records::Tag;
/// A duration with its unit (`50us`, `1.5ms`), in seconds.
pub(super) use crate::units::parse_duration_s;

/// `--delay`: delay models in order.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayList(pub Vec<DelayModel>);

/// `--delay` (and `plot --delay`): a list of delay models, or `none`.
pub(super) fn parse_delays(s: &str) -> Result<DelayList, String> {
    // `none`: the undelayed baseline alone, e.g. to study the start spread itself.
    if s.trim().eq_ignore_ascii_case("none") {
        return Ok(DelayList(Vec::new()));
    }
    parse_delay_list(s)
        .map(DelayList)
        .map_err(|e| e.to_string())
}

/// `--window` and `--late-tolerance`: automatic or a fixed duration in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WindowArg {
    Auto,
    Fixed(f64),
}

/// `--confidence`: a level strictly between 0 and 1.
pub(super) fn parse_level(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(l) if l > 0.0 && l < 1.0 => Ok(l),
        _ => Err(format!(
            "confidence level `{s}` must be a number between 0 and 1, e.g. 0.95"
        )),
    }
}

/// `--margin`: a share of δ in percent (`10%`, `2.5%`) or as a fraction (`0.1`), from 0 up to
/// below 100 %; returned as a fraction.
pub(super) fn parse_margin(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let value = match t.strip_suffix('%') {
        Some(pct) => pct.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match value {
        Ok(m) if (0.0..1.0).contains(&m) => Ok(m),
        _ => Err(format!(
            "margin `{s}`: give a share of the delay from 0 % up to below 100 %, e.g. 10% or 0.1 \
             (the default, {:.0}%, calls a row whose interval of the delay hidden lies inside \
             +-10 % `costs full delay`)",
            crate::analysis::DEFAULT_MARGIN * 100.0
        )),
    }
}

/// `--tag KEY=VALUE`.
pub(super) fn parse_tag(s: &str) -> Result<Tag, String> {
    s.parse()
        .map_err(|e: crate::records::provenance::TagError| e.to_string())
}

/// A kernel by name (`allreduce`, `ref:ring`).
pub(super) fn parse_op(s: &str) -> Result<Op, String> {
    s.parse()
        .map_err(|e: crate::plan::kernel::UnknownOp| e.to_string())
}

/// A duration above zero, in seconds (`--timeout`, `--duration`, ...).
pub(super) fn parse_positive_duration(s: &str) -> Result<f64, String> {
    match parse_duration_s(s) {
        Ok(t) if t > 0.0 && t.is_finite() => Ok(t),
        Ok(_) => Err(format!(
            "'{s}' must be a positive duration with a unit, e.g. 60s"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// `--window`, `--late-tolerance`, `--track-every`: `auto` or a duration.
pub(super) fn parse_window(s: &str) -> Result<WindowArg, String> {
    if s == "auto" {
        return Ok(WindowArg::Auto);
    }
    parse_duration_s(s)
        .map(WindowArg::Fixed)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn margins_in_percent_or_fraction() {
        assert_eq!(super::parse_margin("10%"), Ok(0.1));
        assert_eq!(super::parse_margin("2.5 %"), Ok(0.025));
        assert_eq!(super::parse_margin("0"), Ok(0.0));
        assert_eq!(super::parse_margin("0.2"), Ok(0.2));
        assert!(super::parse_margin("100%").is_err());
        assert!(super::parse_margin("-1%").is_err());
        assert!(super::parse_margin("ten").unwrap_err().contains("e.g. 10%"));
    }
}
