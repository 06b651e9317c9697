//! Which configurations `plot --op/--size/--procs/--delay` draws: a run reduced to the blocks
//! the reader asked for, before any figure is built, so every figure kind (the timeline
//! included) shows the same selection.

use super::naming::{pretty_bytes, same_delay};
use super::PlotRun;
use crate::analysis::BlockDigest;
use crate::plan::Op;

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
}
