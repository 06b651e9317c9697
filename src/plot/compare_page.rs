//! The comparison page (`compare A B --html FILE`): one self-contained HTML file, as the
//! run's `index.html` is, with both runs' identities side by side, the difference table of
//! the terminal (intervals and decisions, sortable by a column) and the figures that overlay
//! the two runs, their SVGs inline. It needs no file beside it, so it is written wherever
//! the user asks.

use super::compare::{compare_figures, Side};
use super::html::{accessible_svg, figure, page, text_table};
use super::render::svg_string;
use super::PlotError;
use crate::analysis::capture_compare::CaptureComparison;
use crate::analysis::{Bootstrap, CompareRow};
use crate::export::TextTable;
use crate::records::provenance::printable;
use maud::{html, Markup};
use std::path::Path;

/// The HTML of the comparison of `a` with `b` in `rows`, intervals and decisions by `boot`.
///
/// Errors: those of drawing a figure ([`PlotError::Write`], [`PlotError::Font`]).
pub fn compare_html(
    rows: &[CompareRow],
    boot: &Bootstrap,
    a: &Side,
    b: &Side,
) -> Result<String, PlotError> {
    let figures = compare_figures(rows, a, b);
    let svgs = figures
        .iter()
        .map(|f| {
            let svg = svg_string(f)?;
            accessible_svg(f, &svg).ok_or_else(|| PlotError::Write {
                path: format!("{}.svg", f.stem()).into(),
                reason: "not an SVG document".into(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let table = crate::export::compare_table(rows, boot);
    let header = page_header(
        a,
        b,
        "Each row compares one configuration (op, size, P, delay model) measured in both.",
        true,
    );
    let main = html! {
        main {
            (runs(a, b))
            (differences(
                "B against A per configuration: medians with their intervals, the difference \
                 with the interval of the difference, and whether it excludes 0.",
                &table,
            ))
            section #figures {
                h2 { "Figures" }
                @if figures.is_empty() { p { "No figure: no configuration with a median on both sides." } }
                @for (f, svg) in figures.iter().zip(&svgs) { (figure(f, svg, false)) }
            }
        }
    };
    let title = format!("delaybench comparison: {} vs {}", a.name, b.name);
    Ok(page(&title, env!("CARGO_PKG_VERSION"), header, main))
}

/// The HTML of the comparison of two captures (`compare CAPTURE_A CAPTURE_B --html FILE`):
/// both captures' identities side by side and the terminal's table of the time in each call
/// site's collectives, with its intervals and decisions. No figure: the captures' own
/// figures are `arrivals`' page of each.
pub fn capture_compare_html(c: &CaptureComparison, boot: &Bootstrap, a: &Side, b: &Side) -> String {
    let table = crate::export::capture_compare_table(c, boot);
    let header = page_header(
        a,
        b,
        "Each row compares one call site (site, operation, P, bytes) captured in both runs of \
         the application.",
        false,
    );
    let main = html! {
        main {
            (runs(a, b))
            (differences(
                "B against A per call site: the median time in the call (the members' waiting \
                 included), the difference with its interval, and whether it differs.",
                &table,
            ))
        }
    };
    let title = format!(
        "delaybench comparison of captures: {} vs {}",
        a.name, b.name
    );
    page(&title, env!("CARGO_PKG_VERSION"), header, main)
}

/// The page's header: A and B by name, what a row compares (`rows`), the sections (a
/// section of figures when `figures`).
fn page_header(a: &Side, b: &Side, rows: &str, figures: bool) -> Markup {
    html! {
        header {
            h1 { "delaybench comparison" }
            p.identity {
                "A (the reference): " code { (printable(&a.name)) } "; B: "
                code { (printable(&b.name)) } ". " (rows)
            }
            nav aria-label="sections" {
                a href="#runs" { "Runs" } " · " a href="#differences" { "Differences" }
                @if figures { " · " a href="#figures" { "Figures" } }
            }
        }
    }
}

/// The section of the difference table, `#compare-table` with `caption`.
fn differences(caption: &str, table: &TextTable) -> Markup {
    html! {
        section #differences {
            h2 { "Differences" }
            (text_table("compare-table", caption, table, None))
        }
    }
}

/// Both sides' identities side by side; a row only A has shows "-" for B.
fn runs(a: &Side, b: &Side) -> Markup {
    let b_value = |key: &str| {
        b.identity
            .iter()
            .find(|(k, _)| k == key)
            .map_or("-", |(_, v)| v.as_str())
    };
    html! {
        section #runs {
            h2 { "Runs" }
            div.scroll {
                table.meta {
                    caption { "The two runs side by side" }
                    thead {
                        tr {
                            th scope="col" { "" }
                            th scope="col" { "A: " (printable(&a.name)) }
                            th scope="col" { "B: " (printable(&b.name)) }
                        }
                    }
                    tbody {
                        @for (k, v) in &a.identity {
                            tr {
                                th scope="row" { (printable(k)) }
                                td { (printable(v)) }
                                td { (printable(b_value(k))) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Writes [`compare_html`] to `path` (its folder must exist).
///
/// Errors: those of [`compare_html`], [`PlotError::Write`] naming `path`.
pub fn write_compare_page(
    rows: &[CompareRow],
    boot: &Bootstrap,
    a: &Side,
    b: &Side,
    path: &Path,
) -> Result<(), PlotError> {
    let page = compare_html(rows, boot, a, b)?;
    super::index::write_page(path.to_path_buf(), &page).map(|_| ())
}

/// Writes [`capture_compare_html`] to `path` (its folder must exist).
///
/// Errors: [`PlotError::Write`] naming `path`.
pub fn write_capture_compare_page(
    c: &CaptureComparison,
    boot: &Bootstrap,
    a: &Side,
    b: &Side,
    path: &Path,
) -> Result<(), PlotError> {
    let page = capture_compare_html(c, boot, a, b);
    super::index::write_page(path.to_path_buf(), &page).map(|_| ())
}
