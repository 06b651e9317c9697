//! `table`: the plain ASCII table of every delaybench command, for a terminal or a log.

use super::super::{ExportError, MarkupExporter};
use crate::analysis::Analysis;
use comfy_table::{presets, CellAlignment, ContentArrangement, Table as Grid, TableComponent};
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
    write_plain_table_within(headers, rows, None, out)
}

/// [`write_plain_table`] at most `width` columns wide when given: cells wrap at spaces
/// (comfy-table's dynamic arrangement) rather than widening the table past the terminal.
///
/// Errors: [`ExportError::Io`] when writing fails.
pub fn write_plain_table_within<H: ToString>(
    headers: &[H],
    rows: Vec<Vec<String>>,
    width: Option<usize>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut table = Grid::new();
    if let Some(w) = width {
        table
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(w).unwrap_or(u16::MAX));
    }
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

#[cfg(test)]
mod width_tests {
    use super::*;

    #[test]
    fn a_table_given_a_width_wraps_cells_instead_of_passing_it() {
        let headers = ["op", "cost [CI] (us)", "verdict"];
        let rows = vec![vec![
            "allreduce".to_string(),
            "123456.78 [100000.12, 150000.34] and more words to wrap".to_string(),
            "costs the full delay and then some more words".to_string(),
        ]];
        let mut wide = Vec::new();
        write_plain_table(&headers, rows.clone(), &mut wide).unwrap();
        let widest = |b: &[u8]| {
            String::from_utf8(b.to_vec())
                .unwrap()
                .lines()
                .map(|l| l.chars().count())
                .max()
                .unwrap()
        };
        assert!(
            widest(&wide) > 60,
            "the unbounded table is wider than the bound"
        );
        let mut within = Vec::new();
        write_plain_table_within(&headers, rows, Some(60), &mut within).unwrap();
        assert!(
            widest(&within) <= 60,
            "{}",
            String::from_utf8_lossy(&within)
        );
        assert!(String::from_utf8_lossy(&within).contains("allreduce"));
    }
}
