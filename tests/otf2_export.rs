//! `export --format otf2` on a real run: the archive is read without error by `otf2-print`
//! (Debian's otf2-tools) and by the OTF2 library's own Python reader (python3-otf2, for
//! Debian's /usr/bin/python3); the events counted by kind agree between the two and with
//! the records file, and every call's Enter and Leave are its recorded start and end on the
//! global clock to the nanosecond, with the block, repetition and validity the records give.
//! A build without the `otf2` feature refuses `--format otf2` naming the package to install.

mod common;

use delaybench::timeline::{GlobalTimes, Timeline};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// The OTF2 library's Python reader: the clock properties, then one JSON line per event
/// (rank, kind, tick, region, attributes).
const READER: &str = r#"
import json, sys, otf2
with otf2.reader.open(sys.argv[1]) as trace:
    cp = trace.definitions.clock_properties
    print(json.dumps({"resolution": cp.timer_resolution, "offset": cp.global_offset,
                      "length": cp.trace_length}))
    for location, event in trace.events:
        e = {"rank": int(location.name.split()[-1]), "kind": type(event).__name__,
             "time": event.time}
        region = getattr(event, "region", None)
        if region is not None:
            e["region"] = region.name
        if event.attributes:
            e["attrs"] = {a.name: v for a, v in event.attributes.items()}
        print(json.dumps(e, default=str))
"#;

/// The tick of a global time: the nearest nanosecond.
fn tick(t_s: f64) -> u64 {
    (t_s * 1e9).round() as u64
}

/// Counts of the lines of `otf2-print` by event name (its first word).
fn otf2_print_counts(anchor: &Path) -> Option<HashMap<String, u64>> {
    let out = Command::new("otf2-print").arg(anchor).output().ok()?;
    assert!(
        out.status.success(),
        "otf2-print failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(word) = line.split_whitespace().next() {
            *counts.entry(word.to_string()).or_insert(0) += 1;
        }
    }
    Some(counts)
}

#[test]
fn otf2_archive_holds_every_call_to_the_nanosecond() {
    let dir = tempfile::tempdir().unwrap();
    common::run_records(
        4,
        dir.path(),
        "run.cbor",
        &[
            "--ops",
            "allreduce,iallreduce,bcast",
            "--sizes",
            "64",
            "--nrep",
            "20",
            "--delay",
            "100us",
            "--detour",
            "2kHz,20us,sync",
            "--no-figures",
            "--no-summary",
        ],
    );
    let records = dir.path().join("run.cbor");
    let archive = dir.path().join("otf2");
    let (r, a) = (records.to_str().unwrap(), archive.to_str().unwrap());
    let export = || common::offline(&["export", r, "--format", "otf2", "--output", a]);
    let out = export();
    if cfg!(not(feature = "otf2")) {
        assert_eq!(out.status.code(), Some(1), "{}", common::text(&out));
        assert!(
            common::text(&out).contains("libotf2-trace-dev"),
            "the refusal names the package: {}",
            common::text(&out)
        );
        common::skip("built without the `otf2` feature (libotf2-trace-dev)");
        return;
    }
    assert!(out.status.success(), "{}", common::text(&out));
    let anchor = archive.join("traces.otf2");
    // Refused when the directory is not empty: outputs are never overwritten.
    let again = export();
    assert_eq!(again.status.code(), Some(2), "{}", common::text(&again));

    // What the records say, through the one reader of records files.
    let mut timeline = Timeline::open(&records, GlobalTimes::Posthoc).unwrap();
    let mut calls: HashMap<(usize, u32, u32), (u64, u64, bool)> = HashMap::new();
    let mut delays = 0u64;
    for (b, block) in timeline.by_ref().enumerate() {
        let block = block.unwrap();
        for rep in 0..block.nrep as usize {
            for rank in 0..block.nprocs as usize {
                let i = block.idx(rep, rank);
                let (s, e) = (block.t_start_global_s.0[i], block.t_end_global_s.0[i]);
                calls.insert(
                    (rank, b as u32, rep as u32),
                    (tick(s), tick(e), block.rep_valid(rep)),
                );
                delays += u64::from(block.applied_delay_s.0[i] > 0.0);
            }
        }
    }
    assert!(delays > 0, "the run delayed some ranks");

    let Some(python) = common::python_with_otf2() else {
        common::skip("no python3 with the otf2 module (Debian's python3-otf2)");
        return;
    };
    let out = Command::new(python)
        .args(["-c", READER, anchor.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the Python reader failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let clock: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(
        clock["resolution"], 1_000_000_000u64,
        "ticks are nanoseconds"
    );
    let first = calls.values().map(|c| c.0).min().unwrap();
    let offset = clock["offset"].as_u64().unwrap();
    assert!(
        offset <= first,
        "the offset is the first event ({offset} > {first})"
    );

    let mut kinds: HashMap<String, u64> = HashMap::new();
    // Per rank the regions entered and not yet left: name, tick, (block, repetition, valid).
    type Open = (String, u64, Option<(u32, u32, bool)>);
    let mut open: HashMap<usize, Vec<Open>> = HashMap::new();
    let mut seen: HashMap<(usize, u32, u32), (u64, u64, bool)> = HashMap::new();
    let (mut delay_enters, mut detour_enters, mut collectives) = (0u64, 0u64, 0u64);
    for line in lines {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        let kind = e["kind"].as_str().unwrap().to_string();
        *kinds.entry(kind.clone()).or_insert(0) += 1;
        let rank = e["rank"].as_u64().unwrap() as usize;
        let time = e["time"].as_u64().unwrap();
        assert!(time >= offset, "{line}: before the clock's offset");
        let region = e["region"].as_str().unwrap_or("").to_string();
        match kind.as_str() {
            "Enter" => {
                let a = &e["attrs"];
                let key = a["delaybench::block"].as_u64().map(|b| {
                    (
                        b as u32,
                        a["delaybench::repetition"].as_u64().unwrap() as u32,
                        a["delaybench::valid"].as_u64().unwrap() == 1,
                    )
                });
                delay_enters += u64::from(region == "delaybench: injected delay");
                detour_enters += u64::from(region.starts_with("delaybench: detour (2kHz"));
                open.entry(rank).or_default().push((region, time, key));
            }
            "Leave" => {
                let (entered, start, key) = open.get_mut(&rank).unwrap().pop().unwrap();
                assert_eq!(entered, region, "rank {rank}: regions nest");
                assert!(start <= time, "rank {rank}: {region} ends before it starts");
                if let Some((b, rep, valid)) = key {
                    assert!(region.starts_with("MPI_"), "{region}");
                    let old = seen.insert((rank, b, rep), (start, time, valid));
                    assert!(old.is_none(), "call {rank} {b} {rep} twice");
                }
            }
            "MpiCollectiveEnd" => {
                collectives += 1;
                let (entered, _, _) = open[&rank].last().unwrap();
                assert!(entered.starts_with("MPI_"), "a collective inside {entered}");
            }
            _ => {}
        }
    }
    assert!(open.values().all(Vec::is_empty), "every region left");
    // Every call, at its recorded start and end, to the nanosecond, with its validity.
    assert_eq!(
        seen.len(),
        calls.len(),
        "one Enter/Leave per rank and repetition"
    );
    for (key, want) in &calls {
        assert_eq!(seen.get(key), Some(want), "call {key:?}");
    }
    assert_eq!(collectives, calls.len() as u64, "one collective per call");
    assert_eq!(
        delay_enters, delays,
        "one delay region per delayed rank and repetition"
    );
    assert!(detour_enters > 0, "the detours are in the archive");
    assert_eq!(kinds["Enter"], kinds["Leave"]);
    assert_eq!(kinds["MpiCollectiveBegin"], collectives);

    // otf2-print reads it too, and counts the same events.
    let Some(printed) = otf2_print_counts(&anchor) else {
        common::skip("no otf2-print (Debian's otf2-tools)");
        return;
    };
    for (word, kind) in [
        ("ENTER", "Enter"),
        ("LEAVE", "Leave"),
        ("MPI_COLLECTIVE_BEGIN", "MpiCollectiveBegin"),
        ("MPI_COLLECTIVE_END", "MpiCollectiveEnd"),
    ] {
        assert_eq!(printed.get(word), kinds.get(kind), "{word} in otf2-print");
    }
}
