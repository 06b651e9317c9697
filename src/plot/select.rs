//! Which configurations `plot --op/--size/--procs/--delay` draws: a run reduced to the blocks
//! the reader asked for, before any figure is built, so every figure kind (the timeline
//! included) shows the same selection.

use super::naming::{pretty_bytes, same_delay};
use super::PlotRun;
use crate::analysis::BlockDigest;
use crate::plan::Op;
use crate::records::{Block, RecordsError};
use thiserror::Error;

/// The configurations to draw; an empty list selects every value of its dimension.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Kernels.
    pub ops: Vec<Op>,
    /// Message sizes, bytes (barriers, which have none, are kept by any size).
    pub sizes: Vec<u64>,
    /// Process counts P.
    pub procs: Vec<u32>,
    /// Delay model labels (`50us`, `exp:20us`) as the records give them. The undelayed
    /// baseline of every kept configuration is always kept: benefits need it.
    pub delays: Vec<String>,
}

impl Selection {
    /// True when nothing was asked for: every configuration is drawn.
    pub fn is_everything(&self) -> bool {
        self.ops.is_empty()
            && self.sizes.is_empty()
            && self.procs.is_empty()
            && self.delays.is_empty()
    }

    /// True when (op, bytes, P) is selected.
    pub fn keeps_config(&self, op: Op, bytes: u64, p: u32) -> bool {
        (self.ops.is_empty() || self.ops.contains(&op))
            && (self.sizes.is_empty() || !op.has_payload() || self.sizes.contains(&bytes))
            && (self.procs.is_empty() || self.procs.contains(&p))
    }

    /// True when a block of delay model `model` and nominal δ `delay_s` (seconds) is selected;
    /// the baseline (δ = 0) always is.
    pub fn keeps_delay(&self, model: &str, delay_s: f64) -> bool {
        delay_s <= 0.0 || self.delays.is_empty() || self.delays.iter().any(|d| d == model)
    }

    /// True when the block is selected.
    pub fn keeps(&self, b: &BlockDigest) -> bool {
        self.keeps_config(b.op, b.bytes, b.nprocs) && self.keeps_delay(&b.delay_model, b.delay_s)
    }

    /// True when a records block is selected.
    pub fn keeps_block(&self, b: &crate::records::Block) -> bool {
        self.keeps_config(b.op, b.bytes, b.nprocs) && self.keeps_delay(&b.delay_model, b.delay_s)
    }

    /// `run` with only the selected blocks (and their distribution rows and heatmaps).
    pub fn apply(&self, mut run: PlotRun) -> PlotRun {
        if self.is_everything() {
            return run;
        }
        let blocks = std::mem::take(&mut run.launch.blocks);
        let extras = std::mem::take(&mut run.extras);
        for (b, x) in blocks.into_iter().zip(extras) {
            if self.keeps(&b) {
                run.launch.blocks.push(b);
                run.extras.push(x);
            }
        }
        run.heat.blocks.retain(|h| {
            self.keeps_config(h.op, h.bytes, h.nprocs)
                && self.keeps_delay(&h.delay_model, h.delay_s)
        });
        run.distribution.retain(|r| {
            self.keeps_config(r.op, r.bytes, r.nprocs) && self.keeps_delay(&r.delay_model, 1.0)
        });
        run
    }

    /// True for an overlap row of (op, bytes, P) and nominal δ `delay_s`: overlap rows carry
    /// no model label, so a delay selection keeps the fixed delays it names.
    pub fn keeps_overlap(&self, op: Op, bytes: u64, p: u32, delay_s: f64) -> bool {
        self.keeps_config(op, bytes, p)
            && (delay_s <= 0.0
                || self.delays.is_empty()
                || self.delays.iter().any(|d| {
                    crate::units::parse_duration_s(d).is_ok_and(|s| same_delay(s, delay_s))
                }))
    }

    /// Whether every value asked for is in the file whose configurations are `offered`, and
    /// the values together keep a configuration: `plot --size 5KiB` of a file without 5 KiB
    /// would otherwise draw only baselines, `--procs 3` nothing, and end as if it had worked.
    ///
    /// Errors: [`SelectError::NoMatch`] naming what was asked and listing what the file has.
    pub fn check(&self, offered: &Offered) -> Result<(), SelectError> {
        if self.is_everything() {
            return Ok(());
        }
        let no_match = |asked: String, why: &str| SelectError::NoMatch {
            asked,
            why: why.to_string(),
            offered: offered.describe(),
        };
        let configs = &offered.configs;
        let absent = missing(
            "--op",
            &self.ops,
            |o| configs.iter().any(|c| c.op == *o),
            |o| o.name().into(),
        )
        .or_else(|| {
            let sizes = offered.sizes();
            missing(
                "--size",
                &self.sizes,
                |s| sizes.contains(s),
                |&b| pretty_bytes(b),
            )
        })
        .or_else(|| {
            let has = |p: &u32| configs.iter().any(|c| c.nprocs == *p);
            missing("--procs", &self.procs, has, u32::to_string)
        })
        .or_else(|| {
            let has = |d: &String| configs.iter().any(|c| c.delay_model == *d);
            missing("--delay", &self.delays, has, String::clone)
        });
        if let Some(asked) = absent {
            return Err(no_match(asked, "is not in the file"));
        }
        // Each value is there; together they must still keep a configuration, and a delayed
        // block of it when delays were asked for.
        let kept = offered.configs.iter().any(|c| {
            self.keeps_config(c.op, c.bytes, c.nprocs)
                && (self.delays.is_empty()
                    || (c.delay_s > 0.0 && self.keeps_delay(&c.delay_model, c.delay_s)))
        });
        if kept {
            Ok(())
        } else {
            let asked = self.describe();
            let asked = asked
                .strip_prefix("selected: ")
                .unwrap_or(&asked)
                .to_string();
            Err(no_match(
                asked,
                "together match no configuration of the file",
            ))
        }
    }

    /// What was selected, for subtitles: `selected: allreduce · 8 B · P = 4`; empty when
    /// everything is drawn.
    pub fn describe(&self) -> String {
        if self.is_everything() {
            return String::new();
        }
        let mut parts: Vec<String> = Vec::new();
        if !self.ops.is_empty() {
            parts.push(
                self.ops
                    .iter()
                    .map(|o| o.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
        if !self.sizes.is_empty() {
            let s: Vec<String> = self.sizes.iter().map(|&b| pretty_bytes(b)).collect();
            parts.push(s.join(", "));
        }
        if !self.procs.is_empty() {
            let p: Vec<String> = self.procs.iter().map(u32::to_string).collect();
            parts.push(format!("P = {}", p.join(", ")));
        }
        if !self.delays.is_empty() {
            parts.push(format!("delay {}", self.delays.join(", ")));
        }
        format!("selected: {}", parts.join(", "))
    }
}

/// Why `plot --op/--size/--procs/--delay` cannot draw a records file.
#[derive(Debug, Error)]
pub enum SelectError {
    /// The file could not be read.
    #[error(transparent)]
    Records(#[from] RecordsError),
    /// A value asked for is not in the file, or the values together keep no configuration.
    #[error("{asked} {why}: it has {offered}")]
    NoMatch {
        /// The options as asked, e.g. `--size 5 KiB`.
        asked: String,
        /// `is not in the file`, or why the values together keep nothing.
        why: String,
        /// What the file has ([`Offered::describe`]).
        offered: String,
    },
}

/// One configuration a records file holds.
#[derive(Debug, Clone, PartialEq)]
struct Config {
    op: Op,
    bytes: u64,
    nprocs: u32,
    delay_model: String,
    delay_s: f64,
}

/// `flag` and the values of it asked for (`asked`) that the file lacks (`has` false), each
/// written by `show`: `--size 5 KiB,1 MiB`; `None` when the file has every one.
fn missing<T>(
    flag: &str,
    asked: &[T],
    has: impl Fn(&T) -> bool,
    show: impl Fn(&T) -> String,
) -> Option<String> {
    let shown: Vec<String> = asked.iter().filter(|v| !has(v)).map(show).collect();
    (!shown.is_empty()).then(|| format!("{flag} {}", shown.join(",")))
}

/// The distinct configurations of a records file (op, size, P, delay model), gathered while
/// it is read, for [`Selection::check`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Offered {
    configs: Vec<Config>,
}

impl Offered {
    /// Notes the configuration of `block`.
    pub fn add(&mut self, block: &Block) {
        self.note(Config {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            delay_model: block.delay_model.clone(),
            delay_s: block.delay_s,
        });
    }

    /// Notes the configuration of a block's digest (`analyze` reads digests, not blocks).
    pub fn add_digest(&mut self, block: &BlockDigest) {
        self.note(Config {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            delay_model: block.delay_model.clone(),
            delay_s: block.delay_s,
        });
    }

    /// Keeps `c` once, in the order first seen.
    fn note(&mut self, c: Config) {
        if !self.configs.contains(&c) {
            self.configs.push(c);
        }
    }

    /// The message sizes of kernels with a payload, ascending.
    fn sizes(&self) -> Vec<u64> {
        let mut sizes: Vec<u64> = self
            .configs
            .iter()
            .filter(|c| c.op.has_payload())
            .map(|c| c.bytes)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// `ops allreduce, bcast; sizes 8 B, 1 KiB; P 2, 4; delays 50us, exp:20us`: what the
    /// options can choose from, each list in the order of the file (sizes, P and delays
    /// ascending).
    pub fn describe(&self) -> String {
        if self.configs.is_empty() {
            return "no complete block".into();
        }
        let mut ops: Vec<&str> = Vec::new();
        let mut procs: Vec<u32> = Vec::new();
        let mut delays: Vec<(f64, &str)> = Vec::new();
        for c in &self.configs {
            if !ops.contains(&c.op.name()) {
                ops.push(c.op.name());
            }
            if !procs.contains(&c.nprocs) {
                procs.push(c.nprocs);
            }
            if c.delay_s > 0.0 && !delays.iter().any(|d| d.1 == c.delay_model) {
                delays.push((c.delay_s, &c.delay_model));
            }
        }
        procs.sort_unstable();
        delays.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
        let list = |items: Vec<String>| {
            if items.is_empty() {
                "none".to_string()
            } else {
                items.join(", ")
            }
        };
        format!(
            "ops {}; sizes {}; P {}; delays {}",
            ops.join(", "),
            list(self.sizes().into_iter().map(pretty_bytes).collect()),
            list(procs.iter().map(u32::to_string).collect()),
            list(delays.iter().map(|d| d.1.to_string()).collect()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    fn run() -> PlotRun {
        let mut blocks = Vec::new();
        for op in [Op::Allreduce, Op::Bcast, Op::Barrier] {
            for bytes in [8, 1024] {
                for p in [2, 4] {
                    for d in [0.0, 50e-6] {
                        if !op.has_payload() && bytes != 8 {
                            continue; // a barrier has one size
                        }
                        let bytes = if op.has_payload() { bytes } else { 0 };
                        blocks.push(testdata::block(op, bytes, p, d, 5, 10e-6));
                    }
                }
            }
        }
        let mut exp = testdata::block(Op::Allreduce, 8, 4, 20e-6, 5, 10e-6);
        exp.delay_model = "exp:20us".into();
        blocks.push(exp);
        PlotRun::of(&testdata::records(4, blocks))
    }

    #[test]
    fn filters_select_blocks_and_keep_baselines() {
        let all = run();
        let n = all.launch.blocks.len();
        assert_eq!(
            Selection::default().apply(all.clone()).launch.blocks.len(),
            n
        );
        let sel = Selection {
            ops: vec![Op::Allreduce, Op::Barrier],
            sizes: vec![8],
            procs: vec![4],
            delays: vec!["exp:20us".into()],
        };
        let r = sel.apply(all.clone());
        let got: Vec<(Op, u64, u32, String)> = r
            .launch
            .blocks
            .iter()
            .map(|b| (b.op, b.bytes, b.nprocs, b.delay_model.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Op::Allreduce, 8, 4, "0".into()),
                (Op::Barrier, 0, 4, "0".into()),
                (Op::Allreduce, 8, 4, "exp:20us".into()),
            ]
        );
        assert_eq!(r.extras.len(), r.launch.blocks.len());
        // The extras stay aligned with their blocks.
        for (b, x) in r.launch.blocks.iter().zip(&r.extras) {
            assert_eq!(x.median.as_ref().unwrap().1.nprocs, b.nprocs);
        }
        let fixed = Selection {
            delays: vec!["50us".into()],
            ..Default::default()
        };
        let r = fixed.apply(all);
        assert!(r.launch.blocks.iter().all(|b| b.delay_model != "exp:20us"));
        assert_eq!(r.launch.blocks.len(), n - 1);
        assert_eq!(
            sel.describe(),
            "selected: allreduce, barrier, 8 B, P = 4, delay exp:20us"
        );
        assert!(fixed.keeps_overlap(Op::Ibcast, 8, 2, 50e-6));
        assert!(!fixed.keeps_overlap(Op::Ibcast, 8, 2, 20e-6));
    }

    fn offered() -> Offered {
        let mut o = Offered::default();
        for b in [
            testdata::block(Op::Allreduce, 8, 2, 0.0, 1, 1e-5),
            testdata::block(Op::Allreduce, 8, 2, 50e-6, 1, 1e-5),
            testdata::block(Op::Allreduce, 1024, 4, 0.0, 1, 1e-5),
            testdata::block(Op::Barrier, 0, 4, 0.0, 1, 1e-5),
        ] {
            o.add(&b);
        }
        o
    }

    #[test]
    fn filters_of_values_the_file_lacks_are_refused_naming_what_it_has() {
        let o = offered();
        let has = "it has ops allreduce, barrier; sizes 8 B, 1 KiB; P 2, 4; delays 50us";
        for (sel, asked) in [
            (
                Selection {
                    sizes: vec![5 * 1024],
                    ..Default::default()
                },
                "--size 5 KiB is not in the file",
            ),
            (
                Selection {
                    procs: vec![3],
                    ..Default::default()
                },
                "--procs 3 is not in the file",
            ),
            (
                Selection {
                    delays: vec!["20us".into()],
                    ..Default::default()
                },
                "--delay 20us is not in the file",
            ),
            (
                Selection {
                    ops: vec![Op::Bcast],
                    ..Default::default()
                },
                "--op bcast is not in the file",
            ),
            (
                Selection {
                    sizes: vec![1024],
                    delays: vec!["50us".into()],
                    ..Default::default()
                },
                "1 KiB, delay 50us together match no configuration of the file",
            ),
        ] {
            let e = sel.check(&o).unwrap_err().to_string();
            assert_eq!(e, format!("{asked}: {has}"));
        }
        for sel in [
            Selection::default(),
            Selection {
                sizes: vec![8],
                procs: vec![2],
                delays: vec!["50us".into()],
                ops: vec![Op::Allreduce],
            },
            // A barrier has no size: any size keeps it.
            Selection {
                ops: vec![Op::Barrier],
                sizes: vec![1024],
                ..Default::default()
            },
        ] {
            assert!(sel.check(&o).is_ok(), "{sel:?}");
        }
    }
}
