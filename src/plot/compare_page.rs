//! The comparison page (`compare A B --html FILE`): one self-contained HTML file, as the
//! run's `index.html` is, with both runs' identities side by side, the difference table of
//! the terminal (intervals and decisions, sortable by a column) and the figures that overlay
//! the two runs, their SVGs inline. It needs no file beside it, so it is written wherever
//! the user asks.

use super::compare::{compare_figures, Side};
use super::html::{accessible_svg, figure, header_text, page};
use super::render::svg_string;
use super::PlotError;
use crate::analysis::{Bootstrap, CompareRow};
use crate::records::provenance::printable;
use maud::html;
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
    // The two sides have the same rows (one header each); a row only one has shows "-".
    let b_value = |key: &str| {
        b.identity
            .iter()
            .find(|(k, _)| k == key)
            .map_or("-", |(_, v)| v.as_str())
    };
    let header = html! {
        header {
            h1 { "delaybench comparison" }
            p.identity {
                "A (the reference): " code { (printable(&a.name)) } "; B: "
                code { (printable(&b.name)) } ". Each row compares one configuration \
                (op, size, P, delay model) measured in both."
            }
            nav aria-label="sections" {
                a href="#runs" { "Runs" } " · " a href="#differences" { "Differences" }
                " · " a href="#figures" { "Figures" }
            }
        }
    };
    let main = html! {
        main {
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
            section #differences {
                h2 { "Differences" }
                div.scroll {
                    table.answer.sortable #compare-table {
                        caption {
                            "B against A per configuration: medians with their intervals, the \
                             difference with the interval of the difference, and whether it \
                             excludes 0."
                        }
                        thead {
                            tr { @for h in &table.headers { th scope="col" { (header_text(h)) } } }
                        }
                        tbody {
                            @for cells in &table.rows {
                                tr {
                                    @for (i, c) in cells.iter().enumerate() {
                                        @if i == 0 { th scope="row" { (printable(c)) } }
                                        @else { td { (printable(c)) } }
                                    }
                                }
                            }
                        }
                    }
                }
                p.note { (table.notes.join(" ")) }
            }
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
