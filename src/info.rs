//! `delaybench info FILE`: a records file's header made readable (plan, clock sync, wait and
//! window rules, provenance, tags), how many blocks it holds, and how the run ended (its
//! footer, or how much an interrupted run left). Read through the [`Timeline`] on the online
//! times: the command describes the file, it does not correct it. Plain Rust, no MPI.

use crate::export::Format;
use crate::records::host_list;
use crate::records::provenance::library_line;
use crate::records::{Footer, Header, RecordsError, SimulationCost};
use crate::timeline::{GlobalTimes, Timeline};
use crate::units::{format_bytes, format_duration};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// Name in every `info --format json` document.
pub const INFO_SCHEMA_NAME: &str = "delaybench-info";
/// Version of that document's layout.
pub const INFO_SCHEMA_VERSION: u32 = 1;

/// What `info` tells about one records file.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub schema: &'static str,
    pub schema_version: u32,
    /// The file as named on the command line.
    pub file: String,
    /// The header as recorded.
    pub header: Header,
    /// Complete blocks in the file (for an interrupted run, those recovered).
    pub blocks: usize,
    /// True when the run completed (the footer is there) and nothing was lost.
    pub complete: bool,
    /// True when the last block is the complete chunks of a block in flight.
    pub partial_block: bool,
    /// True when the file ended inside an item.
    pub truncated: bool,
    /// The footer (`None` for an interrupted run).
    pub footer: Option<Footer>,
}

impl RunInfo {
    /// Reads `path` once, block by block, holding one block at a time.
    ///
    /// Errors: those of [`Timeline::open`] and of reading its blocks (not a records file,
    /// damaged in its middle, unreadable).
    pub fn read(path: &Path) -> Result<RunInfo, RecordsError> {
        let mut timeline = Timeline::open(path, GlobalTimes::Online)?;
        for block in timeline.by_ref() {
            block?;
        }
        let end = timeline.end();
        Ok(RunInfo {
            schema: INFO_SCHEMA_NAME,
            schema_version: INFO_SCHEMA_VERSION,
            file: path.display().to_string(),
            header: end.header,
            blocks: end.blocks,
            complete: end.complete,
            partial_block: end.partial_block,
            truncated: end.truncated,
            footer: end.footer,
        })
    }

    /// The info of a launch already read into its digest (the end-of-run summary's), named
    /// `file`; `truncated` is not kept by a digest and is given as false.
    pub fn of_digest(file: &Path, launch: &crate::analysis::LaunchDigest) -> RunInfo {
        RunInfo {
            schema: INFO_SCHEMA_NAME,
            schema_version: INFO_SCHEMA_VERSION,
            file: file.display().to_string(),
            header: launch.header.clone(),
            blocks: launch.blocks.len(),
            complete: launch.complete,
            partial_block: launch.partial_block,
            truncated: false,
            footer: launch.footer.clone(),
        }
    }

    /// Writes the info to `out` in `format`: [`Format::Table`], labelled lines for reading
    /// (`--format table`, or `text`), or [`Format::Json`], one JSON object: the header as
    /// recorded, the block count and the footer ([`crate::export::INFO`]).
    ///
    /// Errors: writing to `out` failed; [`std::io::ErrorKind::InvalidInput`] for another
    /// format.
    pub fn write(&self, format: Format, out: &mut dyn Write) -> std::io::Result<()> {
        match format {
            Format::Table => out.write_all(self.text().as_bytes()),
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, self)?;
                out.write_all(b"\n")
            }
            other => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("info writes table or json, not {other:?}"),
            )),
        }
    }

    /// The info as labelled lines.
    pub fn text(&self) -> String {
        let h = &self.header;
        let p = &h.plan;
        let prov = &h.provenance;
        let list = |items: Vec<String>| items.join(", ");
        let mut rows: Vec<(&str, String)> = vec![
            ("file", self.file.clone()),
            (
                "run id",
                or_unknown(&prov.run_id, "(not recorded: written before run ids)"),
            ),
            ("started", h.start_utc.clone()),
            (
                "written by",
                format!(
                    "delaybench {} (git {}), records format {} v{}",
                    h.tool_version,
                    prov.revision_word(),
                    h.format,
                    h.format_version
                ),
            ),
            ("command", h.command_line.join(" ")),
            (
                "tags",
                if prov.tags.is_empty() {
                    "none".into()
                } else {
                    list(prov.tags.iter().map(|t| t.to_string()).collect())
                },
            ),
            ("MPI library", library_line(&h.mpi_library)),
            (
                "simulated",
                h.simulation.as_ref().map_or_else(
                    || "no (measured)".to_string(),
                    |s| format!("{}; SimGrid options: {}", s.line(), s.config.join(" ")),
                ),
            ),
            ("ranks", ranks_line(h)),
            ("ops", list(p.ops.iter().map(|o| o.to_string()).collect())),
            (
                "sizes",
                list(p.sizes.iter().map(|&b| format_bytes(b)).collect()),
            ),
            ("P", list(p.procs.iter().map(|n| n.to_string()).collect())),
            ("late ranks", p.delay_ranks.to_string()),
            ("delays", list(p.delays.iter().map(|d| d.label()).collect())),
            ("repetitions", format!("{} (+{} warm-up)", p.nrep, p.warmup)),
            ("process sync", format!("{:?}", p.sync).to_lowercase()),
            ("seed", p.seed.to_string()),
            (
                "clock",
                format!(
                    "{}, resolution {}, timer delay {}",
                    h.clock.source,
                    format_duration(h.clock.resolution_s),
                    format_duration(h.clock.timer_delay_s)
                ),
            ),
            ("clock sync", clock_sync_line(h)),
            (
                "drift tracking",
                match p.track_every_s {
                    Some(t) => format!("probes every {}", format_duration(t)),
                    None => "off".into(),
                },
            ),
            ("window", h.window_rule.clone()),
            (
                "wait",
                format!(
                    "{}; spin margin {}; late tolerance {}",
                    h.wait.rule,
                    format_duration(h.wait.spin_margin_s),
                    h.wait
                        .late_tolerance_s
                        .map_or("per strategy".into(), format_duration)
                ),
            ),
        ];
        // What each simulated P cost sits right under the `simulated` line; measured runs
        // and files written before costs were kept have none and print nothing here.
        if let Some(sim) = &h.simulation {
            let at = rows
                .iter()
                .position(|(k, _)| *k == "simulated")
                .map_or(rows.len(), |i| i + 1);
            rows.splice(at..at, sim.costs.iter().map(|c| ("  cost", cost_line(c))));
        }
        if let Some(d) = &p.detour {
            rows.push(("detours", d.to_string()));
        }
        if let Some(t) = &p.detour_noise_file {
            rows.push((
                "detour trace",
                format!(
                    "{} ({}, CRC-32C {:08x}, {} recorded ranks, {} long)",
                    t.path,
                    format!("{:?}", t.mode).to_lowercase(),
                    t.crc32c,
                    t.recorded_ranks,
                    format_duration(t.period_s)
                ),
            ));
        }
        match &h.job {
            Some(job) => {
                rows.extend(job.summary_rows(32));
                if let Some(w) = job.shared_cpus_warning() {
                    rows.push(("shared cores", w));
                }
            }
            None => rows.push(("job", "(not recorded)".into())),
        }
        if let Some(a) = &h.algorithms {
            // Only runs that set algorithms record them: the request, then every variable.
            rows.push((
                "algorithms",
                format!(
                    "{} ({}); decision pvars: {} of {}",
                    a.request,
                    a.library,
                    crate::plan::algorithms::decision_pvars_text(&a.decision_pvars),
                    a.pvars
                ),
            ));
            for c in &a.cvars {
                rows.push((
                    "algorithm cvar",
                    format!("{} = {} ({})", c.variable, c.name, c.value),
                ));
            }
        }
        rows.push(("p2p one-way", p2p_line(h)));
        if !h.transport.is_empty() {
            let vars: Vec<String> = h
                .transport
                .iter()
                .map(|v| format!("{}={}", v.name, v.value))
                .collect();
            rows.push(("transport", vars.join(", ")));
        }
        if let Some(c) = &h.call_entry {
            rows.push(("call entry", c.line()));
        }
        rows.push((
            "noise check",
            h.noise_check
                .as_ref()
                .map_or("not run".into(), |c| c.line()),
        ));
        if prov.machines.is_empty() {
            rows.push(("machines", "(not recorded)".into()));
        }
        for m in &prov.machines {
            let cores = match m.cores_physical {
                0 => format!("{} logical cores", m.cores_logical),
                n => format!("{n} physical / {} logical cores", m.cores_logical),
            };
            rows.push((
                "machine",
                format!(
                    "{}: {}; {}; {cores}{}",
                    m.host,
                    or_unknown(&m.kernel, "kernel unknown"),
                    or_unknown(&m.cpu_model, "CPU unknown"),
                    if m.thp.is_empty() {
                        String::new()
                    } else {
                        format!("; transparent huge pages {}", m.thp)
                    }
                ),
            ));
            for (k, v) in &m.env {
                rows.push(("  environment", format!("{k}={v}")));
            }
        }
        if h.study.is_some() {
            rows.push((
                "study file",
                "recorded (info --format json shows it)".into(),
            ));
        }
        rows.push(("blocks", self.blocks.to_string()));
        rows.push(("ended", self.ended()));
        if let Some(f) = &self.footer {
            for w in &f.warnings {
                rows.push(("warning", w.clone()));
            }
        }
        rows.iter().map(|(k, v)| format!("{k:<15} {v}\n")).collect()
    }

    /// How the run ended, in words.
    fn ended(&self) -> String {
        match &self.footer {
            Some(f) if self.complete => format!(
                "completed in {} (wall time on rank 0); largest clock offset change at the end \
                 {}; {} warning(s)",
                format_duration(f.wall_time_s),
                format_duration(f.max_abs_offset_change_s),
                f.warnings.len()
            ),
            _ => format!(
                "interrupted: no footer; {} complete block(s) recovered{}{}",
                self.blocks,
                if self.partial_block {
                    ", the last one partial"
                } else {
                    ""
                },
                if self.truncated {
                    "; the item in flight was lost"
                } else {
                    ""
                }
            ),
        }
    }
}

/// The `ranks` line: the world size and the hosts the run's ranks were placed on, hosts with
/// the same ranks and cores in one folded host list (`node[01-64] (16 ranks, 16 cores)`,
/// [`crate::records::host_list`]) so that a run on a thousand hosts still takes one line.
/// A simulated run has no such hosts (its ranks are SimGrid actors on the platform the
/// `simulated` line names), so it says that instead of "0 host(s)".
fn ranks_line(h: &Header) -> String {
    if h.wait.hosts.is_empty() {
        return if h.simulation.is_some() {
            format!(
                "{} (the largest P simulated; hosts as in the `simulated` line)",
                h.world_size
            )
        } else {
            format!("{}; hosts not recorded", h.world_size)
        };
    }
    // (ranks, cores) in order of their first host, each with its hosts.
    let mut groups: Vec<((u32, u32), Vec<String>)> = Vec::new();
    for l in &h.wait.hosts {
        let key = (l.ranks, l.cores);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, hosts)) => hosts.push(l.host.clone()),
            None => groups.push((key, vec![l.host.clone()])),
        }
    }
    format!(
        "{} on {} host(s): {}",
        h.world_size,
        h.wait.hosts.len(),
        groups
            .iter()
            .map(|((ranks, cores), hosts)| {
                format!(
                    "{} ({ranks} ranks, {cores} cores)",
                    host_list::folded(hosts)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The header of a noise file (`delaybench noise`) readably: what was measured where and how,
/// the sources of attribution, and how the run ended; the per-rank figures follow as
/// `delaybench noise` printed them (`crate::export::write_noise_report`).
pub fn noise_text(run: &crate::records::noise::NoiseRun) -> String {
    let h = &run.header;
    let mut rows: Vec<(&str, String)> = vec![
        (
            "kind",
            format!("noise file, format {} v{}", h.format, h.format_version),
        ),
        ("started", h.start_utc.clone()),
        ("written by", format!("delaybench {}", h.tool_version)),
        ("command", h.command_line.join(" ")),
        ("MPI library", library_line(&h.mpi_library)),
        (
            "ranks",
            format!(
                "{} on host(s) {}",
                h.world_size,
                host_list::folded(&h.hosts)
            ),
        ),
        ("clock sync", h.clock_sync.clone()),
        (
            "loop",
            format!(
                "{} for {}, detours above {}, quantum {}",
                h.variant,
                format_duration(h.duration_s),
                format_duration(h.threshold_s),
                format_duration(h.quantum_s)
            ),
        ),
    ];
    for s in &h.sources {
        rows.push(("source", s.clone()));
    }
    if let Some(i) = &h.injected {
        rows.push(("injected", i.clone()));
    }
    rows.push((
        "ended",
        match &run.footer {
            Some(f) => format!("completed in {}", format_duration(f.wall_time_s)),
            None => "interrupted (no footer): the detours up to then are kept".into(),
        },
    ));
    if let Some(f) = &run.footer {
        for w in &f.warnings {
            rows.push(("warning", w.clone()));
        }
    }
    rows.iter().map(|(k, v)| format!("{k:<15} {v}\n")).collect()
}

fn clock_sync_line(h: &Header) -> String {
    let s = &h.clock_sync;
    let largest_offset = s
        .models
        .iter()
        .map(|m| m.intercept_s.abs())
        .fold(0.0, f64::max);
    let params = if s.params.is_empty() {
        String::new()
    } else {
        format!(" ({})", s.params.join(", "))
    };
    format!(
        "{}{params} in {}; largest offset to rank 0 {}",
        s.method,
        format_duration(s.duration_s),
        format_duration(largest_offset)
    )
}

/// One simulated P's cost as `simulate` printed it while running (`src/simulate/progress.rs`):
/// `P = 1024: 2.8 s of wall time, peak memory 170 MB, 6 repetitions simulated` (MB =
/// 10^6 bytes, truncated like the progress line). Below a second the time keeps three
/// decimals, so the small P's of a cheap curve do not all read `0.0 s`.
fn cost_line(c: &SimulationCost) -> String {
    let decimals = if c.wall_time_s < 1.0 { 3 } else { 1 };
    format!(
        "P = {}: {:.*} s of wall time, peak memory {} MB, {} repetitions simulated",
        c.procs,
        decimals,
        c.wall_time_s,
        c.peak_memory_bytes / 1_000_000,
        c.simulated_repetitions
    )
}

fn or_unknown(s: &str, instead: &str) -> String {
    if s.is_empty() {
        instead.into()
    } else {
        s.into()
    }
}

/// The header's point-to-point one-way times (the lower bound of t_global adds them to the
/// last arrival), or why a file has none.
fn p2p_line(h: &Header) -> String {
    match (&h.p2p, &h.simulation) {
        (Some(p), _) => p.line(),
        (None, Some(_)) => "not measured (simulated run): no lower bound of t_global".into(),
        (None, None) if h.format_version < 3 => {
            "not recorded (format version 2): no lower bound of t_global".into()
        }
        (None, None) => "not measured: no lower bound of t_global".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{testdata, RecordsWriter};

    fn write(path: &Path, footer: bool) {
        let mut w = RecordsWriter::create(path).unwrap();
        w.write_header(&testdata::header(2)).unwrap();
        for delay in [0.0, 50e-6] {
            let b = testdata::block(crate::plan::Op::Allreduce, 8, 2, delay, 5, 10e-6);
            w.write_block(&b).unwrap();
        }
        if footer {
            w.finish(&testdata::footer(2)).unwrap();
        }
    }

    #[test]
    fn the_one_way_times_show_or_say_why_not() {
        let mut h = testdata::header(2);
        assert!(p2p_line(&h).starts_with("not measured"), "{}", p2p_line(&h));
        h.format_version = 2;
        assert!(p2p_line(&h).contains("format version 2"));
        h.p2p = Some(crate::records::P2pTimes {
            exchanges: 30,
            peers: vec![1],
            sizes: vec![crate::records::P2pSize {
                bytes: 8,
                one_way_s: vec![0.25e-6],
            }],
        });
        assert_eq!(
            p2p_line(&h),
            "min RTT/2 of 30 exchanges, rank 0 with each of 1 ranks: 8B 0.250 us"
        );
    }

    #[test]
    fn text_shows_plan_provenance_blocks_and_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.cbor");
        write(&path, true);
        let info = RunInfo::read(&path).unwrap();
        assert_eq!((info.blocks, info.complete), (2, true));
        let text = info.text();
        for want in [
            "run id          00000000-0000-4000-8000-000000000007",
            "(git 0123456789abcdef0123456789abcdef01234567)",
            "tags            system=test",
            "ops             allreduce, iallreduce",
            "clock sync      offset (nonimproving=100)",
            "machine         node0: Linux 6.1.0 #1 SMP x86_64; Example CPU; 2 physical / 4 logical cores; transparent huge pages madvise",
            "  environment   OMPI_MCA_btl=self,vader",
            "noise check     not run",
            "simulated       no (measured)",
            "job             (not recorded)",
            "blocks          2",
            "ended           completed in",
        ] {
            assert!(text.contains(want), "`{want}` missing from:\n{text}");
        }
        assert!(
            !text.contains("  cost "),
            "a measured run has no costs:\n{text}"
        );
    }

    #[test]
    fn an_interrupted_run_says_so_and_json_carries_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.cbor");
        write(&path, false);
        let info = RunInfo::read(&path).unwrap();
        assert!(!info.complete);
        assert!(info
            .text()
            .contains("interrupted: no footer; 2 complete block(s)"));
        let mut out = Vec::new();
        info.write(Format::Json, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["schema"], INFO_SCHEMA_NAME);
        assert_eq!(v["blocks"], 2);
        assert_eq!(v["footer"], serde_json::Value::Null);
        assert_eq!(v["header"]["provenance"]["tags"][0]["key"], "system");
        assert_eq!(v["header"]["world_size"], 2);
    }

    #[test]
    fn a_file_without_provenance_still_reads() {
        // A header as older versions wrote it: no `provenance` key at all.
        let header = testdata::header(2);
        let mut value = ciborium::Value::serialized(&header).unwrap();
        if let ciborium::Value::Map(entries) = &mut value {
            entries.retain(|(k, _)| k.as_text() != Some("provenance"));
        }
        let old: Header = value.deserialized().unwrap();
        assert_eq!(old.provenance, Default::default());
        assert_eq!(old.provenance.revision_word(), "unknown");
    }

    #[test]
    fn hosts_alike_share_one_folded_list_on_the_ranks_line() {
        let mut h = testdata::header(2);
        let load = |host: String, ranks, cores| crate::records::HostLoad {
            host,
            ranks,
            cores,
            cpus: String::new(),
            cores_from: "online".into(),
        };
        // 64 compute hosts with 16 ranks, then a login host with 2, listed by rank.
        h.wait.hosts = (1..=64)
            .map(|i| load(format!("node{i:02}"), 16, 16))
            .chain([load("login".into(), 2, 4)])
            .collect();
        h.world_size = 64 * 16 + 2;
        assert_eq!(
            ranks_line(&h),
            "1026 on 65 host(s): node[01-64] (16 ranks, 16 cores), login (2 ranks, 4 cores)"
        );
    }

    #[test]
    fn a_simulated_file_shows_what_each_p_cost_and_an_older_one_nothing() {
        use crate::records::{Simulation, SimulationCost};
        let dir = tempfile::tempdir().unwrap();
        let read = |name: &str, costs: Vec<SimulationCost>| {
            let path = dir.path().join(name);
            let mut header = testdata::header(2);
            // A simulated run's ranks are SimGrid actors, placed on no host of the machine.
            header.wait.hosts.clear();
            header.simulation = Some(Simulation {
                engine: "SimGrid SMPI".into(),
                engine_version: "3.32".into(),
                platform: "local".into(),
                collective_selector: "default".into(),
                costs,
                ..Default::default()
            });
            let mut w = RecordsWriter::create(&path).unwrap();
            w.write_header(&header).unwrap();
            w.finish(&testdata::footer(2)).unwrap();
            RunInfo::read(&path).unwrap()
        };
        let cost = |procs, wall_time_s, peak_memory_bytes, simulated_repetitions| SimulationCost {
            procs,
            wall_time_s,
            peak_memory_bytes,
            simulated_repetitions,
        };
        let info = read(
            "costs.cbor",
            vec![
                cost(2, 0.0461, 35_200_000, 3),
                cost(1024, 2.84, 170_900_000, 6),
            ],
        );
        let text = info.text();
        let sim = text
            .find("simulated       simulated: SimGrid SMPI 3.32")
            .unwrap();
        let first = text
            .find("  cost          P = 2: 0.046 s of wall time, peak memory 35 MB, 3 repetitions simulated")
            .unwrap_or_else(|| panic!("P = 2 missing from:\n{text}"));
        let second = text
            .find("  cost          P = 1024: 2.8 s of wall time, peak memory 170 MB, 6 repetitions")
            .unwrap_or_else(|| panic!("P = 1024 missing from:\n{text}"));
        let next_line = text[sim..].find('\n').unwrap() + sim + 1;
        assert_eq!(
            first, next_line,
            "the costs follow the simulated line:\n{text}"
        );
        assert!(first < second, "order:\n{text}");
        assert!(
            text.contains(
                "ranks           2 (the largest P simulated; hosts as in the `simulated` line)"
            ),
            "{text}"
        );
        assert!(!text.contains("0 host(s)"), "{text}");
        let mut out = Vec::new();
        info.write(Format::Json, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let costs = &v["header"]["simulation"]["costs"];
        assert_eq!(costs[1]["procs"], 1024);
        assert_eq!(costs[1]["wall_time_s"], 2.84);
        assert_eq!(costs[1]["peak_memory_bytes"], 170_900_000);

        let none = read("older.cbor", Vec::new()).text();
        assert!(none.contains("simulated       simulated:"), "{none}");
        assert!(!none.contains("  cost "), "{none}");
        assert!(!none.contains(" MB"), "{none}");
    }

    #[test]
    fn a_slurm_job_shows_its_id_pmi_and_rank_cpus() {
        use crate::records::{JobInfo, RankPlacement};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.cbor");
        let mut header = testdata::header(2);
        let rank = |host: &str, cpus: &str| RankPlacement {
            host: host.into(),
            parent: "slurmstepd".into(),
            cpus: cpus.into(),
            ..Default::default()
        };
        header.job = Some(JobInfo {
            scheduler: "slurm".into(),
            job_id: Some("41".into()),
            step_id: Some("0".into()),
            node_list: Some("n[0-1]".into()),
            pmi: "slurm pmix 4.2".into(),
            ranks: vec![rank("n0", "0"), rank("n1", "1")],
            ..Default::default()
        });
        let mut w = RecordsWriter::create(&path).unwrap();
        w.write_header(&header).unwrap();
        w.finish(&testdata::footer(2)).unwrap();
        let text = RunInfo::read(&path).unwrap().text();
        for want in [
            "Slurm job       job 41, step 0, nodes n[0-1]",
            "launch (PMI)    slurm pmix 4.2",
            "rank CPUs       n0: rank 0 on CPU 0; n1: rank 1 on CPU 1",
        ] {
            assert!(text.contains(want), "`{want}` missing from:\n{text}");
        }
    }
}
