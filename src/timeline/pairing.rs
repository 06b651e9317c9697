//! Which undelayed block is a delayed block's baseline: the one pairing rule every table and
//! figure uses. The baseline of a configuration (op, message size, P) is its block with no
//! delay (δ = 0), the t0 of the delay overlap benefit (Niethammer et al. 2016, eq. 5); when a
//! file (or a set of launches) holds several, the first in measurement order counts. A run
//! that sweeps the library's collective algorithms (`--algorithms`) pairs within one
//! algorithm: the key holds its name.

use crate::plan::Op;
use crate::records::Block;
use std::collections::HashMap;

/// What pairs a block with its baseline: op, message size (bytes), P and the collective
/// algorithm.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BaselineKey {
    pub op: Op,
    /// Message size in bytes.
    pub bytes: u64,
    /// P.
    pub nprocs: u32,
    /// The algorithm's name (`--algorithms`), empty when the run chose none.
    pub algorithm: String,
}

/// Implements [`Configuration`] for a type with `op`, `bytes`, `nprocs`, `delay_s` and
/// `algorithm` (String) fields (a block's digest, a table row): they all pair with their
/// baseline the same way.
macro_rules! configuration {
    ($t:ty) => {
        impl $crate::timeline::Configuration for $t {
            fn baseline_key(&self) -> $crate::timeline::BaselineKey {
                $crate::timeline::BaselineKey {
                    op: self.op,
                    bytes: self.bytes,
                    nprocs: self.nprocs,
                    algorithm: self.algorithm.clone(),
                }
            }
            fn delay_s(&self) -> f64 {
                self.delay_s
            }
        }
    };
}
pub(crate) use configuration;

/// Anything measured for one configuration and one delay: a block, its digest, a table row.
pub trait Configuration {
    /// Its (op, bytes, P).
    fn baseline_key(&self) -> BaselineKey;
    /// Its nominal delay δ, seconds (0 for the undelayed baseline).
    fn delay_s(&self) -> f64;
    /// Whether it is an undelayed baseline (δ = 0).
    fn is_baseline(&self) -> bool {
        self.delay_s() == 0.0
    }
}

impl Configuration for Block {
    fn baseline_key(&self) -> BaselineKey {
        BaselineKey {
            op: self.op,
            bytes: self.bytes,
            nprocs: self.nprocs,
            algorithm: self.algorithm_name().to_string(),
        }
    }
    fn delay_s(&self) -> f64 {
        self.delay_s
    }
}

impl<T: Configuration> Configuration for &T {
    fn baseline_key(&self) -> BaselineKey {
        (*self).baseline_key()
    }
    fn delay_s(&self) -> f64 {
        (*self).delay_s()
    }
}

/// The baseline of `of` among `items`: the first undelayed item with its key that `eligible`
/// accepts (e.g. "also measured in overlap mode").
pub fn baseline_among<'a, T: Configuration + 'a>(
    items: impl IntoIterator<Item = &'a T>,
    of: &impl Configuration,
    eligible: impl Fn(&T) -> bool,
) -> Option<&'a T> {
    let key = of.baseline_key();
    items
        .into_iter()
        .find(|b| b.is_baseline() && b.baseline_key() == key && eligible(b))
}

/// What a reader going block by block keeps of each baseline, for the delayed blocks that
/// come after it (or, pairing after the pass, before it): the first baseline per key wins.
#[derive(Debug, Clone, PartialEq)]
pub struct Baselines<V> {
    kept: HashMap<BaselineKey, V>,
}

impl<V> Default for Baselines<V> {
    fn default() -> Self {
        Baselines {
            kept: HashMap::new(),
        }
    }
}

impl<V> Baselines<V> {
    /// Keeps `value` for `block` when it is a baseline and the first of its key.
    pub fn offer(&mut self, block: &impl Configuration, value: impl FnOnce() -> Option<V>) {
        if block.is_baseline() && !self.kept.contains_key(&block.baseline_key()) {
            if let Some(v) = value() {
                self.kept.insert(block.baseline_key(), v);
            }
        }
    }

    /// What was kept of the baseline of `block`.
    pub fn of(&self, block: &impl Configuration) -> Option<&V> {
        self.kept.get(&block.baseline_key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    #[test]
    fn a_delayed_block_pairs_with_the_baseline_of_its_own_algorithm() {
        let with = |b: &mut Block, name: &str| {
            b.algorithm = Some(crate::plan::algorithms::AlgorithmSetting {
                name: name.into(),
                variable: "coll_tuned_allreduce_algorithm".into(),
                value: (name != "default").then_some(4),
            })
        };
        let mut own = testdata::block(Op::Allreduce, 8, 4, 0.0, 3, 1e-5);
        with(&mut own, "default");
        let mut ring_base = testdata::block(Op::Allreduce, 8, 4, 0.0, 7, 1e-5);
        with(&mut ring_base, "ring");
        let mut ring_late = testdata::block(Op::Allreduce, 8, 4, 50e-6, 7, 1e-5);
        with(&mut ring_late, "ring");
        // The library's own choice was measured first; the ring's late block still takes the
        // ring's baseline.
        let blocks = [own.clone(), ring_base, ring_late.clone()];
        assert_eq!(
            baseline_among(&blocks, &ring_late, |_| true).unwrap().nrep,
            7
        );
        let mut kept = Baselines::default();
        for b in &blocks {
            kept.offer(b, || Some(b.algorithm_name().to_string()));
        }
        assert_eq!(kept.of(&ring_late).map(String::as_str), Some("ring"));
        // Without its own baseline, none: never another algorithm's.
        assert!(baseline_among(&[own], &ring_late, |_| true).is_none());
    }

    #[test]
    fn the_first_eligible_baseline_of_the_same_configuration_pairs() {
        let base_a = testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 1e-5);
        let mut base_b = base_a.clone();
        base_b.nrep = 99;
        let other_size = testdata::block(Op::Allreduce, 16, 2, 0.0, 3, 1e-5);
        let late = testdata::block(Op::Allreduce, 8, 2, 50e-6, 3, 1e-5);
        let blocks = [other_size, late.clone(), base_a, base_b];
        assert_eq!(baseline_among(&blocks, &late, |_| true).unwrap().nrep, 3);
        assert_eq!(
            baseline_among(&blocks, &late, |b| b.nrep == 99)
                .unwrap()
                .nrep,
            99
        );
        assert!(late.baseline_key() == blocks[2].baseline_key() && !late.is_baseline());

        let mut kept = Baselines::default();
        for b in &blocks {
            kept.offer(b, || Some(b.nrep));
        }
        assert_eq!(kept.of(&late), Some(&3));
        assert_eq!(kept.of(&blocks[0]), Some(&3));
    }
}
