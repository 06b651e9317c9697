//! Draws a [`FigureSpec`] (panels over P or sizes) or an [`XyFigure`] with plotters,
//! identically to PNG (bitmap) and SVG, with one header (title, subtitle, the run's warnings)
//! and one legend for all panels.

use super::axes::{PAxis, XyRanged, YRanged};
use super::fonts::{self, FAMILY};
use super::layout::{
    caption_height, grid, header_height, legend_entry_width, legend_height, legend_rows, p_label,
    wrap_text, Log2Axis, YAxis, HEADER_PAD, LEGEND_ENTRY_GAP, LEGEND_GAP, LEGEND_PAD, LEGEND_ROW_H,
    LEGEND_SAMPLE_W, PANEL_H, PANEL_W, SUBTITLE_LINE_H, TITLE_LINE_H,
};
use super::spec::{FigureSpec, LegendEntry, Marker, PanelSpec, SeriesSpec, SeriesStyle};
use super::xy::{Join, XyAxis, XyFigure, XyPanel};
use super::PlotError;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// Labelled P ticks that fit one panel's x axis (about 50 px per label).
const MAX_X_TICKS: usize = 9;
const TITLE_SIZE: f64 = 24.0;
const SUBTITLE_SIZE: f64 = 15.0;
const PANEL_TITLE_SIZE: f64 = 19.0;
const AXIS_DESC_SIZE: f64 = 16.0;
const TICK_SIZE: f64 = 14.0;
const LEGEND_SIZE: f64 = 16.0;
const NOTE_SIZE: f64 = 13.0;
const NOTE_LINE_H: u32 = 16;
const LINE_W: u32 = 2;
const CIRCLE_R: i32 = 4;
const SQUARE_HALF: i32 = 4;
const DASH: u32 = 9;
const DASH_GAP: u32 = 5;
const GRID_COLOR: RGBColor = RGBColor(215, 215, 215);
const FAINT_GRID_COLOR: RGBColor = RGBColor(238, 238, 238);
const SUBTITLE_COLOR: RGBColor = RGBColor(70, 70, 70);
const NOTE_COLOR: RGBColor = RGBColor(150, 40, 40);
const REF_W: u32 = 1;
/// Half-width in pixels of the level tick that marks a reference known at one P only.
const REF_TICK_HALF: i32 = 24;
/// Opacity of reference lines in panels over P.
const REF_ALPHA: f64 = 0.65;
const REF_DASH: u32 = 3;
const REF_GAP: u32 = 4;
/// Horizontal offset between kernels in panels with boxes, as a share of the x axis (log2).
const DODGE_STEP: f64 = 0.025;
/// Width of a box (an interquartile range), pixels, and its opacity.
const BOX_W: u32 = 12;
const BOX_ALPHA: f64 = 0.35;
/// Half width of an error bar's caps, pixels.
const CAP_HALF: i32 = 5;

/// A figure of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Drawable {
    Grid(FigureSpec),
    Custom(XyFigure),
}

impl Drawable {
    /// File name without extension.
    pub fn stem(&self) -> &str {
        match self {
            Drawable::Grid(f) => &f.stem,
            Drawable::Custom(f) => &f.stem,
        }
    }

    /// The figure's title.
    pub fn title(&self) -> &str {
        match self {
            Drawable::Grid(f) => &f.title,
            Drawable::Custom(f) => &f.title,
        }
    }

    /// The figure's subtitle (how to read it).
    pub fn subtitle(&self) -> &str {
        match self {
            Drawable::Grid(f) => &f.subtitle,
            Drawable::Custom(f) => &f.subtitle,
        }
    }

    /// Adds `context` (the run's identity) as the subtitle's last line.
    pub fn add_context(&mut self, context: &str) {
        let sub = match self {
            Drawable::Grid(f) => &mut f.subtitle,
            Drawable::Custom(f) => &mut f.subtitle,
        };
        if !context.is_empty() {
            *sub = format!("{sub}\n{context}");
        }
    }

    fn warnings(&self) -> &[String] {
        match self {
            Drawable::Grid(f) => &f.warnings,
            Drawable::Custom(f) => &f.warnings,
        }
    }

    fn legend(&self) -> &[LegendEntry] {
        match self {
            Drawable::Grid(f) => &f.legend,
            Drawable::Custom(f) => &f.legend,
        }
    }

    fn panel_count(&self) -> usize {
        match self {
            Drawable::Grid(f) => f.panels.len(),
            Drawable::Custom(f) => f.panels.len(),
        }
    }
}

/// Writes every figure of `figs` into `out_dir` (created when missing) with
/// [`write_drawable`]; nothing, and no folder, when `figs` is empty. Returns the paths
/// written.
///
/// Errors: [`PlotError::CreateDir`] and those of [`write_drawable`].
pub fn write_all(figs: &[Drawable], out_dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    if figs.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::CreateDir {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for f in figs {
        written.extend(write_drawable(f, out_dir)?);
    }
    Ok(written)
}

/// Writes `fig` as `{stem}.png` and `{stem}.svg` in `dir`; returns both paths.
pub fn write_drawable(fig: &Drawable, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let png = dir.join(format!("{}.png", fig.stem()));
    let svg = dir.join(format!("{}.svg", fig.stem()));
    fonts::ensure_registered().map_err(|reason| PlotError::Font {
        path: png.clone(),
        reason,
    })?;
    let layout = Layout::of(fig);
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |e: String| PlotError::Write { path, reason: e }
    };
    {
        let root = BitMapBackend::new(&png, layout.size).into_drawing_area();
        draw(&root, fig, &layout)
            .and_then(|_| root.present())
            .map_err(|e| e.to_string())
            .map_err(fail(&png))?;
    }
    {
        let root = SVGBackend::new(&svg, layout.size).into_drawing_area();
        draw(&root, fig, &layout)
            .and_then(|_| root.present())
            .map_err(|e| e.to_string())
            .map_err(fail(&svg))?;
    }
    Ok(vec![png, svg])
}

/// `fig` as an SVG document in memory (what [`write_drawable`] writes as `{stem}.svg`), for a
/// page that puts it inline without a file beside it (the comparison page).
///
/// Errors: [`PlotError::Write`] naming `{stem}.svg`, [`PlotError::Font`].
pub fn svg_string(fig: &Drawable) -> Result<String, PlotError> {
    let name = PathBuf::from(format!("{}.svg", fig.stem()));
    fonts::ensure_registered().map_err(|reason| PlotError::Font {
        path: name.clone(),
        reason,
    })?;
    let layout = Layout::of(fig);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, layout.size).into_drawing_area();
        draw(&root, fig, &layout)
            .and_then(|_| root.present())
            .map_err(|e| PlotError::Write {
                path: name,
                reason: e.to_string(),
            })?;
    }
    Ok(svg)
}

/// Where things go in one figure: computed once, used for the PNG and the SVG alike.
struct Layout {
    /// Width and height in pixels: the panel grid, the header above and the legend below.
    size: (u32, u32),
    title: Vec<String>,
    subtitle: Vec<String>,
    /// The warnings about the figure's data, wrapped, drawn in the caption area under the
    /// legend in the note colour.
    warnings: Vec<String>,
    header_h: u32,
    /// Legend entry indices per legend row.
    legend: Vec<Vec<usize>>,
}

impl Layout {
    fn of(spec: &Drawable) -> Layout {
        let (rows, cols) = grid(spec.panel_count().max(1));
        let width = cols as u32 * PANEL_W;
        // A one-panel figure is narrower than its title; wrap rather than cut.
        let text_w = width - 2 * LEGEND_PAD;
        let title = wrap_text(spec.title(), text_w, |t| bold_text_width(t, TITLE_SIZE));
        // Lines of the subtitle (how to read it, then the run's identity) wrap separately.
        let subtitle = spec
            .subtitle()
            .lines()
            .flat_map(|l| wrap_text(l, text_w, |t| text_width(t, SUBTITLE_SIZE)))
            .collect::<Vec<_>>();
        let warnings: Vec<String> = spec
            .warnings()
            .iter()
            .flat_map(|w| {
                super::layout::wrap_words(&format!("warning: {w}"), text_w, |t| {
                    text_width(t, SUBTITLE_SIZE)
                })
            })
            .collect();
        let header_h = header_height(title.len(), subtitle.len());
        let widths: Vec<u32> = spec
            .legend()
            .iter()
            .map(|e| legend_entry_width(text_width(&e.label, LEGEND_SIZE)))
            .collect();
        let legend = legend_rows(&widths, text_w);
        Layout {
            size: (
                width,
                header_h
                    + rows as u32 * PANEL_H
                    + legend_height(legend.len())
                    + caption_height(warnings.len()),
            ),
            title,
            subtitle,
            warnings,
            header_h,
            legend,
        }
    }
}

fn font(size: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::Name(FAMILY), size, FontStyle::Normal)
}

// `FontDesc::style` keeps the face it was made with, so bold text needs its own descriptor.
fn bold_font(size: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::Name(FAMILY), size, FontStyle::Bold)
}

fn text_width(text: &str, size: f64) -> u32 {
    measure(&font(size), text)
}

fn bold_text_width(text: &str, size: f64) -> u32 {
    measure(&bold_font(size), text)
}

fn measure(font: &FontDesc, text: &str) -> u32 {
    // Measuring only fails for an unregistered family, which write_png_and_svg rules out;
    // a rough width keeps the layout usable even then.
    font.box_size(text)
        .map(|(w, _)| w)
        .unwrap_or((text.chars().count() as f64 * font.get_size() * 0.6) as u32)
}

fn rgb(c: (u8, u8, u8)) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &Drawable,
    layout: &Layout,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let (header, rest) = root.split_vertically(layout.header_h);
    let center = Pos::new(HPos::Center, VPos::Top);
    let mut y = HEADER_PAD as i32;
    for line in &layout.title {
        header.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, y),
            bold_font(TITLE_SIZE).color(&BLACK).pos(center),
        ))?;
        y += TITLE_LINE_H as i32;
    }
    for line in &layout.subtitle {
        header.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, y),
            font(SUBTITLE_SIZE).color(&SUBTITLE_COLOR).pos(center),
        ))?;
        y += SUBTITLE_LINE_H as i32;
    }
    let (rows, cols) = grid(fig.panel_count().max(1));
    let (panels_area, below) = rest.split_vertically(rows as u32 * PANEL_H);
    let (legend_area, caption) = below.split_vertically(legend_height(layout.legend.len()));
    // The warnings about this figure's data: a caption under the legend, not a banner over
    // the panels.
    let mut y = HEADER_PAD as i32;
    for line in &layout.warnings {
        caption.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, y),
            font(SUBTITLE_SIZE).color(&NOTE_COLOR).pos(center),
        ))?;
        y += SUBTITLE_LINE_H as i32;
    }
    let areas = panels_area.split_evenly((rows, cols));
    match fig {
        Drawable::Grid(spec) => draw_grid(&areas, spec)?,
        Drawable::Custom(xy) => {
            for (area, panel) in areas.iter().zip(&xy.panels) {
                draw_xy_panel(area, panel)?;
            }
        }
    }
    draw_legend(&legend_area, fig.legend(), &layout.legend)
}

fn draw_grid<DB: DrawingBackend>(
    areas: &[DrawingArea<DB, Shift>],
    spec: &FigureSpec,
) -> DrawResult<DB> {
    let axis = Log2Axis::new(&spec.procs, MAX_X_TICKS).unwrap_or(Log2Axis {
        lo: 0.0,
        hi: 2.0,
        ticks: Vec::new(),
    });
    for (area, panel) in areas.iter().zip(&spec.panels) {
        draw_panel(area, spec, panel, &axis)?;
    }
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &FigureSpec,
    panel: &PanelSpec,
    axis: &Log2Axis,
) -> DrawResult<DB> {
    let y = panel.y;
    let missing: Vec<&str> = panel
        .series
        .iter()
        .filter(|s| s.values().next().is_none())
        .map(|s| s.name.as_str())
        .collect();
    // Notes about series without any value go between the title and the frame, in a band of
    // their own, so they can never cover data.
    let below_title = area.titled(&panel.title, bold_font(PANEL_TITLE_SIZE))?;
    let (notes, plot_area) = below_title.split_vertically(NOTE_LINE_H * missing.len() as u32);
    let note = font(NOTE_SIZE)
        .color(&NOTE_COLOR)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let (notes_w, _) = notes.dim_in_pixel();
    for (i, name) in missing.iter().enumerate() {
        notes.draw(&Text::new(
            format!("no valid value: {name}"),
            (notes_w as i32 / 2, i as i32 * NOTE_LINE_H as i32),
            note.clone(),
        ))?;
    }
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(10)
        .margin_right(22)
        .x_label_area_size(52)
        .y_label_area_size(62)
        .build_cartesian_2d(PAxis::new(axis, &spec.procs), YRanged(y))?;
    let y_desc = if y.log {
        format!("{}, log scale", spec.y_label)
    } else {
        spec.y_label.clone()
    };
    chart
        .configure_mesh()
        .x_desc(spec.x_title())
        .y_desc(y_desc)
        .x_label_formatter(&|p| spec.x_tick_label(p_label(*p).parse().unwrap_or(0)))
        .y_label_formatter(&|v| y.label(*v))
        .label_style(font(TICK_SIZE))
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .bold_line_style(GRID_COLOR)
        .light_line_style(FAINT_GRID_COLOR)
        .draw()?;
    if spec.zero_line && !y.log && y.lo < 0.0 && y.hi > 0.0 {
        chart.draw_series(LineSeries::new(
            [(axis.lo.exp2(), 0.0), (axis.hi.exp2(), 0.0)],
            BLACK.stroke_width(1),
        ))?;
    }
    // Figures that ask for it (distributions, comparisons) set each series slightly apart in
    // x, so boxes and error bars at the same P do not hide each other.
    let dodged: Vec<&SeriesSpec> = panel.series.iter().filter(|s| !s.style.reference).collect();
    let dodge = spec.dodge && dodged.len() > 1;
    let step = (axis.hi - axis.lo) * DODGE_STEP;
    let xs = |s: &SeriesSpec, p: u32| -> f64 {
        let x = f64::from(p);
        match dodged.iter().position(|d| std::ptr::eq(*d, s)) {
            Some(k) if dodge => x * ((k as f64 - (dodged.len() - 1) as f64 / 2.0) * step).exp2(),
            _ => x,
        }
    };
    let xy = |s: &SeriesSpec, pts: Vec<(u32, f64)>| -> Vec<(f64, f64)> {
        pts.into_iter().map(|(p, v)| (xs(s, p), v)).collect()
    };
    for s in &panel.series {
        let color = rgb(s.style.color);
        // Boxes first, under everything: a wide translucent bar from low to high.
        for &(x, lo, hi) in &s.boxes {
            let x = xs(s, x);
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                color.mix(BOX_ALPHA).stroke_width(BOX_W),
            )))?;
        }
        // Error bars under the lines and markers: the interval, with caps at both ends.
        for &(x, lo, hi) in &s.intervals {
            let x = xs(s, x);
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                color.mix(0.7).stroke_width(1),
            )))?;
            for v in [lo, hi] {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, v))
                        + PathElement::new(
                            vec![(-CAP_HALF, 0), (CAP_HALF, 0)],
                            color.mix(0.7).stroke_width(1),
                        ),
                ))?;
            }
        }
    }
    for s in &panel.series {
        // References (the benefit ceiling) are thin and translucent: context, not data.
        let line = if s.style.reference {
            rgb(s.style.color).mix(REF_ALPHA).stroke_width(REF_W)
        } else {
            rgb(s.style.color).stroke_width(LINE_W)
        };
        for run in s.runs() {
            if s.style.reference && run.len() == 1 {
                // A reference at one P only (a run at a single process count) is a point, which
                // a line without a marker would not show: a short level tick marks its value.
                let (x, v) = xy(s, run)[0];
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, v))
                        + PathElement::new(vec![(-REF_TICK_HALF, 0), (REF_TICK_HALF, 0)], line),
                ))?;
            } else if s.style.reference {
                chart.draw_series(DashedLineSeries::new(xy(s, run), REF_DASH, REF_GAP, line))?;
            } else if s.style.dashed {
                chart.draw_series(DashedLineSeries::new(xy(s, run), DASH, DASH_GAP, line))?;
            } else {
                chart.draw_series(LineSeries::new(xy(s, run), line))?;
            }
        }
    }
    // Squares (hollow, white inside) under circles: where a blocking and a nonblocking value
    // coincide the reader sees a dot inside a square instead of one hiding the other.
    for s in panel
        .series
        .iter()
        .filter(|s| s.style.marker == Marker::Square)
    {
        let color = rgb(s.style.color);
        let (a, b) = ((-SQUARE_HALF, -SQUARE_HALF), (SQUARE_HALF, SQUARE_HALF));
        chart.draw_series(xy(s, s.values().collect()).into_iter().map(|c| {
            EmptyElement::at(c)
                + Rectangle::new([a, b], WHITE.filled())
                + Rectangle::new([a, b], color.stroke_width(2))
        }))?;
    }
    for s in panel
        .series
        .iter()
        .filter(|s| s.style.marker == Marker::Circle)
    {
        let color = rgb(s.style.color);
        chart.draw_series(
            xy(s, s.values().collect())
                .into_iter()
                .map(|c| Circle::new(c, CIRCLE_R, color.filled())),
        )?;
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &[LegendEntry],
    rows: &[Vec<usize>],
) -> DrawResult<DB> {
    let (w, _) = area.dim_in_pixel();
    let label_style = font(LEGEND_SIZE)
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (r, row) in rows.iter().enumerate() {
        let widths: Vec<u32> = row
            .iter()
            .map(|&i| legend_entry_width(text_width(&legend[i].label, LEGEND_SIZE)))
            .collect();
        let total: u32 = widths.iter().sum::<u32>() + LEGEND_ENTRY_GAP * (widths.len() as u32 - 1);
        let mut x = (w.saturating_sub(total) / 2) as i32;
        let y = (LEGEND_PAD + r as u32 * LEGEND_ROW_H + LEGEND_ROW_H / 2) as i32;
        for (&i, &entry_w) in row.iter().zip(&widths) {
            let entry = &legend[i];
            draw_sample(area, x, y, entry.style)?;
            area.draw(&Text::new(
                entry.label.clone(),
                (x + (LEGEND_SAMPLE_W + LEGEND_GAP) as i32, y),
                label_style.clone(),
            ))?;
            x += (entry_w + LEGEND_ENTRY_GAP) as i32;
        }
    }
    Ok(())
}

/// The line and marker of a series, as drawn in the panels, in pixel coordinates.
fn draw_sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    x: i32,
    y: i32,
    style: SeriesStyle,
) -> DrawResult<DB> {
    let color = rgb(style.color);
    if style.marker == Marker::Swatch {
        let h = LEGEND_ROW_H as i32 / 3;
        let w = LEGEND_SAMPLE_W as i32 / 2;
        area.draw(&Rectangle::new(
            [(x + w, y - h), (x + 2 * w, y + h)],
            color.filled(),
        ))?;
        return area.draw(&Rectangle::new(
            [(x + w, y - h), (x + 2 * w, y + h)],
            RGBColor(120, 120, 120).stroke_width(1),
        ));
    }
    let (line, dash, gap) = if style.reference {
        (color.stroke_width(REF_W), REF_DASH, REF_GAP)
    } else {
        (color.stroke_width(LINE_W), DASH, DASH_GAP)
    };
    let end = x + LEGEND_SAMPLE_W as i32;
    if style.dashed {
        let mut a = x;
        while a < end {
            let b = (a + dash as i32).min(end);
            area.draw(&PathElement::new(vec![(a, y), (b, y)], line))?;
            a = b + gap as i32;
        }
    } else {
        area.draw(&PathElement::new(vec![(x, y), (end, y)], line))?;
    }
    let mid = (x + end) / 2;
    match style.marker {
        Marker::None | Marker::Swatch => Ok(()),
        Marker::Circle => area.draw(&Circle::new((mid, y), CIRCLE_R, color.filled())),
        Marker::Square => {
            let (a, b) = (
                (mid - SQUARE_HALF, y - SQUARE_HALF),
                (mid + SQUARE_HALF, y + SQUARE_HALF),
            );
            area.draw(&Rectangle::new([a, b], WHITE.filled()))?;
            area.draw(&Rectangle::new([a, b], color.stroke_width(2)))
        }
    }
}

fn draw_xy_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &XyPanel,
) -> DrawResult<DB> {
    let plot_area = area.titled(&panel.title, bold_font(PANEL_TITLE_SIZE))?;
    let named = !panel.y_names.is_empty();
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(10)
        .margin_right(22)
        .x_label_area_size(52)
        // Named ticks: wide enough for the longest name (about 7 px a character).
        .y_label_area_size(if named {
            let longest = panel.y_names.iter().map(|n| n.chars().count()).max();
            (longest.unwrap_or(0) as u32 * 7 + 16).clamp(80, 320)
        } else {
            62
        })
        .build_cartesian_2d(
            XyRanged::new(&panel.x, None),
            // A tick per named y value only: timelines of many ranks name a few of them.
            XyRanged::new(
                &panel.y,
                named.then(|| {
                    (0..panel.y_names.len())
                        .filter(|&i| !panel.y_names[i].is_empty())
                        .map(|i| i as f64)
                        .collect()
                }),
            ),
        )?;
    let desc = |a: &XyAxis| {
        if a.log {
            format!("{}, log scale", a.label)
        } else {
            a.label.clone()
        }
    };
    let (xa, ya) = (
        YAxis {
            lo: panel.x.lo,
            hi: panel.x.hi,
            log: panel.x.log,
        },
        YAxis {
            lo: panel.y.lo,
            hi: panel.y.hi,
            log: panel.y.log,
        },
    );
    let y_label = |v: &f64| {
        if named {
            let i = v.round();
            if i >= 0.0 && (i as usize) < panel.y_names.len() {
                return panel.y_names[i as usize].clone();
            }
            return String::new();
        }
        ya.label(*v)
    };
    chart
        .configure_mesh()
        .x_desc(desc(&panel.x))
        .y_desc(desc(&panel.y))
        .x_label_formatter(&|v| xa.label(*v))
        .y_label_formatter(&y_label)
        .label_style(font(TICK_SIZE))
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .bold_line_style(GRID_COLOR)
        .light_line_style(FAINT_GRID_COLOR)
        .draw()?;
    if let Some(h) = &panel.heat {
        // One rectangle per cell, in axis coordinates, so cells meet without gaps.
        let cells = (0..h.rows).flat_map(|r| (0..h.cols).map(move |c| (r, c)));
        chart.draw_series(cells.map(|(r, c)| {
            let v = f64::from(h.values[r * h.cols + c]);
            let (x0, y0) = (h.x0 + c as f64 * h.x_step, h.y0 + r as f64 * h.y_step);
            Rectangle::new(
                [(x0, y0), (x0 + h.x_step, y0 + h.y_step)],
                rgb(super::xy::heat_color(v, h.lo, h.hi)).filled(),
            )
        }))?;
    }
    for b in &panel.bars {
        let color = rgb(b.color);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(b.x0, b.y - b.half_height), (b.x1, b.y + b.half_height)],
            color.filled(),
        )))?;
    }
    for (x, label) in &panel.marks {
        chart.draw_series(DashedLineSeries::new(
            [(*x, panel.y.lo), (*x, panel.y.hi)],
            REF_DASH,
            REF_GAP,
            BLACK.stroke_width(REF_W),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            label.clone(),
            (*x, panel.y.hi),
            font(NOTE_SIZE)
                .color(&SUBTITLE_COLOR)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        )))?;
    }
    for line in &panel.lines {
        let color = rgb(line.style.color);
        let stroke = if line.style.reference {
            color.stroke_width(REF_W)
        } else {
            color.stroke_width(LINE_W)
        };
        let pts: Vec<(f64, f64)> = match line.join {
            Join::Scatter => line.points.clone(),
            Join::Steps => line
                .points
                .windows(2)
                .flat_map(|w| [w[0], (w[1].0, w[0].1)])
                .chain(line.points.last().copied())
                .collect(),
        };
        match line.join {
            Join::Scatter => {
                let filled = line.style.marker != Marker::Square;
                chart.draw_series(pts.iter().map(|&c| {
                    let style = if filled {
                        color.mix(0.6).filled()
                    } else {
                        color.stroke_width(1)
                    };
                    Circle::new(c, 2, style)
                }))?;
            }
            _ if line.style.dashed => {
                let (dash, gap) = if line.style.reference {
                    (REF_DASH, REF_GAP)
                } else {
                    (DASH, DASH_GAP)
                };
                chart.draw_series(DashedLineSeries::new(pts, dash, gap, stroke))?;
            }
            _ => {
                chart.draw_series(LineSeries::new(pts, stroke))?;
            }
        }
    }
    Ok(())
}
