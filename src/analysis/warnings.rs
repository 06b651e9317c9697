//! The run's warnings, for every output that shows its numbers (`analyze`, `compare`, figure
//! subtitles): what the run printed (clock disagreement at the end, shared cores), what the
//! header shows (oversubscribed hosts) and whether the run was interrupted.

use crate::records::Records;

/// Warnings about the run in `records`, each one sentence, in this order: interrupted run,
/// oversubscribed hosts (from the header's per-host ranks and cores), then the warnings the
/// run itself recorded in its footer (clock disagreement, shared cores, ...). Duplicates are
/// left out. Empty for a clean run.
pub fn run_warnings(records: &Records) -> Vec<String> {
    let mut out = Vec::new();
    if !records.complete() {
        out.push(format!(
            "interrupted run: {} complete blocks recovered, the rest is missing",
            records.blocks.len()
        ));
    }
    let crowded: Vec<String> = records
        .header
        .wait
        .hosts
        .iter()
        .filter(|h| h.ranks > h.cores)
        .map(|h| format!("{} ({} ranks on {} cores)", h.host, h.ranks, h.cores))
        .collect();
    if !crowded.is_empty() {
        out.push(format!(
            "oversubscribed: {}; ranks shared cores, so times include waiting for a core",
            crowded.join(", ")
        ));
    }
    for w in records.footer.iter().flat_map(|f| &f.warnings) {
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::{testdata, Footer, HostLoad};

    fn records() -> Records {
        Records {
            header: testdata::header(4),
            blocks: vec![testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 1e-5)],
            footer: Some(Footer {
                end_offsets_s: vec![0.0; 4],
                offset_change_s: vec![0.0; 4],
                max_abs_offset_change_s: 0.0,
                wall_time_s: 1.0,
                warnings: vec![],
            }),
            truncated: false,
        }
    }

    #[test]
    fn a_clean_run_has_none() {
        assert!(run_warnings(&records()).is_empty());
    }

    #[test]
    fn oversubscription_interruption_and_footer_warnings() {
        let mut r = records();
        r.header.wait.hosts = vec![HostLoad {
            host: "node0".into(),
            ranks: 4,
            cores: 2,
        }];
        let clock = "global clocks were up to 3.00 us apart".to_string();
        r.footer.as_mut().unwrap().warnings = vec![clock.clone(), clock.clone()];
        let w = run_warnings(&r);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("node0 (4 ranks on 2 cores)"), "{w:?}");
        assert_eq!(w[1], clock);
        r.footer = None;
        let w = run_warnings(&r);
        assert!(
            w[0].starts_with("interrupted run: 1 complete blocks"),
            "{w:?}"
        );
    }
}
