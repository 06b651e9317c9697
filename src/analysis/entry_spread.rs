//! How far apart the ranks entered MPI: the recorded start (the reading that released a
//! rank) plus the path from that release to the call, which every window-synchronised run
//! stamps with the time-stamp counter ([`crate::records::StartPathRecord`]). This is what a
//! truth measured outside the tool sees (docs/accuracy.md): on one host, where the ranks
//! share the counter, the spread of the entry stamps needs no clock model at all; across
//! hosts, the entries are placed on the global clock through the recorded starts. What the
//! stamps cannot see, the library's own first instructions, is added from the run's timed
//! calls ([`crate::records::CallEntry`]) when the header has them.

use crate::records::{Block, CallEntry};
use rand::{Rng, SeedableRng};
use statrs::statistics::{Data, OrderStatistics};

/// The entry spreads and paths of some valid repetitions of one block, seconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntrySpreads {
    /// Per repetition: max − min over ranks of (global start − applied delay + path).
    pub global_s: Vec<f64>,
    /// Per repetition, only when every rank ran on one host: max − min over ranks of (entry
    /// counter − applied delay) on rank 0's counter rate, with no clock model involved.
    pub counter_s: Option<Vec<f64>>,
    /// Per rank: its release-to-entry paths over the repetitions.
    pub path_s: Vec<Vec<f64>>,
    /// Repetitions in which a rank entered on another CPU than it was released on.
    pub migrations: usize,
    /// Per repetition and rank (rank-major within a repetition, `ranks` per repetition):
    /// the entry the spread above is taken over (the counter's when every rank ran on one
    /// host, else the global one), seconds from an arbitrary origin.
    pub entries_s: Vec<f64>,
    /// Ranks per repetition of `entries_s`.
    pub ranks: usize,
}

/// The entry spreads of repetitions `reps` of `block` (valid ones, in order); `None` for a
/// block without a window or without start-path stamps (older files, simulated runs), or
/// whose counter rate is unknown.
pub fn entry_spreads(block: &Block, reps: &[u32]) -> Option<EntrySpreads> {
    block.window_s?;
    let sp = block.start_path.as_ref()?;
    let p = block.nprocs as usize;
    if sp.tsc_hz.len() != p || sp.entry_cycles.0.len() != block.nrep as usize * p {
        return None;
    }
    let hz0 = sp.tsc_hz[0];
    if !hz0.is_finite() || sp.tsc_hz.iter().any(|h| !h.is_finite()) {
        return None;
    }
    let base0 = sp.tsc_base_cycles.iter().copied().min().unwrap_or(0);
    let one_host = block.hosts == 1;
    let mut out = EntrySpreads {
        global_s: Vec::with_capacity(reps.len()),
        counter_s: one_host.then(Vec::new),
        path_s: vec![Vec::with_capacity(reps.len()); p],
        migrations: 0,
        entries_s: Vec::with_capacity(reps.len() * p),
        ranks: p,
    };
    for &rep in reps {
        let rep = rep as usize;
        let (mut g, mut c) = (Span::default(), Span::default());
        let mut migrated = false;
        for rank in 0..p {
            let i = rep * p + rank;
            let path = sp.release_to_entry_s(rep, rank, p);
            out.path_s[rank].push(path);
            let delay = block.applied_delay_s.0[i];
            let global = block.t_start_global_s.0[i] - delay + path;
            g.add(global);
            // Differences of raw counters, small enough that rank 0's rate converts them.
            let raw = (sp.tsc_base_cycles[rank] - base0) as f64 + sp.entry_cycles.0[i];
            let counter = raw / hz0 - delay;
            c.add(counter);
            out.entries_s.push(if one_host { counter } else { global });
            migrated |= sp.release_cpu.0[i] != sp.entry_cpu.0[i];
        }
        out.global_s.push(g.width());
        if let Some(v) = out.counter_s.as_mut() {
            v.push(c.width());
        }
        out.migrations += usize::from(migrated);
    }
    Some(out)
}

/// Smallest and largest of some values.
#[derive(Clone, Copy)]
struct Span(f64, f64);

impl Default for Span {
    fn default() -> Self {
        Span(f64::INFINITY, f64::NEG_INFINITY)
    }
}

impl Span {
    fn add(&mut self, x: f64) {
        self.0 = self.0.min(x);
        self.1 = self.1.max(x);
    }
    fn width(self) -> f64 {
        self.1 - self.0
    }
}

/// Appends to `spreads` the spread of each repetition of `b` with every rank's entry moved
/// by a time drawn from its row of `call`; `None` when a rank of `b` has no row.
fn add_call_spreads(
    b: &EntrySpreads,
    call: &CallEntry,
    rng: &mut rand_chacha::ChaCha8Rng,
    spreads: &mut Vec<f64>,
) -> Option<()> {
    if b.ranks == 0 {
        return Some(());
    }
    for rep in b.entries_s.chunks(b.ranks) {
        let mut span = Span::default();
        for (rank, entry) in rep.iter().enumerate() {
            span.add(entry + call.at(rank, rng.random::<f64>())?);
        }
        spreads.push(span.width());
    }
    Some(())
}

/// Median and 95th percentile of `xs`, seconds; `None` when empty.
pub fn median_p95(xs: &[f64]) -> Option<(f64, f64)> {
    let finite: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if finite.is_empty() {
        return None;
    }
    let mut d = Data::new(finite);
    Some((d.median(), d.percentile(95)))
}

/// A run's entry spreads pooled over its blocks, for the end-of-run line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntrySummary {
    /// Median and p95 of the entry spread, seconds: by the shared counter when every block
    /// ran on one host, else on the global clock.
    pub spread_s: (f64, f64),
    /// Whether `spread_s` comes from the shared counter (no clock model).
    pub by_counter: bool,
    /// Median and p95 of the release-to-entry path of the rank whose p95 is largest, and
    /// that rank.
    pub path_s: (f64, f64),
    pub path_rank: usize,
    /// Repetitions in which a rank migrated between release and entry, of `reps`.
    pub migrations: usize,
    pub reps: usize,
    /// Median and p95 of the entry spread with the library's first instructions added, and
    /// the calls per rank they were timed on; `None` without timed calls for every rank.
    pub with_call_s: Option<((f64, f64), u32)>,
}

impl EntrySummary {
    /// Pools `blocks`' entry spreads; `None` when no block has any. With `call` (the
    /// header's timed calls), every rank's entry in every repetition also gets a time drawn
    /// from that rank's spread of the library's first instructions (a fixed-seed draw, so
    /// the line reads the same each time), and [`EntrySummary::with_call_s`] holds the
    /// spread of those entries.
    pub fn of<'a>(
        blocks: impl IntoIterator<Item = &'a EntrySpreads>,
        call: Option<&CallEntry>,
    ) -> Option<Self> {
        let (mut global, mut counter, mut all_counter) = (Vec::new(), Vec::new(), true);
        let mut paths: Vec<Vec<f64>> = Vec::new();
        let mut migrations = 0;
        let mut with_call =
            call.map(|c| (c, Vec::new(), rand_chacha::ChaCha8Rng::seed_from_u64(1)));
        for b in blocks {
            if let Some((c, spreads, rng)) = with_call.as_mut() {
                if add_call_spreads(b, c, rng, spreads).is_none() {
                    with_call = None;
                }
            }
            global.extend(&b.global_s);
            match &b.counter_s {
                Some(c) => counter.extend(c),
                None => all_counter = false,
            }
            if paths.len() < b.path_s.len() {
                paths.resize(b.path_s.len(), Vec::new());
            }
            for (r, p) in b.path_s.iter().enumerate() {
                paths[r].extend(p);
            }
            migrations += b.migrations;
        }
        let reps = global.len();
        let by_counter = all_counter && !counter.is_empty();
        let spread_s = median_p95(if by_counter { &counter } else { &global })?;
        let (path_rank, path_s) = paths
            .iter()
            .enumerate()
            .filter_map(|(r, p)| median_p95(p).map(|m| (r, m)))
            .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1))?;
        Some(EntrySummary {
            spread_s,
            by_counter,
            path_s,
            path_rank,
            migrations,
            reps,
            with_call_s: with_call.and_then(|(c, s, _)| Some((median_p95(&s)?, c.calls))),
        })
    }

    /// The clause of the end-of-run line that states the entry spread and the path.
    pub fn clause(&self) -> String {
        let us = |s: f64| s * 1e6;
        let how = if self.by_counter {
            "by the ranks' shared time-stamp counter (one host, so no clock model in it)"
        } else {
            "on the global clock (recorded start plus each rank's path)"
        };
        let (m, p) = (us(self.spread_s.0), us(self.spread_s.1));
        let spread = match self.with_call_s {
            Some(((cm, cp), calls)) => format!(
                "{how}, with the library's first instructions drawn from each rank's {calls} \
                 timed calls into it: median {:.3} us, p95 {:.3} us (up to the last \
                 instruction before the call: median {m:.3} us, p95 {p:.3} us)",
                us(cm),
                us(cp)
            ),
            None => format!(
                "{how}: median {m:.3} us, p95 {p:.3} us (up to the last instruction before \
                 the call; the library's own first instructions are not in it)"
            ),
        };
        format!(
            "at the entry into MPI, {spread}; the path from release to the call took median \
             {:.3} us, p95 {:.3} us on rank {}, and {} of {} repetitions had a rank change \
             CPU on it",
            us(self.path_s.0),
            us(self.path_s.1),
            self.path_rank,
            self.migrations,
            self.reps
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::{testdata, F64Array, StartPathRecord};

    /// 2 ranks, 2 repetitions at 1 GHz: rank 1's path is 1 us longer in repetition 1.
    fn block() -> Block {
        let mut b = testdata::block(Op::Allreduce, 8, 2, 0.0, 2, 1e-6);
        b.window_s = Some(1e-3);
        b.hosts = 1;
        b.t_start_global_s.0 = vec![10.0, 10.0, 11.0, 11.0];
        b.applied_delay_s.0 = vec![0.0; 4];
        b.start_path = Some(StartPathRecord {
            tsc_base_cycles: vec![5_000, 5_000],
            tsc_hz: vec![1e9, 1e9],
            // Releases 1 s apart on the counter, as on the clock.
            release_cycles: F64Array(vec![0.0, 0.0, 1e9, 1e9]),
            entry_cycles: F64Array(vec![100.0, 100.0, 1e9 + 100.0, 1e9 + 1100.0]),
            release_cpu: F64Array(vec![0.0, 1.0, 0.0, 1.0]),
            entry_cpu: F64Array(vec![0.0, 1.0, 0.0, 0.0]),
            run_delay_s: F64Array(Vec::new()),
            steal_s: F64Array(Vec::new()),
        });
        b
    }

    #[test]
    fn the_path_widens_the_spread_that_the_recorded_starts_show_as_zero() {
        let e = entry_spreads(&block(), &[0, 1]).unwrap();
        assert!(e.global_s[0].abs() < 1e-12 && (e.global_s[1] - 1e-6).abs() < 1e-12);
        let c = e.counter_s.as_ref().unwrap();
        assert!(c[0].abs() < 1e-12 && (c[1] - 1e-6).abs() < 1e-12, "{c:?}");
        assert_eq!(e.migrations, 1);
        assert!((e.path_s[1][1] - 1.1e-6).abs() < 1e-12);
        let s = EntrySummary::of([&e], None).unwrap();
        assert!(s.by_counter);
        assert_eq!(s.path_rank, 1);
        assert!(s.clause().contains("1 of 2 repetitions"), "{}", s.clause());
    }

    #[test]
    fn the_timed_calls_widen_the_entry_spread_by_their_own_spread() {
        // Entries equal in every repetition; rank 1's call takes 0 or 200 ns more than its
        // median, half the time each, rank 0's always its median: the spread with the calls
        // is 0 or 200 ns, so its p95 is 200 ns and its median 0 or 200 ns (a fair draw).
        let mut b = block();
        b.start_path.as_mut().unwrap().entry_cycles =
            crate::records::F64Array(vec![100.0, 100.0, 1e9 + 100.0, 1e9 + 100.0]);
        let e = entry_spreads(&b, &[0, 1]).unwrap();
        let many: Vec<EntrySpreads> = (0..200).map(|_| e.clone()).collect();
        let mut rank1 = vec![0.0; 50];
        rank1.extend(vec![200e-9; 51]);
        let call = CallEntry {
            calls: 1000,
            wtick_s: 1e-9,
            percentiles_s: vec![vec![0.0; 101], rank1],
        };
        let s = EntrySummary::of(many.iter(), Some(&call)).unwrap();
        assert!(s.spread_s.1.abs() < 1e-12, "{s:?}");
        let ((_, p95), calls) = s.with_call_s.unwrap();
        assert!((p95 - 200e-9).abs() < 1e-12 && calls == 1000, "{s:?}");
        assert!(s.clause().contains("1000 timed calls"), "{}", s.clause());
        assert!(
            s.clause().contains("p95 0.200 us (up to the last"),
            "{}",
            s.clause()
        );
        // A rank without timed calls: no figure, rather than one that leaves it out.
        let short = CallEntry {
            percentiles_s: vec![vec![0.0; 101]],
            ..call
        };
        assert!(EntrySummary::of([&e], Some(&short))
            .unwrap()
            .with_call_s
            .is_none());
    }

    #[test]
    fn across_hosts_the_counter_is_not_used_and_old_blocks_have_none() {
        let mut b = block();
        b.hosts = 2;
        let e = entry_spreads(&b, &[0, 1]).unwrap();
        assert!(e.counter_s.is_none());
        assert!(!EntrySummary::of([&e], None).unwrap().by_counter);
        b.start_path = None;
        assert!(entry_spreads(&b, &[0]).is_none());
    }
}
