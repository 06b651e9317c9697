//! A capture that fails on one rank neither hangs nor stops the application (docs/capture.md,
//! "Never crashing the application"): tests/capture/steps.c runs on 2 ranks with
//! libdelaybench_capture.so preloaded while `DELAYBENCH_CAPTURE_TEST_FAIL` (test-only) makes
//! one rank's capture directory fail, or tears one rank's second chunk frame midway. The
//! application must finish with its own exit status within 60 s (else it is killed and the
//! test fails: before the ranks agreed at MPI_Finalize, the finalize clock synchronisation
//! waited forever for the rank that had stopped), the other ranks' files must be complete with
//! footers that say the finalize synchronisation was skipped, and `delaybench arrivals` must
//! read the capture and name the missing or incomplete file. Skips without an MPI compiler
//! wrapper. Two ranks, since MPICH's busy-polling ranks crawl when the cores are
//! oversubscribed (1000 steps on 4 ranks took 10 s on this 2-core machine, 0.05 s on 2), and
//! two cover both ways the synchronisation hung: rank 0 waiting for a peer, a peer for rank 0.

mod common;
#[path = "capture/support.rs"]
mod support;

use delaybench::capture::{capture_gaps, match_calls, read_captures, RankCapture};
use std::path::Path;
use std::time::{Duration, Instant};
use support::{build_capture_library, build_test_program, capture_env};

const NP: u32 = 2;
/// Steps of steps.c: two calls each, 12,000 calls per rank, so every rank hands over at least
/// three chunks (the shim's buffer holds 4096 events) and a failure at the second is midway.
const STEPS: &str = "6000";
/// The application must be done within this, or it hangs.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs steps.c on [`NP`] ranks with the test-only fault `fault`, capturing into `dir`;
/// asserts that the application finished on its own with success and returns its stderr.
fn run_with_fault(library: &Path, program: &Path, dir: &Path, fault: &str) -> String {
    let started = Instant::now();
    let out = capture_env(
        NP,
        library,
        program,
        &[STEPS],
        dir,
        &[("DELAYBENCH_CAPTURE_TEST_FAIL", fault)],
        DEADLINE,
    );
    eprintln!("{fault}: the application ran {:?}", started.elapsed());
    let text = common::text(&out);
    assert!(out.status.success(), "{fault}: {text}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("steps: {STEPS} steps correct")),
        "{fault}: {text}"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The files of the ranks other than `failed`: each complete, with a footer that says the
/// finalize synchronisation was skipped and repeats the MPI_Init one, and every call.
fn assert_the_others_complete(captures: &[RankCapture], failed: u32) {
    for c in captures.iter().filter(|c| c.header.rank != failed) {
        let f = c
            .footer
            .as_ref()
            .unwrap_or_else(|| panic!("rank {} has no footer", c.header.rank));
        assert!(c.damage.is_none(), "rank {}: {:?}", c.header.rank, c.damage);
        assert!(f.finalize_sync_skipped, "rank {}", c.header.rank);
        assert_eq!(f.sync_finalize, c.header.sync_init);
        assert_eq!(f.events, 12_000);
        assert_eq!(c.events.len(), 12_000);
    }
}

/// `delaybench arrivals DIR`: succeeds, prints the report, and its stderr contains each of
/// `named`; returns its stdout.
fn assert_arrivals_names(dir: &Path, named: &[&str]) -> String {
    let out = common::offline(&["arrivals", dir.to_str().unwrap(), "--no-figures"]);
    let text = common::text(&out);
    assert!(out.status.success(), "{text}");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.contains("wait_nxn"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for n in named {
        assert!(stderr.contains(n), "{n:?} not in: {text}");
    }
    stdout
}

#[test]
fn a_rank_whose_capture_directory_fails_neither_hangs_nor_stops_the_others() {
    let Some((tmp, program)) = build_test_program("steps") else {
        return;
    };
    let library = build_capture_library();
    // Rank 0 is the root of the clock synchronisation (the peers waited for it); rank 1 one
    // the root waited for.
    for failed in [0u32, 1] {
        let dir = tmp.path().join(format!("capture-dir-{failed}"));
        let stderr = run_with_fault(&library, &program, &dir, &format!("{failed}:dir"));
        assert!(
            stderr.contains(&format!("rank {failed}: not capturing: cannot create")),
            "{stderr}"
        );
        assert!(
            stderr.contains("MPI_Finalize clock synchronisation is skipped"),
            "{stderr}"
        );

        let captures = read_captures(std::slice::from_ref(&dir)).unwrap();
        let ranks: Vec<u32> = captures.iter().map(|c| c.header.rank).collect();
        assert_eq!(ranks, (0..NP).filter(|r| *r != failed).collect::<Vec<_>>());
        assert_the_others_complete(&captures, failed);
        let gaps = capture_gaps(&captures);
        assert_eq!(gaps.missing_ranks, vec![failed]);
        assert!(gaps.unfinished.is_empty() && gaps.finalize_sync_skipped);
        // The other rank's calls on its own communicator are whole: 6000 instances.
        let matched = match_calls(&captures).unwrap();
        assert_eq!(matched.instances.len(), 6000);

        assert_arrivals_names(
            &dir,
            &[
                &format!("no capture file of rank {failed} (of {NP})"),
                "MPI_Finalize clock synchronisation was skipped",
            ],
        );
    }
}

#[test]
fn a_rank_whose_write_fails_midway_neither_hangs_nor_stops_the_others() {
    let Some((tmp, program)) = build_test_program("steps") else {
        return;
    };
    let library = build_capture_library();
    let failed = 1;
    let dir = tmp.path().join("capture");
    let stderr = run_with_fault(&library, &program, &dir, &format!("{failed}:write:2"));
    assert!(
        stderr.contains(&format!("rank {failed}: stopped writing the capture")),
        "{stderr}"
    );
    assert!(
        stderr.contains("MPI_Finalize clock synchronisation is skipped"),
        "{stderr}"
    );

    let captures = read_captures(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(captures.len(), NP as usize);
    assert_the_others_complete(&captures, failed);
    // Rank 1's file: the header, its first chunk whole, then half of the second.
    let torn = &captures[failed as usize];
    assert!(torn.footer.is_none());
    assert!(
        torn.damage.as_ref().is_some_and(|d| d.contains("torn")),
        "{:?}",
        torn.damage
    );
    assert!(
        !torn.events.is_empty() && torn.events.len() < 12_000,
        "{}",
        torn.events.len()
    );
    let gaps = capture_gaps(&captures);
    assert!(gaps.missing_ranks.is_empty());
    assert_eq!(gaps.unfinished.len(), 1);
    assert_eq!(gaps.unfinished[0].rank, failed);
    assert!(gaps.finalize_sync_skipped);
    // Rank 0's calls on its own communicator are whole, and rank 1's and the world's as far
    // as rank 1 wrote.
    let matched = match_calls(&captures).unwrap();
    assert!(
        matched.instances.len() > 6000,
        "{}",
        matched.instances.len()
    );

    let table = assert_arrivals_names(
        &dir,
        &[
            &format!("rank {failed}'s file"),
            "is incomplete: it ends without a footer",
            "torn frame",
            "MPI_Finalize clock synchronisation was skipped",
        ],
    );
    // The table says what happened to the rank: its capture stopped, not the application.
    assert!(
        table.contains(&format!(
            "ranks [{failed}]: the capture stopped before MPI_Finalize"
        )) && !table.contains("did not reach"),
        "{table}"
    );
}
