//! Pure geometry of the figures: the log2 axis over P, value ranges, tick labels, the panel
//! grid and the legend rows. No drawing here, so every rule can be unit-tested.

/// Width of one panel in pixels.
pub const PANEL_W: u32 = 600;
/// Height of one panel in pixels.
pub const PANEL_H: u32 = 400;
/// Panels per row at most; more would make each panel too small to read when printed.
pub const MAX_COLS: usize = 3;
/// Space above the title and below the subtitle, pixels.
pub const HEADER_PAD: u32 = 12;
/// Height of one line of the figure title, pixels.
pub const TITLE_LINE_H: u32 = 34;
/// Height of one line of the subtitle, pixels.
pub const SUBTITLE_LINE_H: u32 = 20;
/// Height of one row of the figure legend, pixels.
pub const LEGEND_ROW_H: u32 = 30;
/// Padding above and below the legend rows, pixels.
pub const LEGEND_PAD: u32 = 12;
/// Length of the line sample drawn in front of each legend label, pixels.
pub const LEGEND_SAMPLE_W: u32 = 44;
/// Space between the sample and its label, and between entries, pixels.
pub const LEGEND_GAP: u32 = 10;
/// Space after one legend entry before the next, pixels.
pub const LEGEND_ENTRY_GAP: u32 = 34;

/// Rows and columns of the panel grid for `n` panels: up to [`MAX_COLS`] per row.
pub fn grid(n: usize) -> (usize, usize) {
    if n == 0 {
        return (0, 0);
    }
    let cols = n.min(MAX_COLS);
    (n.div_ceil(cols), cols)
}

/// The x axis of every panel: log2(P) on a linear scale, so doubling P is one step.
#[derive(Debug, Clone, PartialEq)]
pub struct Log2Axis {
    /// Left end of the axis, log2 units.
    pub lo: f64,
    /// Right end of the axis, log2 units.
    pub hi: f64,
    /// P values that get a tick and a grid line.
    pub ticks: Vec<u32>,
}

impl Log2Axis {
    /// Axis over the P values `procs` (any order, duplicates allowed), with labelled ticks at
    /// least `1 / max_ticks` of the axis length apart. `None` when `procs` is empty.
    ///
    /// The ends are padded so the first and last markers are not cut by the frame; a single P
    /// gets one doubling of room on each side so its markers still sit in the middle.
    pub fn new(procs: &[u32], max_ticks: usize) -> Option<Log2Axis> {
        let mut ps: Vec<u32> = procs.iter().copied().filter(|&p| p > 0).collect();
        ps.sort_unstable();
        ps.dedup();
        let (first, last) = (*ps.first()?, *ps.last()?);
        let (a, b) = (log2_x(first), log2_x(last));
        let pad = if b > a {
            ((b - a) * 0.06).max(0.3)
        } else {
            1.0
        };
        let (lo, hi) = (a - pad, b + pad);
        Some(Log2Axis {
            lo,
            hi,
            ticks: thin_ticks(&ps, (hi - lo) / max_ticks.max(1) as f64),
        })
    }
}

/// Position of P on a [`Log2Axis`].
pub fn log2_x(p: u32) -> f64 {
    f64::from(p).log2()
}

/// Label of the tick at P = `p` (plotters hands axis values over as f64).
pub fn p_label(p: f64) -> String {
    format!("{}", p.round() as u64)
}

/// Keeps those of the sorted, distinct P values whose labels will not collide: a P closer than
/// `min_gap` (log2 units) to the previously kept one is dropped. The smallest and largest P are
/// always kept, since they tell the reader the range; a P too close to the largest gives way.
pub fn thin_ticks(sorted: &[u32], min_gap: f64) -> Vec<u32> {
    let Some((&last, inner)) = sorted.split_last() else {
        return Vec::new();
    };
    let Some((&first, inner)) = inner.split_first() else {
        return vec![last];
    };
    let mut kept = vec![first];
    for &p in inner {
        let prev = log2_x(*kept.last().expect("starts non-empty"));
        if log2_x(p) - prev >= min_gap && log2_x(last) - log2_x(p) >= min_gap {
            kept.push(p);
        }
    }
    kept.push(last);
    kept
}

/// Smallest span, in percentage points, of a benefit axis: without it a run whose benefits are
/// all within ±0.1 % would fill the panel with noise and look dramatic.
pub const MIN_BENEFIT_SPAN: f64 = 10.0;

/// Y range for benefits in percent: always contains 0 (the "delay just adds" line), spans at
/// least [`MIN_BENEFIT_SPAN`], and leaves 8 % headroom on both sides for the markers.
pub fn benefit_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let pad = (hi - lo) * 0.08;
    let (mut lo, mut hi) = (lo - pad, hi + pad);
    let short = MIN_BENEFIT_SPAN - (hi - lo);
    if short > 0.0 {
        // Grow away from zero on the side(s) that hold data, so 0 stays near the data.
        if lo >= 0.0 {
            hi += short;
        } else if hi <= 0.0 {
            lo -= short;
        } else {
            lo -= short / 2.0;
            hi += short / 2.0;
        }
    }
    (lo, hi)
}

/// Y range for times: from 0 (so the reader sees how much of t_global δ accounts for) to 12 %
/// above the largest value; `(0, 1)` when there is nothing to draw.
pub fn time_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let hi = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    if hi > 0.0 {
        (0.0, hi * 1.12)
    } else {
        (0.0, 1.0)
    }
}

/// Values spanning more than this factor get a log10 time axis: on a linear axis everything
/// but the largest P would be squashed onto zero (alltoall grows with P; the paper switches to
/// log axes for it, Niethammer et al. 2016, Figures 11, 13, 15).
pub const LOG_Y_RATIO: f64 = 100.0;

/// Time axis for `values`: linear from 0 (see [`time_range`]) unless the positive values span
/// more than [`LOG_Y_RATIO`], then log10 with a quarter decade of room at both ends.
pub fn time_axis(values: impl IntoIterator<Item = f64>) -> YAxis {
    let vals: Vec<f64> = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let (min, max) = vals
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    if max > 0.0 && max / min > LOG_Y_RATIO {
        let room = 10f64.powf(0.25);
        YAxis {
            lo: min / room,
            hi: max * room,
            log: true,
        }
    } else {
        let (lo, hi) = time_range(vals);
        YAxis { lo, hi, log: false }
    }
}

/// A y axis: its ends in the figure's unit and whether it is log10.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YAxis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
}

impl YAxis {
    /// A linear axis from `lo` to `hi`.
    pub fn linear((lo, hi): (f64, f64)) -> YAxis {
        YAxis { lo, hi, log: false }
    }

    /// Labelled tick values: about 6 "nice" steps (1, 2, 2.5, 5 × 10^k) on a linear axis; on a
    /// log axis the powers of ten, with 2× and 5× added when fewer than 4 powers of ten show.
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            let mut ticks = self.log_values(&[1.0]);
            if ticks.len() < 4 {
                ticks = self.log_values(&[1.0, 2.0, 5.0]);
            }
            ticks
        } else {
            linear_ticks(self.lo, self.hi, 6)
        }
    }

    /// Unlabelled grid values: on a log axis the 1..9 × 10^k not labelled, so the reader can
    /// see the scale is logarithmic; none on a linear axis.
    pub fn minor_ticks(&self) -> Vec<f64> {
        if !self.log {
            return Vec::new();
        }
        let labelled = self.ticks();
        let all: Vec<f64> = (1..=9).map(f64::from).collect();
        self.log_values(&all)
            .into_iter()
            .filter(|v| !labelled.iter().any(|t| (t - v).abs() <= 1e-9 * v))
            .collect()
    }

    /// `m × 10^k` for the mantissas `ms` inside the axis, ascending.
    fn log_values(&self, ms: &[f64]) -> Vec<f64> {
        let (k0, k1) = (
            self.lo.log10().floor() as i32,
            self.hi.log10().ceil() as i32,
        );
        let mut out = Vec::new();
        for k in k0..=k1 {
            for &m in ms {
                let v = m * 10f64.powi(k);
                if v >= self.lo * (1.0 - 1e-12) && v <= self.hi * (1.0 + 1e-12) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The label of tick `value`.
    pub fn label(&self, value: f64) -> String {
        if self.log {
            // Log ticks are m × 10^k: as many decimals as k needs.
            let decimals = (-value.log10().floor()).clamp(0.0, 9.0) as usize;
            format!("{value:.decimals$}")
        } else {
            y_tick_label(value, self.hi - self.lo)
        }
    }
}

/// Ticks at multiples of a nice step (1, 2, 2.5 or 5 × 10^k) giving about `target` intervals
/// between `lo` and `hi`.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return vec![lo];
    }
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    // Multiplying the index, not adding steps, keeps 0.1 + 0.2 noise out of the labels.
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Formats a y tick for an axis spanning `span` with about 6 ticks: one decimal more than the
/// tick step's magnitude needs (plotters may step by 2.5 or 0.25), trailing zeros trimmed, so
/// labels read `−20`, `2.5`, `0.25` (with a real minus sign, U+2212).
pub fn y_tick_label(value: f64, span: f64) -> String {
    let step = span / 6.0;
    let decimals = if step > 0.0 && step.is_finite() {
        ((-step.log10()).ceil() + 1.0).clamp(0.0, 6.0) as usize
    } else {
        0
    };
    let mut s = format!("{value:.decimals$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    // "-0" reads like a different number than "0".
    if s == "-0" {
        return "0".to_string();
    }
    // A typographic minus: as wide as a plus and easier to see than a hyphen.
    s.replacen('-', "\u{2212}", 1)
}

/// Height in pixels of the header band holding the title and subtitle lines.
pub fn header_height(title_lines: usize, subtitle_lines: usize) -> u32 {
    2 * HEADER_PAD + title_lines as u32 * TITLE_LINE_H + subtitle_lines as u32 * SUBTITLE_LINE_H
}

/// Separator between the parts of a subtitle; [`wrap_text`] prefers to break lines there.
pub const PART_SEP: &str = "   ·   ";

/// Breaks `text` into lines no wider than `max_w` pixels as measured by `width_of`, preferring
/// to break between parts separated by [`PART_SEP`] (the separator then disappears), then
/// before a part's last parenthetical, and at any space only when neither is enough.
pub fn wrap_text(text: &str, max_w: u32, width_of: impl Fn(&str) -> u32) -> Vec<String> {
    if width_of(text) <= max_w {
        return vec![text.to_string()];
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for part in text.split(PART_SEP) {
        let candidate = if line.is_empty() {
            part.to_string()
        } else {
            format!("{line}{PART_SEP}{part}")
        };
        if width_of(&candidate) <= max_w {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if width_of(part) <= max_w {
            line = part.to_string();
            continue;
        }
        // A closing parenthetical, like the statistic in a title, reads best on its own line.
        let split = part
            .rfind(" (")
            .map(|i| (&part[..i], &part[i + 1..]))
            .filter(|(a, b)| width_of(a) <= max_w && width_of(b) <= max_w);
        match split {
            Some((a, b)) => {
                lines.push(a.to_string());
                line = b.to_string();
            }
            None => lines.extend(wrap_words(part, max_w, &width_of)),
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Breaks `text` at spaces into lines no wider than `max_w` pixels as measured by `width_of`.
/// Text that fits stays one line, untouched; a single word wider than `max_w` gets a line of
/// its own rather than being cut.
pub fn wrap_words(text: &str, max_w: u32, width_of: impl Fn(&str) -> u32) -> Vec<String> {
    if width_of(text) <= max_w {
        return vec![text.to_string()];
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if line.is_empty() || width_of(&candidate) <= max_w {
            line = candidate;
        } else {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Splits legend entries of the given pixel widths into rows that fit `available` pixels.
/// Every row holds at least one entry, so a too-wide label overflows rather than vanishing.
pub fn legend_rows(widths: &[u32], available: u32) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0u32;
    for (i, &w) in widths.iter().enumerate() {
        let need = if used == 0 { w } else { LEGEND_ENTRY_GAP + w };
        match rows.last_mut() {
            Some(row) if used + need <= available => {
                row.push(i);
                used += need;
            }
            _ => {
                rows.push(vec![i]);
                used = w;
            }
        }
    }
    rows
}

/// Pixel width of one legend entry whose label is `text_w` pixels wide.
pub fn legend_entry_width(text_w: u32) -> u32 {
    LEGEND_SAMPLE_W + LEGEND_GAP + text_w
}

/// Height of the caption area under the legend holding `lines` lines of warnings (none
/// without warnings).
pub fn caption_height(lines: usize) -> u32 {
    if lines == 0 {
        0
    } else {
        2 * HEADER_PAD + lines as u32 * SUBTITLE_LINE_H
    }
}

/// Height in pixels of a legend with `rows` rows (0 rows: no legend band).
pub fn legend_height(rows: usize) -> u32 {
    if rows == 0 {
        0
    } else {
        2 * LEGEND_PAD + rows as u32 * LEGEND_ROW_H
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_at_most_three_columns() {
        assert_eq!(grid(0), (0, 0));
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(3), (1, 3));
        assert_eq!(grid(4), (2, 3));
        assert_eq!(grid(7), (3, 3));
    }

    #[test]
    fn log2_axis_spans_the_p_values_with_padding() {
        let axis = Log2Axis::new(&[8, 2, 4, 4], 10).unwrap();
        assert_eq!(axis.ticks, vec![2, 4, 8]);
        assert!(axis.lo < 1.0 && axis.lo > 0.0, "lo {}", axis.lo);
        assert!(axis.hi > 3.0 && axis.hi < 4.0, "hi {}", axis.hi);
        assert_eq!(p_label(1024.0), "1024");
        assert_eq!(p_label(log2_x(6).exp2()), "6");
    }

    #[test]
    fn single_p_is_centred() {
        let axis = Log2Axis::new(&[16], 10).unwrap();
        assert_eq!((axis.lo, axis.hi), (3.0, 5.0));
        assert_eq!(axis.ticks, vec![16]);
        assert_eq!(Log2Axis::new(&[], 10), None);
    }

    #[test]
    fn dense_ticks_are_thinned_keeping_the_ends() {
        let ps: Vec<u32> = (2..=64).collect();
        let ticks = thin_ticks(&ps, 0.8);
        assert_eq!(ticks.first(), Some(&2));
        assert_eq!(ticks.last(), Some(&64));
        for w in ticks.windows(2) {
            assert!(log2_x(w[1]) - log2_x(w[0]) >= 0.8, "{ticks:?}");
        }
        assert!(ticks.len() >= 5 && ticks.len() <= 7, "{ticks:?}");
        let powers: Vec<u32> = (1..=14).map(|k| 1 << k).collect();
        assert_eq!(thin_ticks(&powers, 1.0), powers);
        assert_eq!(
            thin_ticks(&powers, 1.5),
            vec![2, 8, 32, 128, 512, 2048, 16384]
        );
        // Through the axis: 14 doublings in a panel with room for 10 labels.
        let axis = Log2Axis::new(&powers, 10).unwrap();
        assert_eq!(axis.ticks.len(), 7);
        assert_eq!(thin_ticks(&[4], 1.0), vec![4]);
        assert!(thin_ticks(&[], 1.0).is_empty());
    }

    #[test]
    fn benefit_range_contains_zero_and_a_minimum_span() {
        let (lo, hi) = benefit_range([20.0, 40.0]);
        assert!(lo < 0.0 && lo > -5.0 && hi > 40.0, "{lo} {hi}");
        let (lo, hi) = benefit_range([0.01, -0.02]);
        assert!(hi - lo >= MIN_BENEFIT_SPAN - 1e-9 && lo < -0.02 && hi > 0.01);
        let (lo, hi) = benefit_range([-30.0, -10.0]);
        assert!(lo < -30.0 && hi > 0.0 - 1e-9);
        let (lo, hi) = benefit_range([]);
        assert!(lo <= 0.0 && hi >= 0.0 && hi - lo >= MIN_BENEFIT_SPAN - 1e-9);
        let (lo, hi) = benefit_range([f64::NAN, 5.0]);
        assert!(lo.is_finite() && hi >= 5.0);
    }

    #[test]
    fn time_range_starts_at_zero() {
        assert_eq!(time_range([]), (0.0, 1.0));
        let (lo, hi) = time_range([10.0, 60.0]);
        assert_eq!(lo, 0.0);
        assert!((hi - 67.2).abs() < 1e-9);
    }

    #[test]
    fn linear_ticks_are_nice_multiples() {
        assert_eq!(linear_ticks(0.0, 67.2, 6), vec![0.0, 20.0, 40.0, 60.0]);
        assert_eq!(linear_ticks(-1.6, 18.0, 6), vec![0.0, 5.0, 10.0, 15.0]);
        let t = linear_ticks(0.0, 0.6, 6);
        assert_eq!(t.len(), 7);
        assert!((t[3] - 0.3).abs() < 1e-12);
        assert_eq!(linear_ticks(3.0, 3.0, 6), vec![3.0]);
    }

    #[test]
    fn time_axis_goes_log_beyond_two_decades() {
        let lin = time_axis([10.0, 60.0, f64::NAN]);
        assert!(!lin.log && lin.lo == 0.0 && lin.hi > 60.0);
        assert!(lin.minor_ticks().is_empty());
        let log = time_axis([5.0, 20.0, 250_000.0]);
        assert!(log.log && log.lo < 5.0 && log.lo > 1.0 && log.hi > 250_000.0);
        assert_eq!(log.ticks(), vec![10.0, 100.0, 1000.0, 10_000.0, 100_000.0]);
        assert!(log.minor_ticks().contains(&20.0) && !log.minor_ticks().contains(&100.0));
        assert_eq!(log.label(100_000.0), "100000");
        assert_eq!(log.label(0.05), "0.05");
        // With fewer than four powers of ten the 2x and 5x ticks are labelled too.
        let short = YAxis {
            lo: 0.8,
            hi: 120.0,
            log: true,
        };
        assert_eq!(short.ticks(), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
        assert_eq!(time_axis([]), YAxis::linear((0.0, 1.0)));
    }

    #[test]
    fn y_tick_labels_use_needed_decimals() {
        assert_eq!(y_tick_label(-20.0, 80.0), "\u{2212}20");
        assert_eq!(y_tick_label(2.5, 15.0), "2.5");
        assert_eq!(y_tick_label(5.0, 15.0), "5");
        assert_eq!(y_tick_label(0.25, 0.6), "0.25");
        assert_eq!(y_tick_label(0.30000000000000004, 0.6), "0.3");
        assert_eq!(y_tick_label(-0.0001, 10.0), "0");
        assert_eq!(y_tick_label(150.0, 600.0), "150");
    }

    #[test]
    fn long_text_wraps_at_spaces() {
        let w = |t: &str| t.chars().count() as u32 * 10;
        assert_eq!(wrap_words("a  b   c", 100, w), vec!["a  b   c"]);
        assert_eq!(
            wrap_words("one two three four", 90, w),
            vec!["one two", "three", "four"]
        );
        assert_eq!(wrap_words("enormously x", 50, w), vec!["enormously", "x"]);
        assert_eq!(
            header_height(1, 1),
            2 * HEADER_PAD + TITLE_LINE_H + SUBTITLE_LINE_H
        );
    }

    #[test]
    fn legend_entries_wrap_into_rows() {
        assert_eq!(
            legend_rows(&[100, 100, 100], 300),
            vec![vec![0, 1], vec![2]]
        );
        assert_eq!(legend_rows(&[100, 100, 100], 400), vec![vec![0, 1, 2]]);
        assert_eq!(legend_rows(&[100, 100], 234), vec![vec![0, 1]]);
        assert_eq!(legend_rows(&[900, 50], 400), vec![vec![0], vec![1]]);
        assert!(legend_rows(&[], 400).is_empty());
        assert_eq!(legend_height(0), 0);
        assert_eq!(legend_height(2), 2 * LEGEND_PAD + 2 * LEGEND_ROW_H);
    }
}
