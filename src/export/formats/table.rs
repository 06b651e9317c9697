//! `table`: the plain ASCII table of every delaybench command, for a terminal or a log.

use super::super::{ExportError, MarkupExporter};
use crate::analysis::Analysis;
use comfy_table::{presets, CellAlignment, Table as Grid, TableComponent};
use std::io::Write;

/// Plain ASCII with rules above, below and under the header, no vertical lines, first
/// column left-aligned and the others right-aligned: safe in any log. Not for parsing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Table;

impl MarkupExporter for Table {
    fn table(
        &self,
        headers: &[String],
        rows: &[Vec<String>],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        write_plain_table(headers, rows.to_vec(), out)
    }

    fn summary(&self, a: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
        // The answer at a glance; every column is `analyze --wide` (`write_summary_wide`).
        super::super::summary_narrow::write_narrow_summary(a, super::super::output_width(), out)
    }
}

/// Writes `rows` under `headers` as plain ASCII with rules above, below and under the header,
/// no vertical lines, first column left-aligned and the others right-aligned: safe in any log.
///
/// Errors: [`ExportError::Io`] when writing fails.
pub fn write_plain_table<H: ToString>(
    headers: &[H],
    rows: Vec<Vec<String>>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut table = Grid::new();
    // No colours or terminal-width probing: the output often goes to a file.
    table
        .load_preset(presets::ASCII_HORIZONTAL_ONLY)
        .force_no_tty()
        .set_header(headers.iter().map(|h| h.to_string()));
    // A rule under the header and around the table, none between rows.
    table
        .remove_style(TableComponent::HorizontalLines)
        .remove_style(TableComponent::MiddleIntersections);
    table.add_rows(rows);
    for (i, column) in table.column_iter_mut().enumerate() {
        // Without vertical lines, one space of padding on each side already separates
        // columns by three; one fewer keeps tables narrow.
        column.set_padding((1, 0));
        if i > 0 {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    writeln!(out, "{}", table.trim_fmt())?;
    out.flush()?;
    Ok(())
}
