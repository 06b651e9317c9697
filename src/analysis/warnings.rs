//! The run's warnings, for every output that shows its numbers (`analyze`, `compare`, figure
//! subtitles): what the run printed (clock disagreement at the end, shared cores), whether it
//! was interrupted, and then what the header shows (oversubscribed hosts, Slurm ranks sharing
//! cores).

use super::LaunchDigest;
use crate::records::{Header, Records};

/// Warnings about the run in `records`, each one sentence: the warnings the run itself
/// recorded in its footer (clock disagreement at the end, shared cores per P, ...), duplicates
/// left out. An interrupted run has no footer: then it says so, and oversubscribed hosts are
/// found from the header's per-host ranks and cores instead. Empty for a clean run.
pub fn run_warnings(records: &Records) -> Vec<String> {
    launch_warnings(&LaunchDigest::of(records))
}

/// [`run_warnings`] of a launch read block by block.
pub fn launch_warnings(launch: &LaunchDigest) -> Vec<String> {
    let mut out = Vec::new();
    if !launch.complete {
        let partial = if launch.partial_block {
            " (the last one partial: the complete chunks of the block in flight)"
        } else {
            ""
        };
        out.push(format!(
            "interrupted run: {} complete blocks recovered{partial}, the rest is missing",
            launch.blocks.len()
        ));
    }
    out.extend(launch.verdicts.note());
    let Some(footer) = &launch.footer else {
        out.extend(oversubscribed(&launch.header));
        out.extend(
            launch
                .header
                .job
                .as_ref()
                .and_then(|j| j.shared_cpus_warning()),
        );
        return out;
    };
    for w in &footer.warnings {
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}

/// The header's hosts with more ranks than cores, as one warning.
fn oversubscribed(header: &Header) -> Option<String> {
    let crowded: Vec<String> = header
        .wait
        .hosts
        .iter()
        .filter(|h| h.ranks > h.cores)
        .map(|h| format!("{} ({} ranks on {} cores)", h.host, h.ranks, h.cores))
        .collect();
    (!crowded.is_empty()).then(|| {
        format!(
            "oversubscribed: {}; ranks shared cores, so times include waiting for a core",
            crowded.join(", ")
        )
    })
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
    fn an_interrupted_slurm_run_whose_ranks_share_a_core_says_so() {
        let mut r = records();
        r.footer = None;
        let rank = |host: &str, cpus: &str| crate::records::RankPlacement {
            host: host.into(),
            cpus: cpus.into(),
            ..Default::default()
        };
        r.header.job = Some(crate::records::JobInfo {
            scheduler: "slurm".into(),
            ranks: vec![
                rank("n0", "0"),
                rank("n0", "0"),
                rank("n1", "0"),
                rank("n1", "1"),
            ],
            ..Default::default()
        });
        let w = run_warnings(&r);
        assert!(
            w.iter()
                .any(|w| w
                    .contains("under Slurm, ranks share cores (n0: ranks 0 and 1 share CPU 0)")),
            "{w:?}"
        );
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
            cpus: "0-1".into(),
            cores_from: "affinity".into(),
        }];
        let clock = "global clocks were up to 3.00 us apart".to_string();
        r.footer.as_mut().unwrap().warnings = vec![clock.clone(), clock.clone()];
        // A complete run recorded its own (per-P) warnings: they are repeated once each.
        assert_eq!(run_warnings(&r), [clock]);
        // Interrupted: no footer, so the header tells about the crowded host.
        r.footer = None;
        let w = run_warnings(&r);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("interrupted run: 1 complete blocks"),
            "{w:?}"
        );
        assert!(w[1].contains("node0 (4 ranks on 2 cores)"), "{w:?}");
    }
}
