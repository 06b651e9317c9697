//! The page of a capture (`delaybench arrivals`): `index.html` in the folder of its figures,
//! one self-contained file as a run's page is (every figure's SVG inline, nothing fetched).
//! It holds what the terminal prints of the capture, laid out for reading: the capture's
//! identity and the gaps the terminal warns of, the causes table (the terminal's rows, every
//! cause rather than the `--top` ones, sortable by a column), each row linked to the figure
//! that draws it, the what-ifs, then every figure with its caption.

use super::capture_names::subtitle;
use super::compare::Side;
use super::html::{figure, inline_svg, key_values, page, text_table, warnings_section, INDEX_HTML};
use super::render::Drawable;
use super::PlotError;
use crate::analysis::causes::CausesReport;
use crate::capture::{capture_gaps, Matched, RankCapture};
use crate::records::host_list::folded;
use crate::records::provenance::printable;
use maud::html;
use std::path::{Path, PathBuf};

/// The capture's identity as (name, value) rows: its id, folder, command, ranks, hosts,
/// calls, wall time and clock synchronisation. `captures` are one capture's files (as
/// `read_captures` returns them), `m` their matched calls.
pub fn capture_identity(captures: &[RankCapture], m: &Matched) -> Vec<(String, String)> {
    let Some(first) = captures.first() else {
        return Vec::new();
    };
    let h = &first.header;
    let hosts: Vec<String> = captures.iter().map(|c| c.header.host.clone()).collect();
    let rtt = captures
        .iter()
        .map(|c| c.header.sync_init.rtt_s)
        .fold(0.0, f64::max);
    let folder = first
        .path
        .parent()
        .map_or_else(String::new, |p| p.display().to_string());
    [
        ("capture id", h.capture_id.clone()),
        ("folder", folder),
        ("command", h.command.join(" ")),
        (
            "ranks",
            format!("{} files of {} ranks", captures.len(), m.world_size),
        ),
        ("hosts", folded(&hosts)),
        (
            "collective calls",
            format!(
                "{} matched, {} left out (a member missing)",
                m.instances.len(),
                m.incomplete_calls
            ),
        ),
        ("wall time", format!("{:.6} s", m.wall_s)),
        (
            "clock",
            format!(
                "{}, offsets to rank 0 measured at MPI_Init and MPI_Finalize; largest round \
                 trip at MPI_Init {:.1} µs",
                h.clock,
                rtt * 1e6
            ),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The comparison page's side of a capture: its folder's name and identity.
pub fn capture_side(dir: &Path, captures: &[RankCapture], m: &Matched) -> Side {
    Side {
        name: dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        context: subtitle(m),
        identity: capture_identity(captures, m),
    }
}

/// The HTML of the capture's page: `captures` matched into `m`, the causes `c`, and
/// `figures`, whose SVGs are read from `dir` (written there just before).
///
/// Errors: [`PlotError::Write`] naming a figure's SVG that cannot be read.
pub fn capture_html(
    captures: &[RankCapture],
    m: &Matched,
    c: &CausesReport,
    figures: &[Drawable],
    dir: &Path,
) -> Result<String, PlotError> {
    let svgs = figures
        .iter()
        .map(|f| inline_svg(f, dir))
        .collect::<Result<Vec<_>, _>>()?;
    let mut table = crate::export::causes_table(c, usize::MAX);
    // Each line under the causes table is a sentence of its own (the waiting, the headline,
    // each what-if): a paragraph each, not one.
    let notes = std::mem::take(&mut table.notes);
    // Each cause the causes figure draws links to it.
    let stem = super::causes::STEM;
    let drawn = super::causes::drawn_causes(c);
    let has_figure = figures.iter().any(|f| f.stem() == stem);
    let links: Vec<Vec<(String, String)>> = c
        .causes
        .iter()
        .map(|k| {
            if has_figure && drawn.iter().any(|d| std::ptr::eq(*d, k)) {
                vec![(stem.to_string(), "causes".to_string())]
            } else {
                Vec::new()
            }
        })
        .collect();
    let warnings = capture_gaps(captures).notes();
    let id = captures
        .first()
        .map_or_else(String::new, |f| f.header.capture_id.clone());
    let command = captures
        .first()
        .map_or_else(String::new, |f| f.header.command.join(" "));
    let version = env!("CARGO_PKG_VERSION");
    let header = html! {
        header {
            h1 { "delaybench capture" }
            p.identity {
                "Capture " code { (printable(&id)) } " of " code { (printable(&command)) }
                ": " (printable(&subtitle(m))) "."
            }
            nav aria-label="sections" {
                a href="#warnings" { "Warnings" } " · " a href="#causes" { "Causes" }
                " · " a href="#figures" { "Figures" } " · " a href="#capture" { "Capture" }
            }
        }
    };
    let main = html! {
        main {
            (warnings_section(&warnings))
            section #causes {
                h2 { "Who made everyone wait" }
                (text_table(
                    "causes-table",
                    "Per cause (a rank's region between two calls, or its time inside a \
                     call): how much longer it took than the other ranks' (delay), the \
                     waiting it caused directly and through other ranks (propagated), and its \
                     share of all waiting (Böhme et al. 2010).",
                    &table,
                    Some(&links),
                ))
                @for n in &notes { p.note { (printable(n)) } }
            }
            section #figures {
                h2 { "Figures" }
                @if figures.is_empty() { p { "No figure: the capture has no collective call." } }
                @for (f, svg) in figures.iter().zip(&svgs) { (figure(f, svg, true)) }
            }
            section #capture {
                h2 { "Capture" }
                (key_values("What was captured, where and how", &capture_identity(captures, m)))
            }
        }
    };
    Ok(page(
        &format!("delaybench capture {id}"),
        version,
        header,
        main,
    ))
}

/// Writes [`capture_html`] to `dir/index.html` and returns its path.
///
/// Errors: [`PlotError::Write`] naming the file (or an SVG it could not read).
pub fn write_capture_page(
    captures: &[RankCapture],
    m: &Matched,
    c: &CausesReport,
    figures: &[Drawable],
    dir: &Path,
) -> Result<PathBuf, PlotError> {
    let page = capture_html(captures, m, c, figures, dir)?;
    super::index::write_page(dir.join(INDEX_HTML), &page)
}
