//! The report page a browser opens: `index.html` beside `index.md`, one self-contained file
//! (every figure's SVG inline, the style inline, no script or font fetched from anywhere) that
//! opens from a `file://` URL on a login node or as an e-mail attachment. It holds what
//! `index.md` holds, laid out for reading: the run's identity line and warnings first, the answer
//! table (the terminal's rows and verdicts, sortable by a column when scripts run, each row
//! linked to the figures of its delay), then every figure with its caption as its accessible
//! name, the run's whole metadata and the folder's files. Tables are semantic (`caption`, `thead`, `th scope`), meaning never rests on colour
//! (verdicts are words, series differ by dashes and markers), and a print stylesheet lays the
//! page out on paper. The markup is written with maud, which escapes every value spliced in.

use super::index::{answer_note, caption, form_differences, run_rows};
use super::naming::model_stems;
use super::render::Drawable;
use super::{PlotError, RunData, Stat};
use crate::export::TextTable;
use crate::records::provenance::printable;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use std::path::{Path, PathBuf};

/// Name of the report page for a browser in a run's folder.
pub const INDEX_HTML: &str = "index.html";

/// What a command says on stderr of a file it wrote into a report's folder (after
/// `delaybench: `): `report page: PATH` for the page, `figure PATH` for a figure.
pub fn announce(path: &Path) -> String {
    if path.ends_with(INDEX_HTML) {
        format!("report page: {}", path.display())
    } else {
        format!("figure {}", path.display())
    }
}

/// The figure prefixes a row of the answer table links to: its delay's benefit against P,
/// timeline and distribution of the per-repetition benefit.
const ROW_FIGURES: [(&str, &str); 3] = [
    ("benefit_vs_p", "benefit vs P"),
    ("timeline", "timeline"),
    ("benefit_distribution", "distribution"),
];

/// The figure prefixes a row of the sampled-delay distribution table links to.
const DISTRIBUTION_FIGURES: [(&str, &str); 2] = [
    ("benefit_distribution", "distribution"),
    ("noise_amplification", "noise amplification"),
];

/// The page's style: plain, black on white, readable printed in grey.
const STYLE: &str = include_str!("html/page.css");

/// The answer table's sorting: buttons added to the headers when scripts run; without
/// scripts the table stays as it is, in the terminal's order.
const SORT_SCRIPT: &str = include_str!("html/sort.js");

/// The HTML of the report page of `data` with `figures`, whose SVGs are read from `dir`
/// (written there just before); `others` are the folder's other files by name.
///
/// Errors: [`PlotError::Write`] naming a figure's SVG that cannot be read.
pub fn index_html(
    data: &RunData,
    figures: &[Drawable],
    stat: Stat,
    dir: &Path,
    others: &[String],
) -> Result<String, PlotError> {
    let svgs = figures
        .iter()
        .map(|f| inline_svg(f, dir))
        .collect::<Result<Vec<_>, _>>()?;
    let h = &data.run.launch.header;
    let p = &h.provenance;
    let (differences, level) = form_differences(data);
    // The page's statistics are the default ones, as `plot` computes them.
    let margin = crate::analysis::DEFAULT_MARGIN;
    let answer = crate::export::headline(&data.stats, &differences, level, margin);
    let delays = data.delays();
    let stems: Vec<&str> = figures.iter().map(Drawable::stem).collect();
    // Per row, the figures of its delay that were drawn.
    let row_links = |r: &crate::analysis::ConfigStats| -> Vec<(String, String)> {
        let Some(i) = delays
            .iter()
            .position(|k| r.delay_s > 0.0 && k.matches(&r.delay_model, r.delay_s))
        else {
            return Vec::new();
        };
        ROW_FIGURES
            .iter()
            .map(|(prefix, what)| (model_stems(prefix, &delays)[i].clone(), what.to_string()))
            .filter(|(stem, _)| stems.contains(&stem.as_str()))
            .collect()
    };
    // Sampled delays have no single benefit: their distribution follows the answer, as it
    // follows the summary in the terminal, each row linked to its model's figures.
    let sampled = data
        .run
        .launch
        .blocks
        .iter()
        .any(|b| b.delay_s > 0.0 && !b.late_arrival);
    let distribution = sampled.then(|| crate::export::distribution_table(&data.run.distribution));
    let distribution_links: Vec<Vec<(String, String)>> = data
        .run
        .distribution
        .iter()
        .map(|r| {
            let Some(i) = delays.iter().position(|k| k.model == r.delay_model) else {
                return Vec::new();
            };
            DISTRIBUTION_FIGURES
                .iter()
                .map(|(prefix, what)| (model_stems(prefix, &delays)[i].clone(), what.to_string()))
                .filter(|(stem, _)| stems.contains(&stem.as_str()))
                .collect()
        })
        .collect();
    let title = format!("delaybench run {}", printable(&p.run_id));
    let tags = crate::records::provenance::tags_cell(&p.tags);
    let header = html! {
                header {
                    h1 { "delaybench run" }
                    p.identity {
                        "Run " code { (printable(&p.run_id)) } ", delaybench "
                        (printable(&h.tool_version)) " at git revision "
                        code { (printable(&p.git_revision)) }
                        @if p.git_dirty == Some(true) { " (with local changes)" }
                        "; " (printable(&data.context.replace(super::layout::PART_SEP, "; ")))
                        "; tags: " @if tags.is_empty() { "none" } @else { (printable(&tags)) } "."
                    }
                    nav aria-label="sections" {
                        a href="#warnings" { "Warnings" } " · " a href="#answer" { "The answer" }
                        @if distribution.is_some() { " · " a href="#distribution" { "Distribution" } }
                        " · " a href="#figures" { "Figures" } " · " a href="#run" { "Run" }
                        " · " a href="#files" { "Files" }
                    }
                }
    };
    let main = html! {
                main {
                    (warnings_section(&data.warnings))
                    section #answer {
                        h2 { "The answer" }
                        div.scroll {
                            table.answer.sortable #answer-table {
                                caption {
                                    "Per configuration: what the undelayed call took, what the \
                                     late arrival cost and which share of the delay was hidden. \
                                     Blocking and nonblocking forms of one configuration are \
                                     adjacent rows."
                                }
                                thead {
                                    tr {
                                        @for head in &answer.headers {
                                            th scope="col" { (header_text(head)) }
                                        }
                                        th scope="col" { "figures" }
                                    }
                                }
                                tbody {
                                    @for (r, cells) in &answer.rows {
                                        tr {
                                            @for (i, c) in cells.iter().enumerate() {
                                                @let key = sort_key(i, r);
                                                @if i == 0 {
                                                    th scope="row" data-sort=[key] { (printable(c)) }
                                                } @else {
                                                    td data-sort=[key] { (printable(c)) }
                                                }
                                            }
                                            td { (figure_links(&row_links(r))) }
                                        }
                                    }
                                }
                            }
                        }
                        @if !answer.families.is_empty() {
                            h3 { "Blocking and nonblocking forms side by side" }
                            ul { @for line in &answer.families { li { (printable(line)) } } }
                        }
                        p.note { (answer_note()) }
                    }
                    @if let Some(t) = &distribution {
                        section #distribution {
                            h2 { "Sampled delays: the per-repetition benefit" }
                            (text_table(
                                "distribution-table",
                                "Per configuration with a sampled delay: the distribution of \
                                 the per-repetition delay overlap benefit b (percent) and the \
                                 noise amplification, as the terminal prints them after the \
                                 summary.",
                                t,
                                Some(&distribution_links),
                            ))
                        }
                    }
                    section #figures {
                        h2 { "Figures" }
                        @for (f, svg) in figures.iter().zip(&svgs) { (figure(f, svg, true)) }
                    }
                    section #run {
                        h2 { "Run" }
                        (key_values("What was measured, where and how", &run_rows(data, stat)))
                    }
                    section #files {
                        h2 { "Files" }
                        ul {
                            @for name in others {
                                li { a href=(name) { (name) } }
                            }
                            @for f in figures {
                                li {
                                    a href=(format!("{}.png", f.stem())) { (f.stem()) ".png" } ", "
                                    a href=(format!("{}.svg", f.stem())) { (f.stem()) ".svg" } ": "
                                    (printable(f.title()))
                                }
                            }
                        }
                    }
                }
    };
    Ok(page(&title, &h.tool_version, header, main))
}

/// The whole page: `header` and `main` in a body with the style and the sorting script
/// inline, titled `title`, naming the delaybench `version` that wrote it.
pub(super) fn page(title: &str, version: &str, header: Markup, main: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content=(format!("delaybench {}", printable(version)));
                title { (printable(title)) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                (header)
                (main)
                script { (PreEscaped(SORT_SCRIPT)) }
            }
        }
    }
    .into_string()
}

/// A column header's text: a line break between its name and its unit, as in the terminal.
pub(super) fn header_text(head: &str) -> Markup {
    html! {
        @for (i, part) in head.split('\n').enumerate() {
            @if i > 0 { br; }
            (part)
        }
    }
}

/// A figure with its inline SVG (from [`inline_svg`]) and its caption, linked as
/// `#fig-{stem}`, with links to its PNG and SVG files when `files` (they are beside a run's
/// page, not beside a comparison page).
pub(super) fn figure(f: &Drawable, svg: &str, files: bool) -> Markup {
    html! {
        figure id=(format!("fig-{}", f.stem())) {
            (PreEscaped(svg))
            figcaption {
                strong { (printable(f.title())) } ". "
                (printable(&caption(f))) "."
                @if files {
                    " " a href=(format!("{}.png", f.stem())) { "PNG" } ", "
                    a href=(format!("{}.svg", f.stem())) { "SVG" }
                }
            }
        }
    }
}

/// The value a column of the answer table sorts by where its text would sort wrongly: the
/// size in bytes (`1KiB` after `8B`), P as a number, the delay in seconds.
fn sort_key(column: usize, r: &crate::analysis::ConfigStats) -> Option<String> {
    match column {
        1 => Some(r.bytes.to_string()),
        2 => Some(r.nprocs.to_string()),
        3 => Some(format!("{:e}", r.delay_s)),
        _ => None,
    }
}

/// The figure's SVG from `dir` as markup to put inline ([`accessible_svg`]).
///
/// Errors: [`PlotError::Write`] naming the SVG when it cannot be read.
pub(super) fn inline_svg(f: &Drawable, dir: &Path) -> Result<String, PlotError> {
    let path = dir.join(format!("{}.svg", f.stem()));
    let svg = std::fs::read_to_string(&path).map_err(|e| PlotError::Write {
        path: path.clone(),
        reason: format!("cannot read it back for {INDEX_HTML}: {e}"),
    })?;
    accessible_svg(f, &svg).ok_or_else(|| PlotError::Write {
        path,
        reason: "not an SVG document with a whole opening tag".into(),
    })
}

/// The SVG document `svg` of figure `f` as markup to put inline: without an XML declaration,
/// with the figure's title and caption as its accessible name (`role="img"`, `aria-label` and
/// a `<title>`, an inline SVG's alt text). `None` when `svg` does not start with `<svg`.
pub(super) fn accessible_svg(f: &Drawable, svg: &str) -> Option<String> {
    let alt = format!("{}. {}.", printable(f.title()), printable(&caption(f)));
    let body = svg.trim_start();
    let body = match body.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(rest, |(_, r)| r).trim_start(),
        None => body,
    };
    let (attrs, inner) = body.strip_prefix("<svg")?.split_once('>')?;
    // maud escapes text; an attribute's quotes too.
    let alt_attr = html! { (alt) }.into_string().replace('"', "&quot;");
    let title = html! { title { (alt) } }.into_string();
    Some(format!(
        "<svg role=\"img\" aria-label=\"{alt_attr}\"{attrs}>{title}{inner}"
    ))
}

/// A table of (name, value) rows with `caption`, names as row headers.
pub(super) fn key_values(caption: &str, rows: &[(String, String)]) -> Markup {
    html! {
        table.meta {
            caption { (caption) }
            tbody {
                @for (k, v) in rows {
                    tr { th scope="row" { (printable(k)) } td { (printable(v)) } }
                }
            }
        }
    }
}

/// The page's first section: its warnings as the terminal says them, or "None.".
pub(super) fn warnings_section(warnings: &[String]) -> Markup {
    html! {
        section #warnings {
            h2 { "Warnings" }
            @if warnings.is_empty() { p { "None." } }
            @else {
                ul.warnings { @for w in warnings { li { "Warning: " (printable(w)) } } }
            }
        }
    }
}

/// A sortable table (`table.sortable`, id `id`) of the terminal's table `t` with `caption`,
/// each row's first cell its header, and its notes as a paragraph under it. With `links`
/// (one list per row, possibly empty) a last column links each row to the figures that
/// explain it: `(stem, what)` to `#fig-{stem}`.
pub(super) fn text_table(
    id: &str,
    caption: &str,
    t: &TextTable,
    links: Option<&[Vec<(String, String)>]>,
) -> Markup {
    html! {
        div.scroll {
            table.answer.sortable id=(id) {
                caption { (caption) }
                thead {
                    tr {
                        @for h in &t.headers { th scope="col" { (header_text(h)) } }
                        @if links.is_some() { th scope="col" { "figures" } }
                    }
                }
                tbody {
                    @for (i, cells) in t.rows.iter().enumerate() {
                        tr {
                            @for (j, c) in cells.iter().enumerate() {
                                @if j == 0 { th scope="row" { (printable(c)) } }
                                @else { td { (printable(c)) } }
                            }
                            @if let Some(links) = links {
                                td { (figure_links(links.get(i).map_or(&[][..], Vec::as_slice))) }
                            }
                        }
                    }
                }
            }
        }
        @if !t.notes.is_empty() { p.note { (printable(&t.notes.join(" "))) } }
    }
}

/// Links to figures on the page, `(stem, what)` as `what` to `#fig-{stem}`, comma-separated.
fn figure_links(links: &[(String, String)]) -> Markup {
    html! {
        @for (j, (stem, what)) in links.iter().enumerate() {
            @if j > 0 { ", " }
            a href=(format!("#fig-{stem}")) { (what) }
        }
    }
}

/// Writes [`index_html`] to `dir/index.html` and returns its path.
///
/// Errors: [`PlotError::Write`] naming the file (or an SVG it could not read).
pub fn write_index_html(
    data: &RunData,
    figures: &[Drawable],
    stat: Stat,
    dir: &Path,
) -> Result<PathBuf, PlotError> {
    let others = super::index::others_in(dir);
    let page = index_html(data, figures, stat, dir, &others)?;
    super::index::write_page(dir.join(INDEX_HTML), &page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn page_is_one_file_with_every_figure_inline_and_every_value_escaped() {
        let mut r = testdata::records(
            2,
            vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 8, 10e-6),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, 8, 10e-6),
            ],
        );
        r.header.mpi_library = "Evil <script>alert(1)</script> & MPI".into();
        let data = RunData::new(&r);
        let figs: Vec<Drawable> = super::super::FigureKind::ALL
            .iter()
            .flat_map(|&k| super::super::build(k, &data, Stat::Median))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        super::super::render::write_all(&figs, dir.path()).unwrap();
        let page = index_html(&data, &figs, Stat::Median, dir.path(), &[]).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
        // One SVG per figure, each with its title as its accessible name, nothing fetched.
        assert_eq!(
            page.matches("<svg role=\"img\" aria-label=").count(),
            figs.len()
        );
        for f in &figs {
            assert!(
                page.contains(&format!("id=\"fig-{}\"", f.stem())),
                "{}",
                f.stem()
            );
        }
        assert!(!page.contains("<?xml"));
        assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
        // The run's text is escaped: the only script is the page's own.
        assert_eq!(page.matches("<script>").count(), 1);
        assert!(page.contains("Evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; MPI"));
        // The delayed row links to the figures of its delay.
        assert!(page.contains("href=\"#fig-benefit_vs_p_50us\""), "{page}");
        assert!(page.contains("href=\"#fig-timeline_50us\""), "{page}");
        assert!(page.contains("<th scope=\"row\">allreduce</th>"), "{page}");
        assert!(page.contains("data-sort=\"8\""), "{page}");
    }

    #[test]
    fn a_missing_svg_is_named() {
        let r = testdata::records(2, vec![testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 1e-5)]);
        let data = RunData::new(&r);
        let figs = super::super::build(super::super::FigureKind::OverRun, &data, Stat::Median);
        assert!(!figs.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let err = index_html(&data, &figs, Stat::Median, dir.path(), &[]).unwrap_err();
        assert!(err.to_string().contains("t_global_over_run.svg"), "{err}");
    }
}
