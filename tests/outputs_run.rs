//! Per-run outputs under mpirun: every run writes its records file and a folder beside it
//! with the same stem (figures, report page, summary), and nothing of an earlier run is ever
//! overwritten.

mod common;

use common::{mpirun, offline, text};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SMALL: [&str; 12] = [
    "--ops",
    "allreduce",
    "--sizes",
    "8",
    "--nrep",
    "20",
    "--warmup",
    "3",
    "--clock-sync",
    "offset",
    "--delay",
    "50us",
];

/// Every file under `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.extend(contents(&path));
        } else {
            all.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    all
}

fn launch(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = SMALL.to_vec();
    args.extend_from_slice(extra);
    mpirun(2, &args, dir)
}

fn ok(out: &std::process::Output) {
    assert!(
        matches!(out.status.code(), Some(0 | common::NO_VALID_EXIT)),
        "{}",
        text(out)
    );
}

#[test]
fn each_run_gets_its_own_folder_and_nothing_is_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    ok(&launch(dir.path(), &[]));
    let first = contents(&results);
    let stems: Vec<String> = first
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "cbor"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(stems.len(), 1, "{:?}", first.keys());
    let folder = results.join(&stems[0]);
    for name in ["index.md", "summary.md", "summary.csv", "info.txt"] {
        assert!(folder.join(name).is_file(), "{name} missing in {folder:?}");
    }
    assert!(
        first
            .keys()
            .any(|p| p.starts_with(&folder) && p.extension().is_some_and(|e| e == "png")),
        "no figure in {folder:?}"
    );
    let csv = String::from_utf8(first[&folder.join("summary.csv")].clone()).unwrap();
    assert!(csv.contains("allreduce"), "{csv}");

    // A second run with the same options: a second records file and folder, the first
    // run's files byte for byte as they were.
    ok(&launch(dir.path(), &[]));
    let second = contents(&results);
    let cbors = second
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "cbor"))
        .count();
    assert_eq!(cbors, 2);
    let folders = std::fs::read_dir(&results)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(folders, 2);
    for (path, bytes) in &first {
        assert_eq!(&second[path], bytes, "{path:?} changed");
    }

    // A named run gets the folder of its name; a run into a folder that holds files is
    // refused before measuring and leaves no records file.
    ok(&launch(
        dir.path(),
        &["--output", "mine.cbor", "--no-summary"],
    ));
    assert!(dir.path().join("mine").join("index.md").is_file());
    assert!(!dir.path().join("mine").join("summary.csv").exists());
    let refused = launch(dir.path(), &["--output", "again.cbor", "--figures", "mine"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("never overwritten"),
        "{}",
        text(&refused)
    );
    assert!(!dir.path().join("again.cbor").exists());

    // --no-figures --no-summary: the records alone.
    ok(&launch(
        dir.path(),
        &["--output", "bare.cbor", "--no-figures", "--no-summary"],
    ));
    assert!(dir.path().join("bare.cbor").is_file());
    assert!(!dir.path().join("bare").exists());

    // plot draws into the folder beside the file it reads.
    std::fs::copy(dir.path().join("bare.cbor"), dir.path().join("copy.cbor")).unwrap();
    let copy = dir.path().join("copy.cbor");
    let plotted = offline(&["plot", copy.to_str().unwrap()]);
    assert!(plotted.status.success(), "{}", text(&plotted));
    assert!(dir.path().join("copy").join("index.md").is_file());
}

#[test]
fn info_shows_tags_revision_and_machines_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    ok(&launch(
        dir.path(),
        &[
            "--output",
            "tagged.cbor",
            "--no-figures",
            "--tag",
            "system=ci-box",
            "--tag",
            "note=first try",
        ],
    ));
    let file = dir.path().join("tagged.cbor");
    let version = offline(&["--version"]);
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    // `delaybench 0.1.0 (git <hash or unknown>[, dirty])`
    let revision = version
        .split("(git ")
        .nth(1)
        .and_then(|r| r.split([',', ')']).next())
        .unwrap_or_else(|| panic!("no git revision in --version: {version}"));
    assert!(!revision.is_empty(), "{version}");

    let info = offline(&["info", file.to_str().unwrap()]);
    assert!(info.status.success(), "{}", text(&info));
    let shown = String::from_utf8_lossy(&info.stdout);
    for want in [
        "tags            system=ci-box, note=first try",
        &format!("(git {revision}"),
        "blocks          2",
        "ended           completed in",
        "machine ",
    ] {
        assert!(shown.contains(want), "`{want}` missing from:\n{shown}");
    }

    let json = offline(&["info", file.to_str().unwrap(), "--format", "json"]);
    assert!(json.status.success(), "{}", text(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let prov = &v["header"]["provenance"];
    assert_eq!(prov["git_revision"], revision);
    assert_eq!(prov["run_id"].as_str().unwrap().len(), 36);
    assert_eq!(prov["tags"][1]["value"], "first try");
    let machine = &prov["machines"][0];
    assert!(machine["cores_logical"].as_u64().unwrap() >= 1);
    // Every launcher tells its ranks who they are through such variables (Open MPI's
    // OMPI_COMM_WORLD_RANK and PMIx, MPICH's PMI_RANK).
    let env = machine["env"].as_object().unwrap();
    assert!(
        env.keys()
            .any(|k| k.starts_with("OMPI_") || k.starts_with("PMI")),
        "{env:?}"
    );

    // Every analyze and export row names the run, its MPI library, hosts and tags.
    let id = prov["run_id"].as_str().unwrap();
    let f = file.to_str().unwrap();
    for args in [
        &["analyze", f, "--format", "csv"][..],
        &["export", f, "--rows", "rep"],
        &["export", f],
        // One row per block whatever its validity (a trend needs enough valid ones).
        &["analyze", f, "--timing", "global", "--format", "csv"],
    ] {
        let out = offline(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        let mut reader = csv::Reader::from_reader(&out.stdout[..]);
        let columns = reader.headers().unwrap().clone();
        let col = |name: &str| {
            columns
                .iter()
                .position(|c| c == name)
                .unwrap_or_else(|| panic!("{args:?}: no {name} in {columns:?}"))
        };
        let (run, tags, library) = (col("run_id"), col("tags"), col("mpi_library"));
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert!(!rows.is_empty(), "{args:?}");
        for row in &rows {
            assert_eq!(&row[run], id, "{args:?}");
            assert_eq!(&row[tags], "system=ci-box;note=first try", "{args:?}");
            assert!(
                !row[library].is_empty() && !row[library].contains('\0'),
                "{args:?}"
            );
        }
    }

    // A repeated key is refused before measuring; so is a tag without `=`.
    for bad in [&["--tag", "a=1", "--tag", "a=2"][..], &["--tag", "novalue"]] {
        let mut args = vec!["--output", "bad.cbor"];
        args.extend_from_slice(bad);
        let out = launch(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(!dir.path().join("bad.cbor").exists());
    }
}
