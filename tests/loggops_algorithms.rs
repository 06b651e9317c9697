//! Every collective schedule of the LogGOPS engine finishes at every P (powers of two and
//! not) and carries the data its collective must: a late rank delays every rank that needs
//! its data (all of them for allreduce, barrier, allgather and alltoall, the root for reduce
//! and gather) and a late root every rank of a bcast and scatter.

use delaybench::simulate::loggops::{collective, Noise, Params, Simulator, ALGORITHMS};

const LATE: f64 = 1e9;

fn ends(op: &str, alg: &str, p: usize, bytes: u64, start: &[f64]) -> Vec<f64> {
    let s = collective(op, Some(alg), p, bytes).unwrap();
    Simulator::new(&Params::default())
        .run(&s, start, &mut Noise::None)
        .unwrap_or_else(|e| panic!("{op} {alg} P={p}: {e}"))
}

#[test]
fn every_algorithm_finishes_and_a_late_rank_reaches_whom_its_data_must_reach() {
    for a in ALGORITHMS {
        for p in [1usize, 2, 3, 5, 6, 8, 12, 16, 17, 31] {
            for bytes in [1u64, 1 << 20] {
                let quiet = ends(a.op, a.name, p, bytes, &vec![0.0; p]);
                assert!(quiet.iter().all(|t| t.is_finite() && *t >= 0.0));
                for late in 0..p {
                    let mut start = vec![0.0; p];
                    start[late] = LATE;
                    let end = ends(a.op, a.name, p, bytes, &start);
                    let waits: Vec<usize> = match a.op {
                        "reduce" | "gather" => vec![0],
                        "bcast" | "scatter" if late == 0 => (0..p).collect(),
                        "bcast" | "scatter" => vec![late],
                        _ => (0..p).collect(),
                    };
                    for r in waits {
                        assert!(
                            end[r] >= LATE,
                            "{} {} P={p} {bytes} B: rank {r} ends at {} although rank {late} \
                             starts at {LATE}",
                            a.op,
                            a.name,
                            end[r]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn names_are_unique_per_collective_and_nonblocking_forms_share_the_schedule() {
    for a in ALGORITHMS {
        let same = ALGORITHMS
            .iter()
            .filter(|b| b.op == a.op && (b.name == a.name || b.aliases.contains(&a.name)))
            .count();
        assert_eq!(same, 1, "{} {}", a.op, a.name);
        for alias in a.aliases {
            let by_alias = collective(a.op, Some(alias), 6, 8).unwrap();
            assert_eq!(
                by_alias.num_ops(),
                collective(a.op, Some(a.name), 6, 8).unwrap().num_ops()
            );
        }
    }
    let blocking = collective("allreduce", None, 8, 8).unwrap();
    let nonblocking = collective("iallreduce", None, 8, 8).unwrap();
    assert_eq!(blocking.num_ops(), nonblocking.num_ops());
}

#[test]
fn unknown_collectives_and_algorithms_are_refused_with_the_choices() {
    let e = collective("allreduce", Some("telepathy"), 4, 8)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("telepathy") && e.contains("recursive_doubling, rabenseifner"),
        "{e}"
    );
    let e = collective("scan", None, 4, 8).unwrap_err().to_string();
    assert!(
        e.contains("no schedule of scan") && e.contains("allreduce"),
        "{e}"
    );
}
