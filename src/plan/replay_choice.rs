//! How replayed captures (`--delay replay:CAPTURE@SITE`) settle a run: the map of each
//! replay, and the kernels and sizes of the sites' own operation where the options leave them
//! open.

use super::build::Request;
use super::Op;
use crate::delay::models::replay::Replay;
use crate::delay::DelayModel;

/// What the replayed sites of `--delay replay:...` choose for a run: the delays with the
/// map resolved, and the kernels and sizes of the sites' own operation where `--ops` and
/// `--sizes` were not given ([`Request::replay_choice`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayChoice {
    /// `--delay`'s models, each replay with its map resolved ([`ReplayMap::resolve`]).
    ///
    /// [`ReplayMap::resolve`]: crate::delay::models::replay::ReplayMap::resolve
    pub delays: Vec<DelayModel>,
    /// The sites' kernels, blocking then nonblocking, when `--ops` was not given.
    pub ops: Option<Vec<Op>>,
    /// The sites' message sizes (bytes, rounded up to 8 for the f64 reductions) when
    /// `--sizes` was not given and the operation carries a payload.
    pub sizes: Option<Vec<u64>>,
    /// What was chosen, one line each, for rank 0 to print.
    pub notes: Vec<String>,
    /// `--ops` without a site's operation, or a site's operation without a kernel.
    pub warnings: Vec<String>,
}

/// The kernels of the captured operation `op` (capture name, `allreduce`, `iallreduce` or
/// `allreduce_persistent`): its family's blocking kernel, the nonblocking one when the
/// registry has it and, for a persistent site, the persistent kernel itself; None when no
/// kernel of that name exists (`reduce_scatter`, `gatherv_persistent`).
pub fn site_kernels(op: &str) -> Option<Vec<Op>> {
    let op = op.parse::<Op>().ok()?;
    let family = op.family();
    let blocking = family.blocking();
    Some(
        std::iter::once(blocking)
            .chain(
                Op::ALL
                    .into_iter()
                    .find(|o| o.family() == family && o.is_nonblocking()),
            )
            .chain(op.is_persistent().then_some(op))
            .collect(),
    )
}

/// What a replayed site `r` (`site` as `replay:CAPTURE@SITE`) with count vectors says about
/// its kernels `names`: their partitions come from the capture's counts, not from
/// `--sizes`; or, when the capture has none at the site, that they run uniform counts.
/// None for an operation without count vectors.
pub fn counts_note(r: &Replay, site: &str, names: &str, sizes_given: bool) -> Option<String> {
    if !r.capture_op()?.has_count_vector() {
        return None;
    }
    if r.counts.is_empty() {
        return Some(format!(
            "note: {site}: the capture has no count vectors for the site's first call \
             (written before they were recorded, or only their hashes kept): {names} run \
             uniform counts of the measured size"
        ));
    }
    let sizes = if sizes_given {
        " (--sizes then only names the blocks)"
    } else {
        ""
    };
    Some(format!(
        "{site}: {names} run the counts of the site's first call, mapped to each P, not \
         uniform ones{sizes}"
    ))
}

impl Request {
    /// The replays' map, kernels and sizes (see [`ReplayChoice`]); without a
    /// [`super::ReplayRequest`], the stated delays as they are and nothing chosen.
    ///
    /// Errors: a message when a spec's map suffix contradicts `--replay-map`, or when a
    /// replayed site's operation has no kernel and `--ops` does not name the kernels to
    /// measure instead.
    pub fn replay_choice(&self) -> Result<ReplayChoice, String> {
        use crate::delay::models::replay::{Replay, ReplayMap};
        let mut choice = ReplayChoice {
            delays: Vec::new(),
            ops: None,
            sizes: None,
            notes: Vec::new(),
            warnings: Vec::new(),
        };
        let Some(given) = &self.replay else {
            choice.delays = self.stated.delays.clone();
            return Ok(choice);
        };
        let (mut ops, mut sizes) = (Vec::<Op>::new(), Vec::<u64>::new());
        for d in &self.stated.delays {
            let d = ReplayMap::resolve(d, given.map)?;
            let replay = Replay::of(&d).filter(|r| !r.op.is_empty());
            choice.delays.push(d);
            let Some(r) = replay else { continue };
            let site = format!("replay:{}@{}", r.path, r.site);
            let Some(kernels) = site_kernels(&r.op) else {
                let known = crate::plan::kernel::names_where(|o| !o.is_reference(), " or ");
                if !given.ops_given {
                    return Err(format!(
                        "--delay {site}: the site's operation {} has no kernel in delaybench \
                         (kernels: {known}); name the kernels to replay its pattern on with \
                         --ops",
                        r.op
                    ));
                }
                choice.warnings.push(format!(
                    "--delay {site}: the site's operation {} has no kernel in delaybench; its \
                     pattern is replayed on --ops {} instead",
                    r.op,
                    self.stated
                        .ops
                        .iter()
                        .map(|o| o.name())
                        .collect::<Vec<_>>()
                        .join(",")
                ));
                continue;
            };
            let names = kernels
                .iter()
                .map(|o| o.name())
                .collect::<Vec<_>>()
                .join(",");
            if given.ops_given {
                if !self.stated.ops.iter().any(|o| kernels.contains(o)) {
                    choice.warnings.push(format!(
                        "--delay {site} replays the site's {}, but --ops does not measure it: \
                         add {names} to see the application's own operation under its pattern",
                        r.op
                    ));
                }
            } else {
                for k in &kernels {
                    if !ops.contains(k) {
                        ops.push(*k);
                    }
                }
                choice.notes.push(format!(
                    "{site}: --ops not given, measuring the site's {names}"
                ));
            }
            if let Some(note) = counts_note(&r, &site, &names, given.sizes_given) {
                choice.notes.push(note);
            }
            if !given.sizes_given && kernels[0].has_payload() && r.bytes > 0 {
                let bytes = if kernels[0].is_reduction() {
                    r.bytes.div_ceil(8) * 8
                } else {
                    r.bytes
                };
                if !sizes.contains(&bytes) {
                    sizes.push(bytes);
                }
                let rounded = if bytes == r.bytes {
                    String::new()
                } else {
                    format!(" ({} B rounded up to f64 elements)", r.bytes)
                };
                choice.notes.push(format!(
                    "{site}: --sizes not given, measuring the site's {bytes} B{rounded}"
                ));
            }
        }
        choice.ops = (!ops.is_empty()).then_some(ops);
        choice.sizes = (!sizes.is_empty()).then_some(sizes);
        Ok(choice)
    }
}
