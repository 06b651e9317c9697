//! The run's identity line under every figure's subtitle: MPI library, hosts, date, late
//! ranks, repetitions and how processes and clocks were synchronised, so that a PNG on a
//! slide still says what was measured where.

use super::layout::PART_SEP;
use crate::records::provenance::library_line;
use crate::records::Header;

/// Host names listed in full before the rest are counted.
const MAX_HOST_NAMES: usize = 3;
/// Characters of the MPI library's name kept.
const MAX_LIBRARY_CHARS: usize = 40;

/// The identity line of a run with header `h` pooled from `launches` records files: parts
/// joined by [`PART_SEP`], e.g. `Open MPI v4.1.4 · 1 host: node0 · 2026-11-25 06:20 UTC ·
/// late: rank 0 · nrep 50 · window sync, clock sync hca3`.
pub fn run_context(h: &Header, launches: usize) -> String {
    let plan = &h.plan;
    let late = plan.delay_ranks.to_string();
    let late = match late.as_str() {
        "all" => "late: every rank (noise)".to_string(),
        s if s.chars().all(|c| c.is_ascii_digit()) => format!("late: rank {s}"),
        s => format!("late: ranks {s}"),
    };
    let nrep = match &plan.adaptive {
        Some(_) => format!("nrep {} (adaptive)", plan.nrep),
        None => format!("nrep {}", plan.nrep),
    };
    let sync = clap::ValueEnum::to_possible_value(&plan.sync)
        .map(|v| v.get_name().to_string())
        .unwrap_or_else(|| format!("{:?}", plan.sync).to_lowercase());
    let mut parts = vec![
        short_library(&h.mpi_library),
        hosts(&h.hosts),
        date(&h.start_utc),
        late,
        nrep,
        format!("{sync} sync, clock sync {}", h.clock_sync.method),
    ];
    if let Some(d) = &plan.detour {
        parts.push(format!("detours {d}"));
    }
    if launches > 1 {
        parts.push(format!("{launches} launches pooled"));
    }
    parts.retain(|p| !p.is_empty());
    parts.join(PART_SEP)
}

/// The MPI library in a few words: its one line ([`library_line`]: no NUL or other control
/// character) up to its first comma (`Open MPI v4.1.4`), MPICH's `Version:` field joined
/// (`MPICH 4.2.0`), cut to [`MAX_LIBRARY_CHARS`].
pub fn short_library(full: &str) -> String {
    let line = library_line(full);
    let first = line.as_str();
    let name = match first.split_once("Version:") {
        Some((name, version)) => format!("{} {}", name.trim(), version.trim()),
        None => first.split(',').next().unwrap_or("").trim().to_string(),
    };
    let name = if name.is_empty() {
        "MPI library unknown".to_string()
    } else {
        name
    };
    if name.chars().count() > MAX_LIBRARY_CHARS {
        let cut: String = name.chars().take(MAX_LIBRARY_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        name
    }
}

/// `1 host: node0`, `4 hosts: n01, n02, n03 +1`: the distinct hosts of the ranks in order of
/// first rank, names cut at their first dot.
pub fn hosts(per_rank: &[String]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for h in per_rank {
        let short = h.split('.').next().unwrap_or(h);
        if !names.contains(&short) {
            names.push(short);
        }
    }
    if names.is_empty() {
        return String::new();
    }
    let n = names.len();
    let s = if n == 1 { "" } else { "s" };
    let shown = names[..n.min(MAX_HOST_NAMES)].join(", ");
    if n > MAX_HOST_NAMES {
        format!("{n} host{s}: {shown} +{}", n - MAX_HOST_NAMES)
    } else {
        format!("{n} host{s}: {shown}")
    }
}

/// `2026-11-25 06:20 UTC` of an RFC 3339 time; the text as it is when it is not one.
fn date(rfc3339: &str) -> String {
    match (rfc3339.get(..10), rfc3339.get(11..16)) {
        (Some(day), Some(hm)) if rfc3339.as_bytes().get(10) == Some(&b'T') => {
            format!("{day} {hm} UTC")
        }
        _ => rfc3339.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    #[test]
    fn names_library_hosts_date_late_ranks_nrep_and_sync() {
        let mut h = testdata::header(4);
        h.mpi_library = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4\nmore".into();
        h.hosts = ["a.example.org", "a.example.org", "b", "c", "d"]
            .map(String::from)
            .to_vec();
        h.start_utc = "2026-11-25T06:20:31.123Z".into();
        let c = run_context(&h, 1);
        for want in [
            "Open MPI v4.1.4",
            "4 hosts: a, b, c +1",
            "2026-11-25 06:20 UTC",
            "late: rank 0",
            &format!("nrep {}", h.plan.nrep),
            "window sync, clock sync",
        ] {
            assert!(c.contains(want), "{want:?} not in {c:?}");
        }
        assert!(!c.contains("pooled"));
        assert!(run_context(&h, 3).contains("3 launches pooled"));
    }

    #[test]
    fn library_names_are_short() {
        assert_eq!(
            short_library("MPICH Version:\t4.2.0\nMPICH Release date: x"),
            "MPICH 4.2.0"
        );
        assert_eq!(short_library(""), "MPI library unknown");
        assert_eq!(short_library("Open MPI v5\0\x1b, x"), "Open MPI v5");
        assert_eq!(short_library(&"x".repeat(100)).chars().count(), 40);
        assert_eq!(hosts(&["n1".into()]), "1 host: n1");
    }
}
