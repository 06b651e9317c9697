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
    if launcher.contains("mpich")
        || std::env::var("DELAYBENCH_MPI_FLAVOR").as_deref() == Ok("mpich")
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

/// Per key, the calls of each rank (indexed by world rank).
type PerRank<K> = BTreeMap<K, Vec<usize>>;

/// Checks the capture in `dir` of `np` ranks and returns, per (site, operation), the calls
/// of each rank there: every file complete; on each communicator, every member calling each
/// operation the same number of times (what matching the calls needs); with `same_per_site`,
/// every rank also calling each (site, operation) the same number of times, more than 0;
/// `delaybench arrivals` reading it with every call matched, counting per rank the calls its
/// file holds and per communicator and operation the instances the members made; and each
/// of `known` operations called at some site.
fn check_capture(
    dir: &Path,
    np: u32,
    known: &[&str],
    same_per_site: bool,
) -> PerRank<(String, String)> {
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
        assert!(
            !c.events.is_empty(),
            "rank {} captured nothing",
            c.header.rank
        );
    }
    let mut per_site: PerRank<(String, String)> = BTreeMap::new();
    // Per (communicator, operation): its size and each world rank's calls.
    let mut per_comm: BTreeMap<(u64, String), (u32, Vec<usize>)> = BTreeMap::new();
    for c in &captures {
        let rank = c.header.rank as usize;
        for e in &c.events {
            let op = e.op.name().to_string();
            let site = c.sites[e.site as usize].key();
            per_site
                .entry((site, op.clone()))
                .or_insert_with(|| vec![0; np as usize])[rank] += 1;
            per_comm
                .entry((e.comm, op))
                .or_insert_with(|| (e.comm_size, vec![0; np as usize]))
                .1[rank] += 1;
        }
    }
    for ((comm, op), (size, calls)) in &per_comm {
        let members: Vec<usize> = calls.iter().copied().filter(|&n| n > 0).collect();
        assert!(
            members.len() == *size as usize && members.iter().all(|&n| n == members[0]),
            "{op} on communicator {comm:016x} of {size}: calls per world rank {calls:?}"
        );
    }
    if same_per_site {
        for ((site, op), calls) in &per_site {
            assert!(
                calls.iter().all(|&n| n == calls[0] && n > 0),
                "{op} at {site}: calls per rank {calls:?}"
            );
        }
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
    // The site rows count each instance once: over the rows of a communicator and an
    // operation, the calls each member made.
    let mut instances: BTreeMap<(u64, String), usize> = BTreeMap::new();
    for s in v["sites"].as_array().unwrap() {
        let comm = u64::from_str_radix(s["comm"].as_str().unwrap(), 16).unwrap();
        let op = s["op"].as_str().unwrap().to_string();
        *instances.entry((comm, op)).or_default() += s["calls"].as_u64().unwrap() as usize;
    }
    let members: BTreeMap<(u64, String), usize> = per_comm
        .iter()
        .map(|(k, (_, calls))| (k.clone(), calls.iter().copied().max().unwrap_or(0)))
        .collect();
    assert_eq!(instances, members, "arrivals' site rows against the files");
    for op in known {
        assert!(
            per_site.keys().any(|(_, o)| o == op),
            "no {op} captured; sites: {:?}",
            per_site.keys().collect::<Vec<_>>()
        );
    }
    per_site
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
    let sites = check_capture(&dir, np, &["allreduce", "bcast"], true);
    eprintln!("LAMMPS, P = {np}: {} sites {sites:?}", sites.len());
    // The input is read by rank 0 and broadcast command by command, and the thermo output
    // reduced every 10 steps: several sites of liblammps.
    assert!(
        sites
            .keys()
            .filter(|(s, _)| s.starts_with("liblammps"))
            .count()
            > 5,
        "{sites:?}"
    );
    // Six thermo outputs (steps 0, 10, ..., 50) each reduce: some allreduce site is called
    // at least six times.
    assert!(
        sites
            .iter()
            .any(|((_, op), n)| op == "allreduce" && n[0] >= 6),
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
    // Not the same count per site: HPCC's ping-pong tests call one barrier from different
    // lines on different ranks (rank 0 10 times at one site and 10 at another, rank 1 20
    // times at the first), so only the counts per communicator agree.
    let sites = check_capture(
        &dir,
        np,
        &["allreduce", "bcast", "barrier", "alltoall"],
        false,
    );
    let uneven: Vec<_> = sites
        .iter()
        .filter(|(_, n)| n.iter().any(|&x| x != n[0]))
        .collect();
    eprintln!(
        "HPCC, P = {np}: {} sites, {} with different counts per rank: {uneven:?}",
        sites.len(),
        uneven.len()
    );
    assert!(
        sites.keys().any(|(s, _)| s.starts_with("hpcc+")),
        "{sites:?}"
    );
}
