//! The analysis as a Markdown table (`delaybench analyze --format markdown`), for reports,
//! issues and READMEs.

use super::summary_table::{grouped_rows, headers, notes};
use super::ExportError;
use crate::analysis::Analysis;
use std::io::Write;

/// The rows and columns of the table summary as a GitHub-flavoured Markdown table,
/// followed by its notes as a list (warnings in bold): the summary of
/// [`super::formats::Markdown`].
///
/// Errors: [`ExportError::Io`] when writing fails.
pub(super) fn write_summary_markdown(a: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
    super::write_markdown_table(&headers(a), &grouped_rows(a), out)?;
    if let Some((title, head, rows)) = super::summary_table::reference_table(a) {
        writeln!(out, "\n{title}\n")?;
        super::write_markdown_table(&head, &rows, out)?;
    }
    if let Some((title, head, rows)) = super::summary_table::replay_patterns(a) {
        writeln!(out, "\n{title}\n")?;
        super::write_markdown_table(&head, &rows, out)?;
    }
    writeln!(out)?;
    for line in notes(a) {
        if let Some(w) = line.strip_prefix("warning: ") {
            writeln!(out, "- **warning:** {w}")?;
        } else if let Some(more) = line.strip_prefix("  ") {
            // Continues the previous note: same list item.
            writeln!(out, "  {more}")?;
        } else {
            writeln!(out, "- {line}")?;
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{analysis, text};

    #[test]
    fn a_markdown_table_with_notes() {
        let mut a = analysis();
        a.warnings = vec!["oversubscribed: node0".into()];
        let out = text(|buf| write_summary_markdown(&a, buf));
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].starts_with("| op | size | P | hosts | delay |"),
            "{}",
            lines[0]
        );
        assert!(lines[1].starts_with("|---|"), "{}", lines[1]);
        // Header, separator, three rows, each with the same number of cells.
        let pipes = lines[0].matches('|').count();
        for l in &lines[..5] {
            assert_eq!(l.matches('|').count(), pipes, "{l}");
        }
        assert!(
            lines[3].starts_with("| allreduce | 8B | 2 | 1 | 50us |"),
            "{}",
            lines[3]
        );
        assert!(
            out.contains("- **warning:** oversubscribed: node0"),
            "{out}"
        );
    }
}
