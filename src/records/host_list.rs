//! A run's hosts in one cell, in the folded host-list notation of Slurm
//! (`SLURM_JOB_NODELIST`) and ClusterShell (`node[01-16,20]`, `r[1-2]sw[1-4]`), folded by the
//! `nodeset` crate. Every row of `export --rows rep`, of the summary and of an analyze table
//! names its run's hosts: listed one by one, a simulated run on 8,192 hosts put 80 KB into
//! each such row; folded, it is `node-[0-8191]`. `scontrol show hostnames`, ClusterShell's
//! `nodeset -e` and python-hostlist expand it again.

use std::collections::HashSet;

/// The distinct names of `hosts` (one per rank, repeats allowed), in order of their first
/// rank.
pub fn distinct(hosts: &[String]) -> Vec<&str> {
    let mut seen = HashSet::with_capacity(hosts.len().min(1 << 16));
    hosts
        .iter()
        .map(String::as_str)
        .filter(|h| seen.insert(*h))
        .collect()
}

/// `hosts` (one per rank, repeats allowed) as a folded host list: the distinct names, with
/// runs of numbers in a name folded into ranges, sorted as ClusterShell sorts them (by the
/// name's letters, then numerically), so not in rank order (per-rank hosts are in the rank
/// rows and in the records header). Empty when there are no hosts. A name the notation
/// cannot hold (one with `[`, `,`, `@` or a space) leaves the list unfolded: the distinct
/// names in rank order joined with `,`, which is also a valid host list when the names are.
pub fn folded(hosts: &[String]) -> String {
    let names = distinct(hosts);
    let joined = names.join(",");
    if names.is_empty()
        || names
            .iter()
            .any(|h| h.contains(['[', ']', ',', '@', ' ', '!']))
    {
        return joined;
    }
    match joined.parse::<nodeset::NodeSet>() {
        // The notation folds what it can parse; a name it would read as an operator or a
        // range keeps the plain list.
        Ok(set) if set.len() == names.len() => set.to_string(),
        _ => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ranks_on_numbered_hosts_fold_into_ranges() {
        let per_rank: Vec<String> = (0..8192).map(|r| format!("node-{}", r / 2)).collect();
        assert_eq!(folded(&per_rank), "node-[0-4095]");
        assert_eq!(
            folded(&names(&["n01", "n01", "n02", "n04", "login"])),
            "login,n[01-02,04]"
        );
        assert_eq!(folded(&names(&["a", "b"])), "a,b");
        assert_eq!(folded(&[]), "");
        // Two numbered dimensions, as on a rack and switch naming.
        assert_eq!(
            folded(&names(&["r1sw1", "r1sw2", "r2sw1", "r2sw2"])),
            "r[1-2]sw[1-2]"
        );
    }

    #[test]
    fn the_folded_list_expands_to_the_distinct_hosts() {
        // Against an independent reading: the crate's own expansion of the folded text.
        let per_rank = names(&["c3", "c1", "c2", "c1", "gpu07", "gpu09", "gpu08", "x-1.lan"]);
        let text = folded(&per_rank);
        let set: nodeset::NodeSet = text.parse().unwrap();
        let mut back: Vec<String> = set.iter().collect();
        back.sort();
        let mut want: Vec<String> = distinct(&per_rank).iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(back, want, "{text}");
    }

    #[test]
    fn names_the_notation_cannot_hold_stay_listed() {
        assert_eq!(folded(&names(&["a[1]", "b"])), "a[1],b");
        assert_eq!(distinct(&names(&["b", "a", "b"])), ["b", "a"]);
    }
}
