//! The sweep as `tune` needs it: per (op, size, P, arrival pattern, algorithm) the valid
//! t_globals, pooled over the records files given, with the algorithm's variable, value and
//! fingerprint as the run recorded them.

use super::TuneError;
use crate::analysis::valid_t_globals;
use crate::plan::Op;
use crate::records::Block;
use crate::timeline::{GlobalTimes, Timeline};
use std::path::Path;

/// The pattern name of the undelayed blocks: every rank arrives together.
pub const BALANCED: &str = "balanced";

/// One configuration measured with one algorithm under one arrival pattern, pooled over the
/// launches that measured it.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub op: Op,
    /// Message size in bytes as the kernel defines it.
    pub bytes: u64,
    /// P.
    pub nprocs: u32,
    /// [`BALANCED`], or the delay model and the late ranks: `50us@0` (the model alone when
    /// the late ranks are drawn per repetition).
    pub pattern: String,
    /// The algorithm's name (`default` for the library's own choice).
    pub algorithm: String,
    /// The variable that selected it (`coll_tuned_allreduce_algorithm`, `smpi/allreduce`).
    pub variable: String,
    /// The value written (`None` for `default` and for simulated sweeps).
    pub value: Option<i32>,
    /// The result fingerprint of the algorithm's reduction (reductions of measured sweeps).
    pub fingerprint: Option<String>,
    /// Valid t_globals in seconds per launch ([`crate::analysis::ByLaunch`]), in the order
    /// of `run_ids`: launches are the unit the comparisons resample.
    pub t_globals: Vec<Vec<f64>>,
    /// Run ids of the launches pooled here, distinct, in order.
    pub run_ids: Vec<String>,
}

impl Measured {
    /// Valid repetitions over all launches.
    pub fn valid(&self) -> usize {
        self.t_globals.iter().map(Vec::len).sum()
    }

    /// The median t_global over launches (the median of the launch medians; of the one
    /// launch's repetitions for one), seconds; `None` without a valid repetition.
    pub fn median(&self) -> Option<f64> {
        let launches: Vec<Vec<f64>> = self
            .t_globals
            .iter()
            .filter(|t| !t.is_empty())
            .cloned()
            .collect();
        crate::analysis::over_launches([&launches], |[m]| m)
    }
}

/// What `tune` reads from its records files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sweep {
    pub measured: Vec<Measured>,
    /// `MPI_Get_library_version` of each launch (distinct), or the simulator.
    pub libraries: Vec<String>,
    /// True when a file is a simulation (SimGrid SMPI): algorithm names are SMPI's.
    pub simulated: bool,
}

/// The arrival pattern of `block`: [`BALANCED`] without delay, else `MODEL@RANKS`; a
/// captured application's replayed site, `replay:CAPTURE@SITE`, as its label alone.
pub fn pattern_of(block: &Block) -> String {
    if block.delay_s == 0.0 && block.delayed_ranks.is_empty() {
        return BALANCED.into();
    }
    // A replay delays every rank by its captured lateness whatever `--delay-rank` says
    // (docs/capture.md), so the block's late ranks (rank 0 by default) are not its pattern,
    // and `--pattern` takes the label the records and `analyze` show.
    if block.delayed_ranks.is_empty() || block.delay_model.starts_with("replay:") {
        return block.delay_model.clone();
    }
    let ranks: Vec<String> = block.delayed_ranks.iter().map(u32::to_string).collect();
    format!("{}@{}", block.delay_model, ranks.join(","))
}

impl Sweep {
    /// Adds `block` of the launch `run_id`, pooling it with what was measured before.
    pub fn add(&mut self, block: &Block, run_id: &str) {
        let Some(alg) = &block.algorithm else {
            return;
        };
        let pattern = pattern_of(block);
        let fingerprint = block
            .algorithm_check
            .as_ref()
            .and_then(|c| c.fingerprint.clone());
        let t = valid_t_globals(block);
        let same = |m: &&mut Measured| {
            (m.op, m.bytes, m.nprocs, &m.pattern, &m.algorithm)
                == (block.op, block.bytes, block.nprocs, &pattern, &alg.name)
        };
        if let Some(m) = self.measured.iter_mut().find(same) {
            if m.fingerprint.is_none() {
                m.fingerprint = fingerprint;
            }
            match m.run_ids.iter().position(|r| r == run_id) {
                Some(launch) => m.t_globals[launch].extend(t),
                None => {
                    m.run_ids.push(run_id.into());
                    m.t_globals.push(t);
                }
            }
            return;
        }
        self.measured.push(Measured {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            pattern,
            algorithm: alg.name.clone(),
            variable: alg.variable.clone(),
            value: alg.value,
            fingerprint,
            t_globals: vec![t],
            run_ids: vec![run_id.into()],
        });
    }
}

/// Reads `files` on the global times `times`, one block at a time.
///
/// Errors: [`TuneError::Read`] for a file that cannot be read, [`TuneError::NoAlgorithms`]
/// when no block names an algorithm.
pub fn read_sweep(files: &[impl AsRef<Path>], times: GlobalTimes) -> Result<Sweep, TuneError> {
    let mut sweep = Sweep::default();
    for f in files {
        let path = f.as_ref();
        let read = |source| TuneError::Read {
            path: path.display().to_string(),
            source,
        };
        let mut timeline = Timeline::open(path, times).map_err(read)?;
        let header = timeline.header().clone();
        let library = match &header.simulation {
            Some(s) => {
                sweep.simulated = true;
                format!("{} {}", s.engine, s.engine_version)
            }
            None => header.mpi_library.clone(),
        };
        if !sweep.libraries.contains(&library) {
            sweep.libraries.push(library);
        }
        for block in timeline.by_ref() {
            sweep.add(&block.map_err(read)?, &header.provenance.run_id);
        }
    }
    if sweep.measured.is_empty() {
        let names: Vec<String> = files
            .iter()
            .map(|f| f.as_ref().display().to_string())
            .collect();
        return Err(TuneError::NoAlgorithms(names.join(", ")));
    }
    Ok(sweep)
}

/// The arrival patterns of `sweep`, [`BALANCED`] first, then in order of first appearance.
pub fn patterns(sweep: &Sweep) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in &sweep.measured {
        if !out.contains(&m.pattern) {
            out.push(m.pattern.clone());
        }
    }
    out.sort_by_key(|p| p != BALANCED);
    out
}

/// The pattern to tune for: `asked` when the sweep holds it (a delay model alone, `50us`,
/// names its one late-rank pattern), else the one delayed pattern of the sweep, else
/// [`BALANCED`] when the sweep has no other.
///
/// Errors: [`TuneError::UnknownPattern`], [`TuneError::SeveralPatterns`].
pub fn pattern_to_tune(sweep: &Sweep, asked: Option<&str>) -> Result<String, TuneError> {
    let all = patterns(sweep);
    let held = all.join(", ");
    match asked {
        Some(a) => {
            if all.iter().any(|p| p == a) {
                return Ok(a.into());
            }
            let prefixed: Vec<&String> = all
                .iter()
                .filter(|p| p.split('@').next() == Some(a))
                .collect();
            match prefixed.as_slice() {
                [one] => Ok((*one).clone()),
                _ => Err(TuneError::UnknownPattern {
                    asked: a.into(),
                    held,
                }),
            }
        }
        None => {
            let delayed: Vec<&String> = all.iter().filter(|p| *p != BALANCED).collect();
            match delayed.as_slice() {
                [] => Ok(BALANCED.into()),
                [one] => Ok((*one).clone()),
                _ => Err(TuneError::SeveralPatterns(held)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    fn sweep_of(blocks: &[Block]) -> Sweep {
        let mut s = Sweep::default();
        for b in blocks {
            s.add(b, "run-1");
        }
        s
    }

    #[test]
    fn patterns_are_named_by_model_and_late_ranks_and_pooled() {
        let mut late = testdata::with_algorithm(
            testdata::block(Op::Allreduce, 8, 2, 50e-6, 10, 10e-6),
            "ring",
        );
        late.delayed_ranks = vec![0];
        let base =
            testdata::with_algorithm(testdata::block(Op::Allreduce, 8, 2, 0.0, 10, 10e-6), "ring");
        let s = sweep_of(&[base.clone(), late.clone(), base]);
        assert_eq!(patterns(&s), ["balanced", "50us@0"]);
        assert_eq!(s.measured.len(), 2);
        assert_eq!(s.measured[0].valid(), 2 * valid_t_globals(&late).len());
        assert_eq!(pattern_to_tune(&s, None).unwrap(), "50us@0");
        assert_eq!(pattern_to_tune(&s, Some("50us")).unwrap(), "50us@0");
        assert_eq!(pattern_to_tune(&s, Some("balanced")).unwrap(), "balanced");
        assert!(matches!(
            pattern_to_tune(&s, Some("80us")),
            Err(TuneError::UnknownPattern { .. })
        ));
        let mut other = late.clone();
        other.delayed_ranks = vec![1];
        let s = sweep_of(&[late, other]);
        let e = pattern_to_tune(&s, None).unwrap_err().to_string();
        assert!(
            e.contains("50us@0, 50us@1") && e.contains("--pattern"),
            "{e}"
        );
    }

    #[test]
    fn a_replayed_site_s_pattern_is_its_label() {
        let mut late = testdata::with_algorithm(
            testdata::block(Op::Allreduce, 65536, 2, 100e-6, 10, 10e-6),
            "ring",
        );
        late.delay_model = "replay:capture@tune_app+0x1234".into();
        late.delayed_ranks = vec![0];
        let base = testdata::with_algorithm(
            testdata::block(Op::Allreduce, 65536, 2, 0.0, 10, 10e-6),
            "ring",
        );
        let s = sweep_of(&[base, late]);
        assert_eq!(patterns(&s), ["balanced", "replay:capture@tune_app+0x1234"]);
        assert_eq!(
            pattern_to_tune(&s, Some("replay:capture@tune_app+0x1234")).unwrap(),
            "replay:capture@tune_app+0x1234"
        );
        assert_eq!(
            pattern_to_tune(&s, None).unwrap(),
            "replay:capture@tune_app+0x1234"
        );
    }

    #[test]
    fn blocks_without_an_algorithm_are_not_a_sweep() {
        let s = sweep_of(&[testdata::block(Op::Allreduce, 8, 2, 0.0, 10, 10e-6)]);
        assert!(s.measured.is_empty());
    }
}
