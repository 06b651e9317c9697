//! Which ranks are delayed in a repetition.
//!
//! # Grammar
//!
//! A comma-separated list of items; the selection is their union. Blanks around items are
//! ignored, keywords are case-insensitive. Ranks are ranks of the measuring sub-communicator
//! (0..P-1, where P is one of the process counts of `--procs`; see the README).
//!
//! | item       | ranks                                                         |
//! |------------|---------------------------------------------------------------|
//! | `N`        | rank N                                                        |
//! | `A-B`      | ranks A to B inclusive (A ≤ B)                                |
//! | `last`     | rank P-1                                                      |
//! | `all`      | every rank 0..P-1 (with a sampled model: *noise* mode)        |
//! | `random:K` | K ranks drawn anew in every repetition (K ≥ 1)                |
//! | `host:I`   | every rank on the I-th host                                   |
//!
//! The K ranks of `random:K` are distinct from each other and from the ranks the other items
//! select, so `0,random:2` delays exactly three ranks; a selection has at most one `random:K`.
//! Hosts are numbered from 0 in the order of their first rank among ranks 0..P-1, so `host:0`
//! is the host of rank 0.
//!
//! Examples: `0`, `0,last`, `2-5`, `all`, `random:3`, `0,random:2` (rank 0 and two others),
//! `host:1`.

use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// One item of a [`RankSelection`] (grammar in the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankItem {
    /// `N`.
    Rank(u32),
    /// `A-B`, inclusive, A ≤ B.
    Range(u32, u32),
    /// `last`: rank P-1.
    Last,
    /// `all`.
    All,
    /// `random:K`, K ≥ 1.
    Random(u32),
    /// `host:I`.
    Host(u32),
}

/// Which ranks are delayed: a union of [`RankItem`]s, at most one of them random.
///
/// Parsed by [`FromStr`] (grammar in the module docs), written back by [`fmt::Display`] in the
/// same grammar; serde stores it as that string and checks it when reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RankSelection {
    items: Vec<RankItem>,
}

/// Why a rank selection was rejected, when parsed ([`FromStr`], [`RankSelection::new`]) or
/// checked against P and the hosts ([`RankSelection::validate`]).
#[derive(Debug, Clone, Error, PartialEq)]
pub enum RankError {
    #[error("rank selection is empty: give ranks such as 0, 2-5, last, all, random:2 or host:1")]
    Empty,
    #[error("cannot read '{item}' in rank selection '{spec}': expected N, A-B, last, all, random:K or host:I, e.g. 0,2-3")]
    BadItem { spec: String, item: String },
    #[error("rank range {from}-{to} runs backwards: write the lower rank first, e.g. {to}-{from}")]
    Backwards { from: u32, to: u32 },
    #[error("random:0 selects no rank: give K >= 1, e.g. random:2")]
    RandomZero,
    #[error("rank selection '{spec}' has more than one random:K item: give one, e.g. 0,random:3")]
    TwoRandom { spec: String },
    #[error("ranks cannot be selected among P = 0 processes")]
    NoProcesses,
    #[error("rank {rank} is not a rank of P = {p} (ranks 0..{last}): choose ranks below every P", last = p - 1)]
    RankOutside { rank: u32, p: u32 },
    #[error("random:{k} needs {k} ranks besides the {fixed} the other items select, but P = {p} has only {free} left: lower K or raise P", free = p - fixed.min(p))]
    TooManyRandom { k: u32, fixed: u32, p: u32 },
    #[error("host:{index} does not exist: ranks 0..{last} run on {hosts} host(s), numbered 0..{last_host} in order of their first rank", last = p - 1, last_host = hosts - 1)]
    HostOutside { index: u32, hosts: u32, p: u32 },
    #[error("host names are known for {given} ranks, but P = {p} needs one per rank")]
    HostsShort { given: usize, p: u32 },
}

impl RankSelection {
    /// A selection of `items`, checked as [`FromStr`] checks them. Errors:
    /// [`RankError::Empty`], [`RankError::Backwards`], [`RankError::RandomZero`],
    /// [`RankError::TwoRandom`].
    pub fn new(items: Vec<RankItem>) -> Result<Self, RankError> {
        if items.is_empty() {
            return Err(RankError::Empty);
        }
        for item in &items {
            match *item {
                RankItem::Range(from, to) if from > to => {
                    return Err(RankError::Backwards { from, to })
                }
                RankItem::Random(0) => return Err(RankError::RandomZero),
                _ => {}
            }
        }
        let sel = RankSelection { items };
        if sel
            .items
            .iter()
            .filter(|i| matches!(i, RankItem::Random(_)))
            .count()
            > 1
        {
            return Err(RankError::TwoRandom {
                spec: sel.to_string(),
            });
        }
        Ok(sel)
    }

    /// The selection of the single rank `rank` (the classic late arrival, Niethammer et al. 2016, §III-D).
    pub fn rank(rank: u32) -> Self {
        RankSelection {
            items: vec![RankItem::Rank(rank)],
        }
    }

    /// The selection `all` (noise mode with a sampled model).
    pub fn all() -> Self {
        RankSelection {
            items: vec![RankItem::All],
        }
    }

    /// The items, in the order given.
    pub fn items(&self) -> &[RankItem] {
        &self.items
    }

    fn random_k(&self) -> Option<u32> {
        self.items.iter().find_map(|i| match *i {
            RankItem::Random(k) => Some(k),
            _ => None,
        })
    }

    /// The largest rank named explicitly by an `N` or `A-B` item, or `None` when there is
    /// none; `last`, `all`, `random:K` and `host:I` adapt to P. A plan can compare it with its
    /// smallest P before measuring.
    pub fn max_fixed_rank(&self) -> Option<u32> {
        self.items
            .iter()
            .filter_map(|i| match *i {
                RankItem::Rank(r) => Some(r),
                RankItem::Range(_, to) => Some(to),
                _ => None,
            })
            .max()
    }

    /// Checks the selection against P = `p` processes whose host names are `hosts[..p]`
    /// (index = rank; at least `p` entries).
    ///
    /// Errors: [`RankError::NoProcesses`], [`RankError::HostsShort`],
    /// [`RankError::RankOutside`] (N or B ≥ P), [`RankError::HostOutside`] (I ≥ number of
    /// hosts of ranks 0..P-1), [`RankError::TooManyRandom`] (K more than the ranks the other
    /// items leave).
    pub fn validate(&self, p: u32, hosts: &[String]) -> Result<(), RankError> {
        if p == 0 {
            return Err(RankError::NoProcesses);
        }
        if hosts.len() < p as usize {
            return Err(RankError::HostsShort {
                given: hosts.len(),
                p,
            });
        }
        let groups = host_groups(p, hosts);
        for item in &self.items {
            match *item {
                RankItem::Rank(rank) | RankItem::Range(_, rank) if rank >= p => {
                    return Err(RankError::RankOutside { rank, p })
                }
                RankItem::Host(index) if index as usize >= groups.len() => {
                    return Err(RankError::HostOutside {
                        index,
                        hosts: groups.len() as u32,
                        p,
                    })
                }
                _ => {}
            }
        }
        if let Some(k) = self.random_k() {
            let fixed = self.fixed_ranks(p, hosts).len() as u32;
            if fixed + k > p {
                return Err(RankError::TooManyRandom { k, fixed, p });
            }
        }
        Ok(())
    }

    /// The ranks every repetition delays, sorted: all items except `random:K`, resolved for
    /// P = `p` and `hosts` (index = rank). Ranks ≥ P and hosts that do not exist are left out;
    /// [`RankSelection::validate`] reports them.
    pub fn fixed_ranks(&self, p: u32, hosts: &[String]) -> Vec<u32> {
        self.fixed_set(p, hosts).into_iter().collect()
    }

    fn fixed_set(&self, p: u32, hosts: &[String]) -> BTreeSet<u32> {
        let mut set = BTreeSet::new();
        let mut groups = None;
        for item in &self.items {
            match *item {
                RankItem::Rank(r) => {
                    set.insert(r);
                }
                RankItem::Range(from, to) => set.extend(from..=to.min(p.saturating_sub(1))),
                RankItem::Last => {
                    set.extend(p.checked_sub(1));
                }
                RankItem::All => set.extend(0..p),
                RankItem::Random(_) => {}
                RankItem::Host(i) => {
                    let groups = groups.get_or_insert_with(|| host_groups(p, hosts));
                    if let Some(g) = groups.get(i as usize) {
                        set.extend(g.iter().copied());
                    }
                }
            }
        }
        set.retain(|&r| r < p);
        set
    }

    /// The ranks delayed in one repetition, sorted and distinct: [`RankSelection::fixed_ranks`]
    /// plus, for `random:K`, K ranks drawn uniformly without replacement from the others.
    ///
    /// `rng` is only used for `random:K`, so fixed selections leave the stream untouched. With
    /// an invalid selection K is capped at the ranks left.
    pub fn ranks_for_rep<R: Rng + ?Sized>(
        &self,
        p: u32,
        hosts: &[String],
        rng: &mut R,
    ) -> Vec<u32> {
        let mut set = self.fixed_set(p, hosts);
        if let Some(k) = self.random_k() {
            let pool: Vec<u32> = (0..p).filter(|r| !set.contains(r)).collect();
            let k = (k as usize).min(pool.len());
            for i in rand::seq::index::sample(rng, pool.len(), k) {
                set.insert(pool[i]);
            }
        }
        set.into_iter().collect()
    }
}

/// Ranks 0..p-1 grouped by host name, groups in the order of their first rank.
fn host_groups(p: u32, hosts: &[String]) -> Vec<Vec<u32>> {
    // A map from host to group, not a search of the groups: with one host per rank (the
    // LogGOPS engine's nodes) the search compared P^2 / 2 names, 73 % of a 65,536-rank
    // simulation's time, and days at 2^20.
    let mut index: fnv::FnvHashMap<&str, usize> = fnv::FnvHashMap::default();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (rank, host) in hosts.iter().take(p as usize).enumerate() {
        let next = groups.len();
        let g = *index.entry(host.as_str()).or_insert(next);
        if g == next {
            groups.push(Vec::new());
        }
        groups[g].push(rank as u32);
    }
    groups
}

impl FromStr for RankSelection {
    type Err = RankError;

    /// Parses the grammar of the module docs. Errors: those of [`RankSelection::new`] and
    /// [`RankError::BadItem`].
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        if spec.trim().is_empty() {
            return Err(RankError::Empty);
        }
        let items = spec
            .split(',')
            .map(|raw| {
                let item = raw.trim().to_ascii_lowercase();
                let bad = || RankError::BadItem {
                    spec: spec.to_string(),
                    item: raw.trim().to_string(),
                };
                let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
                Ok(match item.as_str() {
                    "last" => RankItem::Last,
                    "all" => RankItem::All,
                    _ => {
                        if let Some(k) = item.strip_prefix("random:") {
                            RankItem::Random(num(k)?)
                        } else if let Some(i) = item.strip_prefix("host:") {
                            RankItem::Host(num(i)?)
                        } else if let Some((a, b)) = item.split_once('-') {
                            RankItem::Range(num(a)?, num(b)?)
                        } else {
                            RankItem::Rank(num(&item)?)
                        }
                    }
                })
            })
            .collect::<Result<Vec<_>, RankError>>()?;
        RankSelection::new(items)
    }
}

impl fmt::Display for RankSelection {
    /// Writes the selection in the grammar of the module docs, e.g. `0,2-5,random:2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match item {
                RankItem::Rank(r) => write!(f, "{r}")?,
                RankItem::Range(a, b) => write!(f, "{a}-{b}")?,
                RankItem::Last => f.write_str("last")?,
                RankItem::All => f.write_str("all")?,
                RankItem::Random(k) => write!(f, "random:{k}")?,
                RankItem::Host(h) => write!(f, "host:{h}")?,
            }
        }
        Ok(())
    }
}

impl From<RankSelection> for String {
    fn from(sel: RankSelection) -> String {
        sel.to_string()
    }
}

impl TryFrom<String> for RankSelection {
    type Error = RankError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn hosts(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parse_and_print() {
        let sel: RankSelection = " 0, 2-4 ,LAST,random:2 ".parse().unwrap();
        assert_eq!(
            sel.items(),
            &[
                RankItem::Rank(0),
                RankItem::Range(2, 4),
                RankItem::Last,
                RankItem::Random(2)
            ]
        );
        assert_eq!(sel.to_string(), "0,2-4,last,random:2");
        assert_eq!(sel.max_fixed_rank(), Some(4));
        assert_eq!(
            "all".parse::<RankSelection>().unwrap().max_fixed_rank(),
            None
        );
        let json = serde_json::to_string(&sel).unwrap();
        assert_eq!(json, "\"0,2-4,last,random:2\"");
        assert_eq!(serde_json::from_str::<RankSelection>(&json).unwrap(), sel);
        assert!(serde_json::from_str::<RankSelection>("\"5-2\"").is_err());
    }

    #[test]
    fn resolve_fixed_items() {
        let h = hosts(&["a", "a", "b", "b", "c", "c"]);
        let sel: RankSelection = "0,last,host:1".parse().unwrap();
        assert_eq!(sel.fixed_ranks(6, &h), vec![0, 2, 3, 5]);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        assert_eq!(sel.ranks_for_rep(6, &h, &mut rng), vec![0, 2, 3, 5]);
        // Host numbering follows the ranks of the sub-communicator only.
        let h = hosts(&["x", "y", "x", "z"]);
        let sel: RankSelection = "host:1".parse().unwrap();
        assert_eq!(sel.fixed_ranks(4, &h), vec![1]);
        assert_eq!(
            sel.validate(1, &h),
            Err(RankError::HostOutside {
                index: 1,
                hosts: 1,
                p: 1
            })
        );
    }

    #[test]
    fn validation_messages() {
        let h = hosts(&["a"; 4]);
        let sel: RankSelection = "1,random:3".parse().unwrap();
        assert_eq!(sel.validate(4, &h), Ok(()));
        assert_eq!(
            sel.validate(3, &h),
            Err(RankError::TooManyRandom {
                k: 3,
                fixed: 1,
                p: 3
            })
        );
        let sel: RankSelection = "0-3".parse().unwrap();
        let e = sel.validate(2, &h).unwrap_err();
        assert_eq!(e, RankError::RankOutside { rank: 3, p: 2 });
        assert!(e.to_string().contains("ranks 0..1"), "{e}");
        assert_eq!(
            sel.validate(4, &h[..2]),
            Err(RankError::HostsShort { given: 2, p: 4 })
        );
        assert_eq!(sel.validate(0, &h), Err(RankError::NoProcesses));
    }
}
