//! How a capture is named on its figures (`arrival_*` and `arrival_causes`): the capture in
//! one line, and a call site in a few words.

use crate::capture::Matched;

/// Longest site name on a figure's axis, characters.
const MAX_NAME: usize = 28;

/// The capture in one line: ranks, calls, wall time.
pub fn subtitle(m: &Matched) -> String {
    format!(
        "{} ranks, {} collective calls matched, wall time {:.3} s{}",
        m.world_size,
        m.instances.len(),
        m.wall_s,
        if m.incomplete_calls > 0 {
            format!(", {} calls left out (a member missing)", m.incomplete_calls)
        } else {
            String::new()
        }
    )
}

/// A site's name for a figure: its symbol and offset when it has one (`step+0x4` of
/// `step+0x4 (app+0x10)`), else its key, cut to [`MAX_NAME`] characters keeping the end
/// (the offset).
pub fn short_name(label: &str) -> String {
    let label = label.split_once(" (").map_or(label, |(symbol, _)| symbol);
    let n = label.chars().count();
    if n <= MAX_NAME {
        return label.to_string();
    }
    let tail: String = label.chars().skip(n - (MAX_NAME - 1)).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_symbol_keeps_its_end() {
        assert_eq!(
            short_name("_ZN9LAMMPS_NS5Timer12barrier_stopEv+0x2b (liblammps.so.0+0x595d1b)"),
            "…5Timer12barrier_stopEv+0x2b"
        );
        assert_eq!(short_name("step+0x4 (app+0x10)"), "step+0x4");
    }
}
