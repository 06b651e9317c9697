//! `markdown`: a GitHub-flavoured Markdown table, for reports, issues and READMEs.

use super::super::{ExportError, MarkupExporter};
use crate::analysis::Analysis;
use std::io::Write;

/// The table's rows and columns as a GitHub-flavoured Markdown table.
#[derive(Debug, Clone, Copy, Default)]
pub struct Markdown;

impl MarkupExporter for Markdown {
    fn table(
        &self,
        headers: &[String],
        rows: &[Vec<String>],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        write_markdown_table(headers, rows, out)
    }

    fn summary(&self, a: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
        super::super::summary_markdown::write_summary_markdown(a, out)
    }
}

/// Writes `rows` under `headers` as a GitHub-flavoured Markdown table: line breaks in headers
/// become spaces (a hyphen before one joins the word), `|` in cells is escaped, numeric
/// columns (all but the first) right-aligned.
///
/// Errors: [`ExportError::Io`] when writing fails.
pub fn write_markdown_table<H: ToString>(
    headers: &[H],
    rows: &[Vec<String>],
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let line = |cells: &mut dyn Iterator<Item = String>| {
        let cells: Vec<String> = cells.map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |", cells.join(" | "))
    };
    let head = headers
        .iter()
        .map(|h| h.to_string().replace("-\n", "").replace('\n', " "));
    writeln!(out, "{}", line(&mut head.into_iter()))?;
    let rule: Vec<&str> = (0..headers.len())
        .map(|i| if i == 0 { "---" } else { "--:" })
        .collect();
    writeln!(out, "|{}|", rule.join("|"))?;
    for row in rows {
        writeln!(out, "{}", line(&mut row.iter().cloned()))?;
    }
    out.flush()?;
    Ok(())
}
