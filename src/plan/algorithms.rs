//! The MPI library's collective algorithms as plain data: which control variables (MPI_T
//! cvars, MPI Forum 2021, MPI 4.0 §15.3.6) select an algorithm for which delaybench kernel,
//! their values by name, the setting a block was measured with, and the launch lines for a
//! library whose variables cannot be written at run time. `run::mpit` reads the variables
//! through MPI_T; everything here is tested without MPI.
//!
//! What the two libraries installed here expose (found through MPI_T, see docs/algorithms.md):
//! - Open MPI 4.1: `coll_tuned_<op>_algorithm` (blocking kernels; an enumeration whose value 0,
//!   `ignore`, is the library's own choice), read when a communicator is created and only when
//!   `coll_tuned_use_dynamic_rules` is true, which MPI_T reports read-only (so it must come
//!   from the launch environment); `coll_libnbc_<iop>_algorithm` for ibcast, ireduce and
//!   iallreduce, read when the operation is scheduled.
//! - MPICH 4.0: `MPIR_CVAR_<OP>_INTRA_ALGORITHM` for every kernel (an integer without an
//!   MPI_T enumeration; its names are the ones the description lists, in value order, value
//!   0 being `auto`), read at each call; `MPIR_CVAR_<OP>_POSIX_INTRA_ALGORITHM` selects the
//!   shared-memory device's own algorithm and is listed but not swept.

use crate::plan::kernel::Op;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Output of `delaybench algorithms`: a table or one JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AlgorithmsFormat {
    Text,
    Json,
}

/// An MPI library, as far as its algorithm variables are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Library {
    OpenMpi,
    Mpich,
    /// A library without algorithm variables delaybench knows.
    Other,
}

impl Library {
    /// The library of `MPI_Get_library_version`'s text.
    pub fn of_version(text: &str) -> Library {
        if text.contains("Open MPI") {
            Library::OpenMpi
        } else if text.contains("MPICH") {
            Library::Mpich
        } else {
            Library::Other
        }
    }

    /// The name users know it by.
    pub fn name(self) -> &'static str {
        match self {
            Library::OpenMpi => "Open MPI",
            Library::Mpich => "MPICH",
            Library::Other => "other",
        }
    }

    /// The value of an algorithm variable that leaves the choice to the library (`ignore` in
    /// Open MPI, `auto` in MPICH), by name.
    pub fn default_value_name(self) -> &'static str {
        match self {
            Library::OpenMpi => "ignore",
            Library::Mpich => "auto",
            Library::Other => "",
        }
    }

    /// The variable that must be true before Open MPI's tuned component reads its forced
    /// algorithms (`None` elsewhere).
    pub fn enabling_variable(self) -> Option<&'static str> {
        match self {
            Library::OpenMpi => Some("coll_tuned_use_dynamic_rules"),
            _ => None,
        }
    }

    /// The environment variable that sets control variable `var` at launch: Open MPI's MCA
    /// parameters are `OMPI_MCA_<name>`, MPICH's CVARs are their own names.
    pub fn env_name(self, var: &str) -> String {
        match self {
            Library::OpenMpi => format!("OMPI_MCA_{var}"),
            _ => var.to_string(),
        }
    }

    /// Whether a new value of an algorithm variable needs a new communicator to take effect
    /// (Open MPI's tuned component reads it when a communicator is created) or is read at
    /// each call (MPICH; Open MPI's libnbc when the operation is scheduled).
    pub fn needs_new_communicator(self) -> bool {
        self == Library::OpenMpi
    }
}

/// How a variable takes part in an algorithm sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The variable `--algorithms` writes for its kernels.
    Swept,
    /// Also selects an algorithm for the kernels (a device's own), listed but not written.
    Listed,
}

/// The kernels an algorithm variable applies to and its role, from its name; `None` for a
/// variable that selects no algorithm of a delaybench kernel (inter-communicator variants,
/// the w-variants, ..., segment sizes). The persistent kernels have no variable of their
/// own and are not swept.
pub fn variable_kernels(library: Library, var: &str) -> Option<(Vec<Op>, Role)> {
    let op_named = |name: &str| Op::ALL.into_iter().find(|op| op.name() == name);
    match library {
        Library::OpenMpi => {
            if let Some(op) = var
                .strip_prefix("coll_tuned_")
                .and_then(|s| s.strip_suffix("_algorithm"))
                .and_then(op_named)
            {
                return (!op.is_nonblocking()).then(|| (vec![op], Role::Swept));
            }
            let op = var
                .strip_prefix("coll_libnbc_")
                .and_then(|s| s.strip_suffix("_algorithm"))
                .and_then(op_named)?;
            op.is_nonblocking().then(|| (vec![op], Role::Swept))
        }
        Library::Mpich => {
            let rest = var.strip_prefix("MPIR_CVAR_")?;
            if let Some(op) = rest.strip_suffix("_POSIX_INTRA_ALGORITHM") {
                let op = op_named(&op.to_lowercase())?;
                return Some((vec![op], Role::Listed));
            }
            let op = op_named(&rest.strip_suffix("_INTRA_ALGORITHM")?.to_lowercase())?;
            Some((vec![op], Role::Swept))
        }
        Library::Other => None,
    }
}

/// One value of an algorithm variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlgorithmValue {
    /// The integer written to the variable.
    pub value: i32,
    /// Its name (`ring`, `recursive_doubling`).
    pub name: String,
}

/// An algorithm-selecting control variable of the running library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmVariable {
    /// The MPI_T name (`coll_tuned_allreduce_algorithm`, `MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM`).
    pub name: String,
    /// The MPI_T scope by its standard name (`all`, `all_eq`, `readonly`, ...).
    pub scope: String,
    /// Whether MPI_T accepted writing the variable's own value back at run time.
    pub writable: bool,
    /// The delaybench kernels it selects the algorithm of.
    pub ops: Vec<Op>,
    pub role: Role,
    /// Its values, the library's own choice (value 0) first.
    pub values: Vec<AlgorithmValue>,
    /// Its value when read (at the start of the run), by number.
    pub current: i32,
}

impl AlgorithmVariable {
    /// The name of value `v`, or the number when the variable has no name for it.
    pub fn value_name(&self, v: i32) -> String {
        self.values
            .iter()
            .find(|x| x.value == v)
            .map_or_else(|| v.to_string(), |x| x.name.clone())
    }

    /// The values an `all` sweep forces: every named value but the library's own choice,
    /// less the ones the library is known to abort on (`avoid`).
    pub fn forceable(&self, library: Library) -> Vec<&AlgorithmValue> {
        self.values
            .iter()
            .filter(|v| v.name != library.default_value_name() && !avoid(library, &v.name))
            .collect()
    }
}

/// Values the library aborts on when forced: MPICH 4.0.2 fails an assertion
/// (`mpir_coll.c`, "Assertion failed ... 0") when a nonblocking collective's CVAR is
/// `sched_auto` (tried here for MPI_Iallreduce, set both at run time and from the
/// environment), so `all` leaves it out.
pub fn avoid(library: Library, name: &str) -> bool {
    library == Library::Mpich && name == "sched_auto"
}

/// The choices an MPICH 4 algorithm CVAR's description lists, in value order (MPICH
/// numbers them 0, 1, ... in the order its description gives them; value 0 is `auto`).
///
/// MPICH 4.0's MPI_T description joins its lines without a separator, so each name is glued
/// to the last word of the line before: `...algorithmauto - Internal ...nb   - Force
/// nonblocking algorithmsmp - ...`. A name is taken as what follows the longest earlier word
/// of the description that the glued word starts with; between `algorithm` and `algorithms`
/// the split that gives a name whose first part (`sched`, `tsp`) another name shares wins.
/// Names are lower case letters, digits and `_`. Returns an empty list for a description
/// without choices.
pub fn mpich_choices(var: &str, desc: &str) -> Vec<String> {
    // Each "NAME<spaces>- " separator: the glued word before it holds the name.
    let bytes = desc.as_bytes();
    let mut glued: Vec<String> = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'-' && bytes[i + 1] == b' ' && i > 0 && bytes[i - 1] == b' ' {
            let mut end = i;
            while end > 0 && bytes[end - 1] == b' ' {
                end -= 1;
            }
            let mut start = end;
            while start > 0 && !bytes[start - 1].is_ascii_whitespace() {
                start -= 1;
            }
            if start < end {
                glued.push(desc[start..end].to_string());
            }
        }
        i += 1;
    }
    // Words that end a line: every whitespace-separated word of the description, plus the
    // kernel's own name (the first line, "Variable to select algorithm for intra-node
    // allreduce", ends with it).
    let mut words: Vec<String> = desc
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', '.']).to_string())
        .collect();
    if let Some(op) = var
        .strip_prefix("MPIR_CVAR_")
        .and_then(|s| s.split("_INTRA").next())
        .and_then(|s| s.split("_POSIX").next())
    {
        words.push(op.to_lowercase());
    }
    words.push("algorithm".into());
    words.push("algorithms".into());
    let name_ok = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    // Per glued word, the names after a known word (or after punctuation).
    let known: Vec<Vec<String>> = glued
        .iter()
        .map(|g| {
            let mut c: Vec<String> = words
                .iter()
                .filter(|w| g.len() > w.len() && g.starts_with(w.as_str()))
                .map(|w| g[w.len()..].to_string())
                .filter(|n| name_ok(n))
                .collect();
            // A line ending in punctuation, `...JSON_FILE)nb`: the name follows it.
            if let Some(cut) = g.rfind(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')) {
                if name_ok(&g[cut + 1..]) {
                    c.push(g[cut + 1..].to_string());
                }
            }
            c.sort_by_key(|n| std::cmp::Reverse(n.len()));
            c.dedup();
            c
        })
        .collect();
    let first_part = |n: &str| n.split('_').next().unwrap_or("").to_string();
    // First parts of the names that only one split allows (`sched` of `sched_auto`).
    let shared: Vec<String> = known
        .iter()
        .filter(|c| c.len() == 1 && c[0].contains('_'))
        .map(|c| first_part(&c[0]))
        .collect();
    let in_shared = |n: &String| n.contains('_') && shared.contains(&first_part(n));
    glued
        .iter()
        .zip(&known)
        .map(|(g, c)| match c.len() {
            1 => c[0].clone(),
            // `algorithm` or `algorithms`: the name whose first part others share, else
            // the longer.
            n if n > 1 => c.iter().find(|n| in_shared(n)).unwrap_or(&c[0]).clone(),
            // No known word: the longest suffix whose first part others share, or whose
            // parts are all words of the description (`release_gather`), or `auto`, else
            // the whole word.
            _ => {
                let suffixes = || {
                    (1..g.len())
                        .filter(|&i| g.is_char_boundary(i))
                        .map(|i| g[i..].to_string())
                        .filter(|n| name_ok(n))
                };
                // Words compare without case: `scatter_ring_allgather - Force Scatter Ring`.
                let is_word = |p: &str| words.iter().any(|w| w.eq_ignore_ascii_case(p));
                let worded = |n: &String| {
                    let parts: Vec<&str> = n.split('_').collect();
                    is_word(parts[0])
                        && 2 * parts.iter().filter(|p| is_word(p)).count() >= parts.len()
                };
                suffixes()
                    .find(|n| in_shared(n))
                    .or_else(|| suffixes().find(|n| n.contains('_') && worded(n)))
                    .or_else(|| {
                        MPICH_GENERIC
                            .iter()
                            .find(|x| g.ends_with(*x))
                            .map(|x| x.to_string())
                    })
                    .unwrap_or_else(|| g.clone())
            }
        })
        .collect()
}

/// The names MPICH 4 gives the same choice in every blocking kernel (its own choice, the
/// nonblocking algorithm waited on, the SMP-aware one); the last resort of
/// [`mpich_choices`] for a name glued to a capitalised word (`Binomial Treenb`).
const MPICH_GENERIC: [&str; 3] = ["auto", "nb", "smp"];

/// What `--algorithms` asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "names")]
pub enum AlgorithmRequest {
    /// Every algorithm of every measured kernel, and the library's own choice.
    All,
    /// These names (of any kernel's variable; `default` is the library's own choice); a
    /// kernel is measured with the ones its variable has.
    Names(Vec<String>),
}

impl AlgorithmRequest {
    /// Parses `all` or a comma-separated list of names.
    ///
    /// # Errors
    /// An empty list or an empty name.
    pub fn parse(s: &str) -> Result<Self, String> {
        if s.trim() == "all" {
            return Ok(AlgorithmRequest::All);
        }
        let names: Vec<String> = s.split(',').map(|n| n.trim().to_string()).collect();
        if names.iter().any(String::is_empty) {
            return Err(format!(
                "--algorithms {s:?}: expected `all` or comma-separated algorithm names (see \
                 `delaybench algorithms`)"
            ));
        }
        Ok(AlgorithmRequest::Names(names))
    }

    /// The settings kernel `op` is measured with, given its swept variable (`None`: the
    /// library has none for it, so only its own choice is measured): `default` first, then
    /// each requested value in the variable's order.
    pub fn settings(
        &self,
        library: Library,
        var: Option<&AlgorithmVariable>,
    ) -> Vec<AlgorithmSetting> {
        let mut out = vec![AlgorithmSetting::default_of(library, var)];
        let Some(var) = var else {
            return out;
        };
        for v in var.forceable(library) {
            let wanted = match self {
                AlgorithmRequest::All => true,
                AlgorithmRequest::Names(names) => names.iter().any(|n| n == &v.name),
            };
            if wanted {
                out.push(AlgorithmSetting {
                    name: v.name.clone(),
                    variable: var.name.clone(),
                    value: Some(v.value),
                });
            }
        }
        out
    }

    /// The requested names no variable of `vars` has (`default` always exists), for an error
    /// before anything is measured.
    pub fn unknown<'a>(&'a self, vars: &[AlgorithmVariable]) -> Vec<&'a str> {
        match self {
            AlgorithmRequest::All => Vec::new(),
            AlgorithmRequest::Names(names) => names
                .iter()
                .filter(|n| {
                    n.as_str() != DEFAULT_NAME
                        && !vars.iter().any(|v| v.values.iter().any(|x| &&x.name == n))
                })
                .map(String::as_str)
                .collect(),
        }
    }
}

impl fmt::Display for AlgorithmRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlgorithmRequest::All => f.write_str("all"),
            AlgorithmRequest::Names(n) => f.write_str(&n.join(",")),
        }
    }
}

/// The name of the library's own choice in records and tables.
pub const DEFAULT_NAME: &str = "default";

/// The algorithm a block was measured with, as its records keep it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AlgorithmSetting {
    /// The algorithm's name (`ring`), or `default` for the library's own choice.
    pub name: String,
    /// The variable written (empty when the library has none for the kernel).
    pub variable: String,
    /// The value written (`None`: nothing written, the library chose).
    pub value: Option<i32>,
}

impl AlgorithmSetting {
    /// The library's own choice for a kernel with variable `var`.
    pub fn default_of(_library: Library, var: Option<&AlgorithmVariable>) -> Self {
        AlgorithmSetting {
            name: DEFAULT_NAME.into(),
            variable: var.map(|v| v.name.clone()).unwrap_or_default(),
            value: None,
        }
    }

    /// Whether this is the library's own choice.
    pub fn is_default(&self) -> bool {
        self.value.is_none()
    }
}

/// The launch lines that run each requested algorithm of `vars` from the environment, one per
/// algorithm (for a library that refuses run-time writes), each running `command` with
/// `--algorithm-from-env`.
pub fn launch_lines(
    library: Library,
    vars: &[&AlgorithmVariable],
    request: &AlgorithmRequest,
    command: &str,
) -> Vec<String> {
    let enable = library
        .enabling_variable()
        .map(|v| format!("{}=1 ", library.env_name(v)))
        .unwrap_or_default();
    let mut lines = Vec::new();
    for var in vars {
        for s in request.settings(library, Some(var)) {
            let assign = match s.value {
                // Open MPI takes the number, MPICH the name.
                Some(v) if library == Library::OpenMpi => {
                    format!("{}={v} ", library.env_name(&var.name))
                }
                Some(_) => format!("{}={} ", library.env_name(&var.name), s.name),
                None => String::new(),
            };
            let line = format!("{enable}{assign}{command} --algorithm-from-env");
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
    }
    lines
}

/// How a block's algorithm was checked (docs/algorithms.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlgorithmCheck {
    /// The variable's value read back after writing it (on rank 0; `None` when nothing was
    /// written).
    pub read_back: Option<i32>,
    /// Reductions: a hash (hex) of rank 0's result of one reduction of 1024 f64 whose sum
    /// depends on the order the algorithm adds the ranks' contributions in (floating-point
    /// addition is not associative), so two algorithms that combine the ranks differently
    /// give different fingerprints; `None` for kernels that compute nothing.
    pub fingerprint: Option<String>,
}

/// An algorithm variable's value at the start of a run, for the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CvarValue {
    pub variable: String,
    pub value: i32,
    /// The value's name (the number when the variable has none).
    pub name: String,
}

/// The MPI_T performance variables that expose a collective-algorithm decision, for a line
/// of text: their names, or `none` (the answer for Open MPI 4.1 and MPICH 4.0).
pub fn decision_pvars_text(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// What the records header keeps about algorithms: the library's algorithm variables as the
/// run found them, and whether any MPI_T performance variable exposes the library's choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AlgorithmsInfo {
    /// `Open MPI`, `MPICH` or `other`.
    pub library: String,
    /// Every algorithm variable's value at the start of the run (on rank 0).
    pub cvars: Vec<CvarValue>,
    /// MPI_T performance variables whose name says they expose a collective algorithm
    /// decision; empty when the library has none (Open MPI 4.1 and MPICH 4.0.2 have none).
    pub decision_pvars: Vec<String>,
    /// How many MPI_T performance variables the library has in all.
    pub pvars: u32,
    /// `--algorithms` as given (`all`, names), `env` for `--algorithm-from-env`, or empty.
    pub request: String,
    /// How a new value takes effect in this library (docs/algorithms.md).
    pub how_applied: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MPICH 4.0.2's descriptions as MPI_T returns them (lines joined without separators).
    const ALLREDUCE: &str = "Variable to select allreduce algorithmauto - Internal algorithm selection (can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb                       - Force nonblocking algorithmsmp                      - Force smp algorithmrecursive_doubling       - Force recursive doubling algorithmreduce_scatter_allgather - Force reduce scatter allgather algorithm";
    const IALLREDUCE: &str = "Variable to select iallreduce algorithmauto - Internal algorithm selection (can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)sched_auto - Internal algorithm selection for sched-based algorithmssched_naive                      - Force naive algorithmsched_smp                        - Force smp algorithmsched_recursive_doubling         - Force recursive doubling algorithmsched_reduce_scatter_allgather   - Force reduce scatter allgather algorithmtsp_recexch_single_buffer    - Force generic transport recursive exchange with single buffer for receivestsp_recexch_multiple_buffer  - Force generic transport recursive exchange with multiple buffers for receivestsp_tree                     - Force generic transport tree algorithmtsp_ring                     - Force generic transport ring algorithmtsp_recexch_reduce_scatter_recexch_allgatherv  - Force generic transport recursive exchange with reduce scatter and allgatherv";
    const BARRIER: &str = "Variable to select barrier algorithmauto - Internal algorithm selection (can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb            - Force nonblocking algorithmsmp           - Force smp algorithmdissemination - Force dissemination algorithm";
    const BCAST: &str = "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - Force Binomial Treenb                                      - Force nonblocking algorithmsmp                                     - Force smp algorithmscatter_recursive_doubling_allgather    - Force Scatter Recursive-Doubling Allgatherscatter_ring_allgather                  - Force Scatter Ring";
    const IREDUCE: &str = "Variable to select ireduce algorithmauto - Internal algorithm selection (can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)sched_auto - Internal algorithm selection for sched-based algorithmssched_smp                   - Force smp algorithmsched_binomial              - Force binomial algorithmsched_reduce_scatter_gather - Force reduce scatter gather algorithmtsp_tree                - Force Generic Transport Treetsp_ring                - Force Generic Transport Ring";
    const POSIX: &str = "Variable to select algorithm for intra-node allreducempir           - Fallback to MPIR collectivesrelease_gather - Force shm optimized algo using release, gather primitivesauto - Internal algorithm selection (can be overridden with MPIR_CVAR_CH4_POSIX_COLL_SELECTION_TUNING_JSON_FILE)";

    #[test]
    fn mpich_choices_are_split_off_the_glued_description_lines() {
        assert_eq!(
            mpich_choices("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", ALLREDUCE),
            [
                "auto",
                "nb",
                "smp",
                "recursive_doubling",
                "reduce_scatter_allgather"
            ]
        );
        assert_eq!(
            mpich_choices("MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM", IALLREDUCE),
            [
                "auto",
                "sched_auto",
                "sched_naive",
                "sched_smp",
                "sched_recursive_doubling",
                "sched_reduce_scatter_allgather",
                "tsp_recexch_single_buffer",
                "tsp_recexch_multiple_buffer",
                "tsp_tree",
                "tsp_ring",
                "tsp_recexch_reduce_scatter_recexch_allgatherv"
            ]
        );
        assert_eq!(
            mpich_choices("MPIR_CVAR_BARRIER_INTRA_ALGORITHM", BARRIER),
            ["auto", "nb", "smp", "dissemination"]
        );
        assert_eq!(
            mpich_choices("MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM", POSIX),
            ["mpir", "release_gather", "auto"]
        );
        assert_eq!(
            mpich_choices("MPIR_CVAR_BCAST_INTRA_ALGORITHM", BCAST),
            [
                "auto",
                "binomial",
                "nb",
                "smp",
                "scatter_recursive_doubling_allgather",
                "scatter_ring_allgather"
            ]
        );
        assert_eq!(
            mpich_choices("MPIR_CVAR_IREDUCE_INTRA_ALGORITHM", IREDUCE),
            [
                "auto",
                "sched_auto",
                "sched_smp",
                "sched_binomial",
                "sched_reduce_scatter_gather",
                "tsp_tree",
                "tsp_ring"
            ]
        );
        assert!(mpich_choices("MPIR_CVAR_X", "Defines the location of tuning file.").is_empty());
    }

    #[test]
    fn variables_map_to_the_kernels_they_select_for() {
        let k = |lib, v| variable_kernels(lib, v);
        assert_eq!(
            k(Library::OpenMpi, "coll_tuned_allreduce_algorithm"),
            Some((vec![Op::Allreduce], Role::Swept))
        );
        assert_eq!(
            k(Library::OpenMpi, "coll_libnbc_ibcast_algorithm"),
            Some((vec![Op::Ibcast], Role::Swept))
        );
        // Every kernel of the registry is found by name, the ones beyond the default ten too.
        assert_eq!(
            k(Library::OpenMpi, "coll_tuned_allgather_algorithm"),
            Some((vec![Op::Allgather], Role::Swept))
        );
        assert_eq!(
            k(
                Library::Mpich,
                "MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM"
            ),
            Some((vec![Op::IreduceScatterBlock], Role::Swept))
        );
        // The v-forms are kernels too; the persistent ones have no variable of their own.
        assert_eq!(
            k(Library::OpenMpi, "coll_tuned_allgatherv_algorithm"),
            Some((vec![Op::Allgatherv], Role::Swept))
        );
        assert_eq!(
            k(Library::Mpich, "MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM"),
            Some((vec![Op::Ialltoallv], Role::Swept))
        );
        assert_eq!(k(Library::OpenMpi, "coll_tuned_scatterw_algorithm"), None);
        assert_eq!(
            k(
                Library::OpenMpi,
                "coll_tuned_allreduce_algorithm_segmentsize"
            ),
            None
        );
        assert_eq!(
            k(Library::Mpich, "MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM"),
            Some((vec![Op::Ialltoall], Role::Swept))
        );
        assert_eq!(
            k(Library::Mpich, "MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM"),
            Some((vec![Op::Bcast], Role::Listed))
        );
        assert_eq!(k(Library::Mpich, "MPIR_CVAR_BCAST_INTER_ALGORITHM"), None);
        assert_eq!(
            k(Library::Mpich, "MPIR_CVAR_GATHER_INTRA_ALGORITHM"),
            Some((vec![Op::Gather], Role::Swept))
        );
        assert_eq!(
            k(Library::Mpich, "MPIR_CVAR_GATHERV_INTRA_ALGORITHM"),
            Some((vec![Op::Gatherv], Role::Swept))
        );
    }

    fn var() -> AlgorithmVariable {
        let names = ["ignore", "basic_linear", "ring"];
        AlgorithmVariable {
            name: "coll_tuned_allreduce_algorithm".into(),
            scope: "all".into(),
            writable: true,
            ops: vec![Op::Allreduce],
            role: Role::Swept,
            values: names
                .iter()
                .enumerate()
                .map(|(i, n)| AlgorithmValue {
                    value: i as i32,
                    name: n.to_string(),
                })
                .collect(),
            current: 0,
        }
    }

    #[test]
    fn a_request_gives_default_then_the_named_values_in_the_variables_order() {
        let v = var();
        let names = |r: &AlgorithmRequest| -> Vec<String> {
            r.settings(Library::OpenMpi, Some(&v))
                .into_iter()
                .map(|s| s.name)
                .collect()
        };
        assert_eq!(
            names(&AlgorithmRequest::All),
            ["default", "basic_linear", "ring"]
        );
        let ring = AlgorithmRequest::parse("ring,nonesuch").unwrap();
        assert_eq!(names(&ring), ["default", "ring"]);
        assert_eq!(ring.unknown(std::slice::from_ref(&v)), ["nonesuch"]);
        assert!(AlgorithmRequest::parse("ring,,x").is_err());
        let s = &AlgorithmRequest::All.settings(Library::OpenMpi, Some(&v))[2];
        assert_eq!(
            (s.variable.as_str(), s.value),
            ("coll_tuned_allreduce_algorithm", Some(2))
        );
        assert_eq!(
            AlgorithmRequest::All.settings(Library::OpenMpi, None),
            [AlgorithmSetting {
                name: "default".into(),
                variable: String::new(),
                value: None
            }]
        );
    }

    #[test]
    fn launch_lines_set_the_environment_each_library_reads() {
        let v = var();
        let lines = launch_lines(
            Library::OpenMpi,
            &[&v],
            &AlgorithmRequest::All,
            "mpirun -np 4 delaybench",
        );
        assert_eq!(
            lines,
            [
                "OMPI_MCA_coll_tuned_use_dynamic_rules=1 mpirun -np 4 delaybench --algorithm-from-env",
                "OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=1 mpirun -np 4 delaybench --algorithm-from-env",
                "OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=2 mpirun -np 4 delaybench --algorithm-from-env",
            ]
        );
        let mut m = var();
        m.name = "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM".into();
        m.values[0].name = "auto".into();
        let lines = launch_lines(
            Library::Mpich,
            &[&m],
            &AlgorithmRequest::parse("ring").unwrap(),
            "mpiexec delaybench",
        );
        assert_eq!(
            lines[1],
            "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring mpiexec delaybench --algorithm-from-env"
        );
    }

    #[test]
    fn mpich_sched_auto_is_never_forced() {
        let mut v = var();
        v.values[1].name = "sched_auto".into();
        v.values[0].name = "auto".into();
        let forced: Vec<&str> = v
            .forceable(Library::Mpich)
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        assert_eq!(forced, ["ring"]);
    }
}
