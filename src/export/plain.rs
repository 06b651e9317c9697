//! Shared writers for row types: the plain table style of every delaybench table, and CSV,
//! TSV and JSON for any serialisable row.

use super::{ExportError, SummaryFormat};
use comfy_table::{presets, CellAlignment, Table, TableComponent};
use serde::Serialize;
use std::io::Write;

/// Writes `rows` under `headers` as plain ASCII with rules above, below and under the header,
/// no vertical lines, first column left-aligned and the others right-aligned: safe in any log.
pub fn write_plain_table<H: ToString>(
    headers: &[H],
    rows: Vec<Vec<String>>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut table = Table::new();
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

/// Writes `rows` in `format`: CSV, TSV and JSON from their serde fields, the table from `cells` of
/// each row under `headers`.
pub fn write_rows<T: Serialize>(
    rows: &[T],
    format: SummaryFormat,
    headers: &[&str],
    cells: impl Fn(&T) -> Vec<String>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    match format {
        SummaryFormat::Csv => write_csv_rows(rows, out),
        SummaryFormat::Tsv => write_tsv_rows(None, rows, out),
        SummaryFormat::Json => write_json_rows(rows, out),
        SummaryFormat::Table => write_plain_table(headers, rows.iter().map(cells).collect(), out),
        SummaryFormat::Markdown => {
            write_markdown_table(headers, &rows.iter().map(cells).collect::<Vec<_>>(), out)
        }
    }
}

/// Writes `rows` under `headers` as a GitHub-flavoured Markdown table: line breaks in headers
/// become spaces (a hyphen before one joins the word), `|` in cells is escaped, numeric columns (all but the first) right-aligned.
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

/// Writes `rows` as CSV with a header from the field names.
pub fn write_csv_rows<T: Serialize>(rows: &[T], out: &mut dyn Write) -> Result<(), ExportError> {
    let mut w = csv::Writer::from_writer(out);
    for row in rows {
        w.serialize(row)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes `rows` as tab-separated values: a header line, `columns` when given (their serde
/// field names, in order, so that no rows still give a header) or else the field names, then
/// one line per row. Only a cell holding a tab, a quote or a line break is quoted (none of
/// delaybench's numbers, names or flags does), so `awk -F'\t'` splits each line into the
/// header's fields.
///
/// Errors: [`ExportError::Csv`] when writing fails.
pub fn write_tsv_rows<T: Serialize>(
    columns: Option<&[&str]>,
    rows: &[T],
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .has_headers(columns.is_none())
        .from_writer(out);
    if let Some(columns) = columns {
        w.write_record(columns)?;
    }
    for row in rows {
        w.serialize(row)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes `rows` as a pretty JSON array.
pub fn write_json_rows<T: Serialize>(rows: &[T], out: &mut dyn Write) -> Result<(), ExportError> {
    serde_json::to_writer_pretty(&mut *out, rows)?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        op: &'static str,
        t_s: Option<f64>,
        lo_s: f64,
    }

    #[test]
    fn any_table_as_tsv_has_one_field_per_column() {
        let rows = [
            Row {
                op: "bcast",
                t_s: Some(1.5e-6),
                lo_s: 1e-6,
            },
            Row {
                op: "reduce",
                t_s: None,
                lo_s: 2e-6,
            },
        ];
        let mut out = Vec::new();
        write_rows(&rows, SummaryFormat::Tsv, &[], |_| Vec::new(), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(
            lines,
            [
                vec!["op", "t_s", "lo_s"],
                vec!["bcast", "1.5e-6", "1e-6"],
                vec!["reduce", "", "2e-6"],
            ]
        );
    }
}
