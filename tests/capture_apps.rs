//! Real applications under the capture (docs/capture.md), as a user runs them: Debian's
//! LAMMPS (`lmp`: the Lennard-Jones melt of its `melt` example, 4000 atoms, shortened to 50
//! steps) on 4 ranks, and Debian's HPCC (`hpcc`: the packaged example input shrunk to
//! N = 200 on a 1 × 2 process grid, every HPC Challenge test in a few seconds) on 2 ranks,
//! each with libdelaybench_capture.so preloaded. Every rank's file must be complete, every
//! call matched, each call site called the same number of times by every rank (an SPMD
//! application calls a collective at one site on every member), `delaybench arrivals` must
//! count the same calls, and the collectives each application is known to call must be
//! among its sites.
//!
//! Skips when the binary is missing (`DELAYBENCH_APPS=1 . scripts/setup.sh` installs both);
//! under MPICH a known limit: Debian builds both for Open MPI, and the capture library,
//! built for the MPI in use, cannot be preloaded into them.

mod common;
#[path = "capture/support.rs"]
mod support;

use delaybench::capture::read_captures;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;
use support::build_capture_library;

/// Whether `binary` (from Debian's `package`) can be captured here: it runs, and the
/// launcher is Open MPI's. Says why not (a skip or a known limit) otherwise.
fn usable(binary: &str, package: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(binary).is_file()));
    if !found {
        common::skip(&format!(
            "{binary} not found: install Debian's {package} (apt-get install {package}, or \
             DELAYBENCH_APPS=1 . scripts/setup.sh)"
        ));
        return false;
    }
    let launcher = common::launcher();
    if launcher.contains("mpich") || std::env::var("DELAYBENCH_MPI_FLAVOR").as_deref() == Ok("mpich")
    {
        common::skip_known_limit(&format!(
            "Debian's {binary} is built for Open MPI, the launcher is {launcher}"
        ));
        return false;
    }
    true
}

/// Runs `binary args` on `np` ranks in `work` (its working directory) with the capture
/// library preloaded, capturing into `capture`; asserts that it succeeded.
fn capture_in(np: u32, binary: &str, args: &[&str], work: &Path, capture: &Path) -> Output {
    let library = build_capture_library();
    let mut cmd = Command::new(common::launcher());
    cmd.arg("-np")
        .arg(np.to_string())
        .args(["-x", &format!("LD_PRELOAD={}", library.display())])
        .args(["-x", "DELAYBENCH_CAPTURE_DIR"])
        .arg(binary)
        .args(args)
        .current_dir(work)
        .env("DELAYBENCH_CAPTURE_DIR", capture)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    let out = common::run_mpi_job(cmd, Duration::from_secs(240));
    assert!(out.status.success(), "{binary}: {}", common::text(&out));
    out
}

/// Checks the capture in `dir` of `np` ranks and returns, per (site, operation), the calls
/// every rank made there: every file complete, each (site, operation) called the same
/// number of times (more than 0) by every rank, `delaybench arrivals` reading it with
/// every call matched and counting per rank the calls its file holds, and each of `known`
/// operations called at some site.
fn check_capture(dir: &Path, np: u32, known: &[&str]) -> BTreeMap<(String, String), usize> {
    let captures = read_captures(&[dir.to_path_buf()]).unwrap();
    assert_eq!(captures.len(), np as usize, "one file per rank");
    for c in &captures {
        assert!(
            c.footer.is_some() && c.damage.is_none(),
            "rank {}: footer {:?}, damage {:?}",
            c.header.rank,
            c.footer,
            c.damage
        );
        assert!(!c.events.is_empty(), "rank {} captured nothing", c.header.rank);
    }
    // Per (site key, operation), the calls of each rank.
    let mut per_rank: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for c in &captures {
        for e in &c.events {
            let site = c.sites[e.site as usize].key();
            let calls = per_rank
                .entry((site, e.op.name().to_string()))
                .or_insert_with(|| vec![0; np as usize]);
            calls[c.header.rank as usize] += 1;
        }
    }
    for ((site, op), calls) in &per_rank {
        assert!(
            calls.iter().all(|&n| n == calls[0] && n > 0),
            "{op} at {site}: calls per rank {calls:?}"
        );
    }

    let out = common::offline(&[
        "arrivals",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--no-figures",
    ]);
    assert!(out.status.success(), "{}", common::text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["world_size"], np, "{v}");
    assert_eq!(v["incomplete_calls"], 0, "{v}");
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), np as usize, "{v}");
    for (r, c) in ranks.iter().zip(&captures) {
        assert_eq!(r["rank"], c.header.rank);
        assert_eq!(r["calls"], c.events.len(), "rank {}", c.header.rank);
    }
    // Each site row counts instances once: over the rows of a (site, operation), the calls
    // one rank made there, when all of them are on communicators of every rank.
    let mut instances: BTreeMap<(String, String), (u64, bool)> = BTreeMap::new();
    for s in v["sites"].as_array().unwrap() {
        let key = (
            s["site"].as_str().unwrap().to_string(),
            s["op"].as_str().unwrap().to_string(),
        );
        let row = instances.entry(key).or_insert((0, true));
        row.0 += s["calls"].as_u64().unwrap();
        row.1 &= s["comm_size"] == np;
    }
    for (key, calls) in &per_rank {
        let (rows, whole) = instances
            .get(key)
            .unwrap_or_else(|| panic!("arrivals has no row for {key:?}"));
        if *whole {
            assert_eq!(*rows as usize, calls[0], "{key:?}");
        }
    }
    for op in known {
        assert!(
            per_rank.keys().any(|(_, o)| o == op),
            "no {op} captured; sites: {:?}",
            per_rank.keys().collect::<Vec<_>>()
        );
    }
    per_rank.into_iter().map(|(k, v)| (k, v[0])).collect()
}

#[test]
fn lammps_is_captured_whole_on_four_ranks() {
    if !usable("lmp", "lammps") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The melt example (lammps-examples, examples/melt/in.melt), 50 steps instead of 250.
    let input = "units lj\natom_style atomic\nlattice fcc 0.8442\n\
                 region box block 0 10 0 10 0 10\ncreate_box 1 box\ncreate_atoms 1 box\n\
                 mass 1 1.0\nvelocity all create 3.0 87287 loop geom\n\
                 pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\n\
                 neigh_modify every 20 delay 0 check no\nfix 1 all nve\nthermo 10\nrun 50\n";
    std::fs::write(tmp.path().join("in.melt"), input).unwrap();
    let dir = tmp.path().join("capture");
    let np = 4;
    let out = capture_in(
        np,
        "lmp",
        &["-in", "in.melt", "-log", "none"],
        tmp.path(),
        &dir,
    );
    // The run itself: LAMMPS printed its thermo output to the last step.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Loop time of"), "{stdout}");
    let sites = check_capture(&dir, np, &["allreduce", "bcast"]);
    eprintln!("LAMMPS, P = {np}: {} sites {sites:?}", sites.len());
    // The input is read by rank 0 and broadcast command by command, and the thermo output
    // reduced every 10 steps: several sites of liblammps.
    assert!(
        sites.keys().filter(|(s, _)| s.starts_with("liblammps")).count() > 5,
        "{sites:?}"
    );
    // Six thermo outputs (steps 0, 10, ..., 50) each reduce: some allreduce site is called
    // at least six times.
    assert!(
        sites.iter().any(|((_, op), &n)| op == "allreduce" && n >= 6),
        "{sites:?}"
    );
}

/// HPCC's packaged example input (hpcc's examples/_hpccinf.txt) with N = 200, NB = 40 and a
/// 1 × 2 process grid: every HPC Challenge test, in seconds on two ranks.
fn small_hpcc_input() -> String {
    let lines = [
        "HPLinpack benchmark input file",
        "Innovative Computing Laboratory, University of Tennessee",
        "HPL.out      output file name (if any)",
        "8            device out (6=stdout,7=stderr,file)",
        "1            # of problems sizes (N)",
        "200          Ns",
        "1            # of NBs",
        "40           NBs",
        "0            PMAP process mapping (0=Row-,1=Column-major)",
        "1            # of process grids (P x Q)",
        "1            Ps",
        "2            Qs",
        "16.0         threshold",
        "1            # of panel fact",
        "2            PFACTs (0=left, 1=Crout, 2=Right)",
        "1            # of recursive stopping criterium",
        "4            NBMINs (>= 1)",
        "1            # of panels in recursion",
        "2            NDIVs",
        "1            # of recursive panel fact.",
        "1            RFACTs (0=left, 1=Crout, 2=Right)",
        "1            # of broadcast",
        "1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)",
        "1            # of lookahead depth",
        "1            DEPTHs (>=0)",
        "2            SWAP (0=bin-exch,1=long,2=mix)",
        "64           swapping threshold",
        "0            L1 in (0=transposed,1=no-transposed) form",
        "0            U  in (0=transposed,1=no-transposed) form",
        "1            Equilibration (0=no,1=yes)",
        "8            memory alignment in double (> 0)",
        "##### This line (no. 32) is ignored (it serves as a separator). ######",
        "0                      \t\tNumber of additional problem sizes for PTRANS",
        "1200 10000 30000        \tvalues of N",
        "0                       \tnumber of additional blocking sizes for PTRANS",
        "40 9 8 13 13 20 16 32 64       \tvalues of NB",
    ];
    lines.join("\n") + "\n"
}

#[test]
fn hpcc_is_captured_whole_on_two_ranks() {
    if !usable("hpcc", "hpcc") {
        return;
    }
    // HPCC reads hpccinf.txt from, and writes hpccoutf.txt to, its working directory.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("hpccinf.txt"), small_hpcc_input()).unwrap();
    let dir = tmp.path().join("capture");
    let np = 2;
    capture_in(np, "hpcc", &[], tmp.path(), &dir);
    let report = std::fs::read_to_string(tmp.path().join("hpccoutf.txt")).unwrap();
    assert!(
        report.contains("End of HPC Challenge tests.")
            && report.contains("0 tests completed and failed residual checks"),
        "{report}"
    );
    // HPL broadcasts panels, every test reduces its results and times with barriers, and
    // the FFT and PTRANS exchange with alltoall.
    let sites = check_capture(&dir, np, &["allreduce", "bcast", "barrier", "alltoall"]);
    eprintln!("HPCC, P = {np}: {} sites {sites:?}", sites.len());
    assert!(sites.keys().any(|(s, _)| s.starts_with("hpcc+")), "{sites:?}");
}
