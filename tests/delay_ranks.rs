//! Rank selections: parsing, resolving per repetition through `delay_matrix`, and errors.

use delaybench::delay::{delay_matrix, DelayModel, RankError, RankItem, RankSelection};

fn hosts(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// The delayed ranks of every repetition, from a matrix drawn with a fixed 1 us delay.
fn delayed_per_rep(sel: &str, p: u32, hosts: &[String], nrep: u32, seed: u64) -> Vec<Vec<u32>> {
    let sel: RankSelection = sel.parse().unwrap();
    sel.validate(p, hosts).unwrap();
    let model: DelayModel = "1us".parse().unwrap();
    let m = delay_matrix(&model, &sel, p, hosts, nrep, seed, 0);
    m.chunks(p as usize)
        .map(|row| {
            (0..p)
                .filter(|&r| row[r as usize] > 0.0)
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[test]
fn fixed_items_resolve_the_same_every_repetition() {
    let h = hosts(&["a"; 8]);
    for row in delayed_per_rep("0, 3-5, last", 8, &h, 20, 1) {
        assert_eq!(row, vec![0, 3, 4, 5, 7]);
    }
    for row in delayed_per_rep("all", 8, &h, 5, 1) {
        assert_eq!(row, (0..8).collect::<Vec<_>>());
    }
    // `last` follows P.
    for row in delayed_per_rep("last", 4, &h, 3, 1) {
        assert_eq!(row, vec![3]);
    }
}

#[test]
fn random_k_draws_k_distinct_ranks_per_repetition() {
    let h = hosts(&["a"; 10]);
    let rows = delayed_per_rep("random:3", 10, &h, 2000, 5);
    let mut counts = [0u32; 10];
    for row in &rows {
        assert_eq!(row.len(), 3, "{row:?}");
        row.iter().for_each(|&r| counts[r as usize] += 1);
    }
    // Not the same ranks every time, and every rank about equally often (600 expected).
    assert!(rows.windows(2).any(|w| w[0] != w[1]));
    assert!(
        counts.iter().all(|&c| (450..=750).contains(&c)),
        "{counts:?}"
    );
    // Named ranks plus K others.
    for row in delayed_per_rep("0,random:2", 10, &h, 500, 6) {
        assert_eq!(row.len(), 3, "{row:?}");
        assert_eq!(row[0], 0);
    }
}

#[test]
fn host_items_pick_that_hosts_ranks() {
    // Hosts numbered by first rank: n1 = 0, n0 = 1, n2 = 2 (round-robin placement).
    let h = hosts(&["n1", "n0", "n2", "n1", "n0", "n2"]);
    for row in delayed_per_rep("host:0", 6, &h, 3, 1) {
        assert_eq!(row, vec![0, 3]);
    }
    for row in delayed_per_rep("host:1,host:2", 6, &h, 3, 1) {
        assert_eq!(row, vec![1, 2, 4, 5]);
    }
    let sel: RankSelection = "host:2".parse().unwrap();
    // With P = 2 only hosts n1 and n0 take part.
    assert_eq!(
        sel.validate(2, &h),
        Err(RankError::HostOutside {
            index: 2,
            hosts: 2,
            p: 2
        })
    );
}

#[test]
fn parsing_and_printing() {
    let sel: RankSelection = "0,2-4,last,all,random:2,host:1".parse().unwrap();
    assert_eq!(
        sel.items(),
        &[
            RankItem::Rank(0),
            RankItem::Range(2, 4),
            RankItem::Last,
            RankItem::All,
            RankItem::Random(2),
            RankItem::Host(1)
        ]
    );
    assert_eq!(sel.to_string(), "0,2-4,last,all,random:2,host:1");
    assert_eq!(sel.max_fixed_rank(), Some(4));
    assert_eq!(
        "last,host:3"
            .parse::<RankSelection>()
            .unwrap()
            .max_fixed_rank(),
        None
    );
}

#[test]
fn bad_selections_give_documented_errors() {
    let err = |s: &str| s.parse::<RankSelection>().unwrap_err();
    assert_eq!(err(""), RankError::Empty);
    assert!(matches!(err("0,,1"), RankError::BadItem { .. }));
    assert!(matches!(err("first"), RankError::BadItem { .. }));
    assert!(matches!(err("-1"), RankError::BadItem { .. }));
    assert!(matches!(err("random:x"), RankError::BadItem { .. }));
    assert_eq!(err("5-2"), RankError::Backwards { from: 5, to: 2 });
    assert_eq!(err("random:0"), RankError::RandomZero);
    assert!(matches!(
        err("random:1,random:2"),
        RankError::TwoRandom { .. }
    ));
    let msg = err("0,first").to_string();
    assert!(msg.contains("'first'") && msg.contains("e.g."), "{msg}");

    let h = hosts(&["a"; 4]);
    let invalid = |s: &str, p: u32| {
        s.parse::<RankSelection>()
            .unwrap()
            .validate(p, &h)
            .unwrap_err()
    };
    assert_eq!(invalid("4", 4), RankError::RankOutside { rank: 4, p: 4 });
    assert_eq!(invalid("1-7", 4), RankError::RankOutside { rank: 7, p: 4 });
    assert_eq!(
        invalid("random:5", 4),
        RankError::TooManyRandom {
            k: 5,
            fixed: 0,
            p: 4
        }
    );
    assert_eq!(
        invalid("all,random:1", 4),
        RankError::TooManyRandom {
            k: 1,
            fixed: 4,
            p: 4
        }
    );
    let msg = invalid("random:5", 4).to_string();
    assert!(msg.contains("random:5") && msg.contains("P = 4"), "{msg}");
}
