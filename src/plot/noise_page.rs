//! The page of a noise file (`delaybench noise`, `plot NOISE_FILE`): `index.html` beside
//! its figures, one self-contained file as a run's page is. It holds what the terminal
//! prints: the run's identity and warnings, the noise report (per rank, per host and in
//! total; sortable by a column), each row linked to the figures that draw its detours, the
//! sources of the noise the machine names, then both figures with their captions.

use super::html::{figure, inline_svg, key_values, page, text_table, warnings_section, INDEX_HTML};
use super::render::Drawable;
use super::PlotError;
use crate::analysis::noise_report;
use crate::records::host_list::folded;
use crate::records::noise::NoiseRun;
use crate::records::provenance::printable;
use maud::html;
use std::path::{Path, PathBuf};

/// The noise run's identity as (name, value) rows: what ran where, for how long, on which
/// global clock.
fn identity(run: &NoiseRun) -> Vec<(String, String)> {
    let h = &run.header;
    let rtt = h.clock_min_rtt_s.iter().copied().fold(0.0, f64::max);
    let mut rows = vec![
        ("delaybench", h.tool_version.clone()),
        ("command", h.command_line.join(" ")),
        ("started (UTC)", h.start_utc.clone()),
        ("MPI library", h.mpi_library.clone()),
        ("ranks", h.world_size.to_string()),
        ("hosts", folded(&h.hosts)),
        (
            "loop",
            if h.quantum_s > 0.0 {
                format!("{}, quantum {:.1} µs", h.variant, h.quantum_s * 1e6)
            } else {
                h.variant.clone()
            },
        ),
        ("duration per rank", format!("{} s", h.duration_s)),
        ("threshold", format!("{:.1} µs", h.threshold_s * 1e6)),
        (
            "clock",
            format!(
                "{} (resolution {:e} s); synchronised by {}, largest of the ranks' smallest \
                 round trips to rank 0 {:.1} µs",
                h.clock.source,
                h.clock.resolution_s,
                h.clock_sync,
                rtt * 1e6
            ),
        ),
    ];
    if let Some(spec) = &h.injected {
        rows.push(("injected detours", spec.clone()));
    }
    rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The HTML of the noise page of `run` with `figures`, whose SVGs are read from `dir`
/// (written there just before).
///
/// Errors: [`PlotError::Write`] naming a figure's SVG that cannot be read.
pub fn noise_html(run: &NoiseRun, figures: &[Drawable], dir: &Path) -> Result<String, PlotError> {
    let svgs = figures
        .iter()
        .map(|f| inline_svg(f, dir))
        .collect::<Result<Vec<_>, _>>()?;
    let report = noise_report(&run.ranks);
    let mut table = crate::export::noise_table(&report);
    table.notes = vec![
        "per s: detours per second per rank; lost %: share of the ranks' time in detours;".into(),
        "correlated %: share of detour time overlapping another rank's detour, by chance %:".into(),
        "what independent noise would overlap by chance (docs/noise.md, \"Correlated share\")."
            .into(),
    ];
    // Every scope's detours are drawn in both figures.
    let links: Vec<(String, String)> = figures
        .iter()
        .map(|f| (f.stem().to_string(), f.stem().replace('_', " ")))
        .collect();
    let links = vec![links; table.rows.len()];
    let warnings = run
        .footer
        .as_ref()
        .map(|f| f.warnings.clone())
        .unwrap_or_default();
    let h = &run.header;
    let header = html! {
        header {
            h1 { "delaybench noise" }
            p.identity {
                (printable(&h.variant)) " loop for " (h.duration_s) " s on " (h.world_size)
                " ranks (" (printable(&folded(&h.hosts))) "), detours above "
                (format!("{:.1}", h.threshold_s * 1e6)) " µs, " (printable(&h.mpi_library))
                ", started " (printable(&h.start_utc)) "."
            }
            nav aria-label="sections" {
                a href="#warnings" { "Warnings" } " · " a href="#report" { "Report" }
                " · " a href="#figures" { "Figures" } " · " a href="#run" { "Run" }
            }
        }
    };
    let main = html! {
        main {
            (warnings_section(&warnings))
            section #report {
                h2 { "The noise" }
                (text_table(
                    "noise-table",
                    "Detours above the threshold per rank, per host and in total: how often, \
                     how much time they took, their lengths (µs) and how much of it other \
                     ranks shared.",
                    &table,
                    Some(&links),
                ))
                h3 { "Sources" }
                @if h.sources.is_empty() { p { "None named." } }
                @else { ul { @for s in &h.sources { li { (printable(s)) } } } }
            }
            section #figures {
                h2 { "Figures" }
                @if figures.is_empty() { p { "No figure: no rank had a detour above the threshold." } }
                @for (f, svg) in figures.iter().zip(&svgs) { (figure(f, svg, true)) }
            }
            section #run {
                h2 { "Run" }
                (key_values("What was measured, where and how", &identity(run)))
            }
        }
    };
    Ok(page(
        &format!("delaybench noise, {}", h.start_utc),
        &h.tool_version,
        header,
        main,
    ))
}

/// Writes [`noise_html`] to `dir/index.html` (`dir` must exist) and returns its path.
///
/// Errors: [`PlotError::Write`] naming the file (or an SVG it could not read).
pub fn write_noise_page(
    run: &NoiseRun,
    figures: &[Drawable],
    dir: &Path,
) -> Result<PathBuf, PlotError> {
    let page = noise_html(run, figures, dir)?;
    super::index::write_page(dir.join(INDEX_HTML), &page)
}
