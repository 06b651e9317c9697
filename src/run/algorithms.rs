//! `delaybench algorithms`, and the run's algorithm sweep: the library's algorithm variables
//! found through MPI_T (`mpit`), a chosen algorithm written before a configuration is
//! measured, read back, and (Open MPI) applied through a new communicator.

use super::error::RunError;
use super::mpit::{algorithm_variables, enabling_variable, Mpit, MpitError};
use crate::export::Format;
use crate::plan::algorithms::{
    launch_lines, AlgorithmCheck, AlgorithmRequest, AlgorithmSetting, AlgorithmVariable,
    AlgorithmsInfo, CvarValue, Library, Role,
};
use crate::plan::Op;
use crate::plan::Plan;
use crate::records::provenance::library_line;
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;
use serde::Serialize;
use std::ffi::c_int;
use std::process::ExitCode;

/// What the running library offers, as `delaybench algorithms` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Catalogue {
    /// `MPI_Get_library_version` in one line ([`library_line`]).
    pub library_version: String,
    pub library: Library,
    /// Open MPI: `coll_tuned_use_dynamic_rules` and whether MPI_T lets it be written.
    pub enabling: Option<Enabling>,
    pub variables: Vec<AlgorithmVariable>,
    /// Names of the MPI_T performance variables that could expose a collective algorithm
    /// decision (by name: `coll`, `algorithm`); none in Open MPI 4.1.4 and MPICH 4.0.2.
    pub decision_pvars: Vec<String>,
    /// Every performance variable the library has.
    pub pvars: u32,
    /// How a new value takes effect.
    pub how_applied: String,
    #[serde(skip)]
    indices: Vec<c_int>,
    #[serde(skip)]
    enabling_index: Option<c_int>,
}

/// Open MPI's switch for forced algorithms.
#[derive(Debug, Clone, Serialize)]
pub struct Enabling {
    pub variable: String,
    pub value: bool,
    pub writable: bool,
}

impl Catalogue {
    /// The running library's algorithm variables (local to this process: every rank of one
    /// library finds the same).
    ///
    /// # Errors
    /// MPI_T failing to list variables.
    pub fn discover(mpit: &Mpit) -> Result<Catalogue, MpitError> {
        let version = mpi::environment::library_version().unwrap_or_default();
        let library = Library::of_version(&version);
        let found: Vec<(c_int, AlgorithmVariable)> = algorithm_variables(mpit, library)?;
        let enabling = enabling_variable(mpit, library);
        let pvar_names = mpit.pvar_names();
        let how_applied = match library {
            Library::OpenMpi => {
                "Open MPI: coll_tuned_<op>_algorithm is read when a communicator is \
                created and only when coll_tuned_use_dynamic_rules is true (read-only through \
                MPI_T: set OMPI_MCA_coll_tuned_use_dynamic_rules=1 at launch); delaybench writes \
                the value (coll_libnbc_<iop>_algorithm too), then duplicates the measuring \
                communicator and measures on the duplicate."
                    .to_string()
            }
            Library::Mpich => "MPICH: MPIR_CVAR_<OP>_INTRA_ALGORITHM is read at each call; \
                delaybench writes it before the configuration's warm-up. With the device \
                collectives on (MPIR_CVAR_DEVICE_COLLECTIVES=percoll, the default), the ch4 \
                device may still choose its own path for some kernels."
                .to_string(),
            Library::Other => "no algorithm variables known for this library".to_string(),
        };
        Ok(Catalogue {
            library_version: library_line(&version),
            library,
            enabling: enabling.map(|(_, value, writable)| Enabling {
                variable: library.enabling_variable().unwrap_or("").into(),
                value,
                writable,
            }),
            enabling_index: enabling.map(|(i, _, _)| i),
            indices: found.iter().map(|(i, _)| *i).collect(),
            variables: found.into_iter().map(|(_, v)| v).collect(),
            decision_pvars: pvar_names
                .iter()
                .filter(|n| {
                    let n = n.to_lowercase();
                    n.contains("algorithm") || n.contains("coll")
                })
                .cloned()
                .collect(),
            pvars: pvar_names.len() as u32,
            how_applied,
        })
    }

    /// The variable `--algorithms` writes for `op`, if the library has one.
    pub fn swept(&self, op: Op) -> Option<(c_int, &AlgorithmVariable)> {
        self.variables
            .iter()
            .zip(&self.indices)
            .find(|(v, _)| v.role == Role::Swept && v.ops.contains(&op))
            .map(|(v, &i)| (i, v))
    }

    /// Whether forced values reach the library at run time: the variables are writable and,
    /// in Open MPI, dynamic rules are on (or can be switched on).
    pub fn forcing_possible(&self) -> Result<(), String> {
        if let Some(e) = &self.enabling {
            if !e.value && !e.writable {
                return Err(format!(
                    "{} is false and read-only through MPI_T, so Open MPI ignores forced \
                     algorithms: launch with {}=1",
                    e.variable,
                    self.library.env_name(&e.variable)
                ));
            }
        }
        Ok(())
    }

    /// Switches Open MPI's dynamic rules on when they are off and writable.
    pub fn enable(&self, mpit: &Mpit) -> Result<(), MpitError> {
        match (&self.enabling, self.enabling_index) {
            (Some(e), Some(i)) if !e.value && e.writable => mpit.write_checked(i, &e.variable, 1),
            _ => Ok(()),
        }
    }

    /// The header's record: every algorithm variable's current value.
    pub fn info(&self, request: String) -> AlgorithmsInfo {
        AlgorithmsInfo {
            library: self.library.name().into(),
            cvars: self
                .variables
                .iter()
                .map(|v| CvarValue {
                    variable: v.name.clone(),
                    value: v.current,
                    name: v.value_name(v.current),
                })
                .chain(self.enabling.iter().map(|e| CvarValue {
                    variable: e.variable.clone(),
                    value: i32::from(e.value),
                    name: e.value.to_string(),
                }))
                .collect(),
            decision_pvars: self.decision_pvars.clone(),
            pvars: self.pvars,
            request,
            how_applied: self.how_applied.clone(),
        }
    }

    /// The catalogue as a table.
    pub fn text(&self) -> String {
        let mut out = format!(
            "MPI library: {} ({})\n",
            self.library.name(),
            self.library_version
        );
        if self.variables.is_empty() {
            out.push_str(
                "This library has no control variable that selects a collective algorithm of a \
                 delaybench kernel (none found through MPI_T): --algorithms measures only the \
                 library's own choice.\n",
            );
        }
        if let Some(e) = &self.enabling {
            out.push_str(&format!(
                "{} = {} ({}){}\n",
                e.variable,
                e.value,
                if e.writable {
                    "writable at run time"
                } else {
                    "read-only at run time"
                },
                if e.value {
                    String::new()
                } else {
                    format!(
                        ": forced algorithms are ignored; launch with {}=1",
                        self.library.env_name(&e.variable)
                    )
                }
            ));
        }
        for v in &self.variables {
            out.push_str(&format!(
                "\n{}\n  kernels: {}; scope {} ({}); {}; now {}\n  values:",
                v.name,
                v.ops
                    .iter()
                    .map(|o| o.name())
                    .collect::<Vec<_>>()
                    .join(", "),
                v.scope,
                if v.writable {
                    "written at run time"
                } else {
                    "not writable at run time"
                },
                match v.role {
                    Role::Swept => "swept by --algorithms",
                    Role::Listed => "listed, not swept",
                },
                v.value_name(v.current),
            ));
            for x in &v.values {
                out.push_str(&format!(" {}={}", x.value, x.name));
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "\nMPI_T performance variables: {} in all; exposing a collective algorithm \
             decision: {}\n{}\n",
            self.pvars,
            crate::plan::algorithms::decision_pvars_text(&self.decision_pvars),
            self.how_applied
        ));
        out
    }
}

/// How `delaybench algorithms` prints the catalogue: plain options, filled from the command
/// line at the edge.
#[derive(Debug, Clone, Copy)]
pub struct AlgorithmsOptions {
    /// `table` or `json` (one document); the parser accepts no other.
    pub format: Format,
}

/// `delaybench algorithms`: rank 0 prints the catalogue.
pub fn main(opts: AlgorithmsOptions) -> ExitCode {
    let Some(universe) = super::init() else {
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    let code = {
        let mpit = match Mpit::init() {
            Ok(m) => m,
            Err(e) => super::fail(&world, &e.to_string()),
        };
        match Catalogue::discover(&mpit) {
            Ok(c) if world.rank() == 0 => {
                let text = match opts.format {
                    Format::Json => serde_json::to_string_pretty(&c).unwrap_or_default() + "\n",
                    // `table`, the one other format the parser accepts.
                    _ => c.text(),
                };
                print!("{text}");
                ExitCode::SUCCESS
            }
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => super::fail(&world, &e.to_string()),
        }
        // MPI_T is finalised here, before MPI (Open MPI crashes the other way round).
    };
    code
}

/// The sweep of one run: MPI_T, the catalogue and what was asked (`None`: the algorithm
/// comes from the launch environment, `--algorithm-from-env`).
pub struct Sweep {
    pub mpit: Mpit,
    pub catalogue: Catalogue,
    pub request: Option<AlgorithmRequest>,
}

impl Sweep {
    /// MPI_T and the catalogue, checked against the plan on every rank alike (every rank runs
    /// one library): an unknown name, or forced algorithms the library would ignore, refuse
    /// the run before anything is measured; rank 0 then prints the launch lines that set the
    /// algorithm from the environment instead.
    ///
    /// # Errors
    /// [`RunError::BadInput`] as above, or MPI_T failing.
    pub fn start(plan: &Plan, world_size: u32) -> Result<Sweep, RunError> {
        let mpit = Mpit::init().map_err(|e| RunError::BadInput(format!("MPI_T: {e}")))?;
        let catalogue =
            Catalogue::discover(&mpit).map_err(|e| RunError::BadInput(format!("MPI_T: {e}")))?;
        let request = plan.algorithms.clone();
        if let Some(r) = &request {
            let unknown = r.unknown(&catalogue.variables);
            if !unknown.is_empty() {
                return Err(RunError::BadInput(format!(
                    "--algorithms: {} has no algorithm named {} (see `delaybench algorithms`)",
                    catalogue.library.name(),
                    unknown.join(", ")
                )));
            }
            let swept: Vec<&AlgorithmVariable> = plan
                .ops
                .iter()
                .filter_map(|&op| catalogue.swept(op).map(|(_, v)| v))
                .collect();
            let refused: Vec<&&AlgorithmVariable> = swept.iter().filter(|v| !v.writable).collect();
            let blocking_tuned = swept.iter().any(|v| v.name.starts_with("coll_tuned_"));
            let why = if !refused.is_empty() {
                Some(format!(
                    "{} cannot be written at run time",
                    refused
                        .iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            } else if blocking_tuned {
                catalogue.forcing_possible().err()
            } else {
                None
            };
            if let Some(why) = why {
                if mpi::topology::SimpleCommunicator::world().rank() == 0 {
                    eprintln!(
                        "delaybench: {why}. Launch once per algorithm instead, each with \
                         --algorithm-from-env, and analyze the launches together:"
                    );
                    let command = format!(
                        "mpirun -np {world_size} {}",
                        command_without_algorithms(&std::env::args().collect::<Vec<_>>())
                    );
                    for line in launch_lines(catalogue.library, &swept, r, &command) {
                        eprintln!("  {line}");
                    }
                }
                return Err(RunError::BadInput(format!("--algorithms: {why}")));
            }
            catalogue
                .enable(&mpit)
                .map_err(|e| RunError::BadInput(format!("MPI_T: {e}")))?;
        }
        Ok(Sweep {
            mpit,
            catalogue,
            request,
        })
    }

    /// The settings `op` is measured with: `default`, then the requested algorithms; with
    /// `--algorithm-from-env`, the one the environment set.
    pub fn settings(&self, op: Op) -> Vec<AlgorithmSetting> {
        match &self.request {
            Some(r) => r.settings(
                self.catalogue.library,
                self.catalogue.swept(op).map(|(_, v)| v),
            ),
            None => vec![from_env(&self.catalogue, op)],
        }
    }

    /// Writes `op`'s variable back to the value it had at the start of the run (what every
    /// rank read then), after a configuration measured with a forced value. Nothing with
    /// `--algorithm-from-env`.
    ///
    /// # Errors
    /// A refused write, or a value the library did not keep.
    pub fn restore(&self, op: Op) -> Result<(), RunError> {
        match (self.catalogue.swept(op), &self.request) {
            (Some((index, var)), Some(_)) => self
                .mpit
                .write_checked(index, &var.name, var.current)
                .map_err(|e| RunError::BadInput(format!("MPI_T: {e}"))),
            _ => Ok(()),
        }
    }

    /// The header's record of the sweep.
    pub fn info(&self) -> AlgorithmsInfo {
        self.catalogue.info(match &self.request {
            Some(r) => r.to_string(),
            None => "env".into(),
        })
    }

    /// Makes `setting` the algorithm of `op` on `comm`'s ranks (each calls this): writes the
    /// variable (the library's own choice writes value 0 back), reads it back, and where the
    /// library reads it when a communicator is created (Open MPI) returns a duplicate of
    /// `comm` to measure on. With `--algorithm-from-env` nothing is written. Then checks the
    /// result fingerprint of one reduction on that communicator.
    ///
    /// # Errors
    /// A refused write, or a value the library did not keep.
    pub fn apply(
        &self,
        comm: &SimpleCommunicator,
        op: Op,
        setting: &AlgorithmSetting,
    ) -> Result<(AlgorithmCheck, Option<SimpleCommunicator>), RunError> {
        let mut read_back = None;
        if let Some((index, var)) = self.catalogue.swept(op) {
            if self.request.is_some() {
                let value = setting.value.unwrap_or(0);
                self.mpit
                    .write_checked(index, &var.name, value)
                    .map_err(|e| RunError::BadInput(format!("MPI_T: {e}")))?;
            }
            read_back = Some(
                self.mpit
                    .read(index)
                    .map_err(|e| RunError::BadInput(format!("MPI_T: {e}")))?,
            );
        }
        let fresh = self
            .catalogue
            .library
            .needs_new_communicator()
            .then(|| comm.duplicate());
        let fingerprint = fingerprint(fresh.as_ref().unwrap_or(comm), op);
        Ok((
            AlgorithmCheck {
                read_back,
                fingerprint,
            },
            fresh,
        ))
    }
}

/// The command line without `--algorithms` and `--output` (each launch writes its own file)
/// and their values, for launch lines.
fn command_without_algorithms(argv: &[String]) -> String {
    let mut out = Vec::new();
    let mut skip = false;
    for a in argv {
        if skip {
            skip = false;
            continue;
        }
        if a == "--algorithms" || a == "--output" {
            skip = true;
            continue;
        }
        if a.starts_with("--algorithms=") || a.starts_with("--output=") {
            continue;
        }
        out.push(a.as_str());
    }
    out.join(" ")
}

/// Elements of the fingerprint reduction.
const FINGERPRINT_ELEMENTS: usize = 1024;

/// One reduction of `op` on `comm` whose result depends on the order the ranks'
/// contributions are added in: rank r contributes, per element, an integer from -3 to 3
/// times a power of ten from 10^0 to 10^16 (drawn from r and the element by a fixed mix), so
/// that adding them in another order rounds differently. Rank 0's result, hashed (FNV-1a,
/// hex); `None` for kernels that do not reduce.
fn fingerprint(comm: &SimpleCommunicator, op: Op) -> Option<String> {
    if !op.is_reduction() {
        return None;
    }
    let mut kernel =
        super::kernels::Kernel::new(op, 8 * FINGERPRINT_ELEMENTS as u64, comm.size() as usize);
    let rank = comm.rank() as u64;
    kernel.fill_f64(|i| {
        let h = mix(rank.wrapping_mul(1_000_003).wrapping_add(i as u64));
        ((h % 7) as f64 - 3.0) * 10f64.powi(((h >> 8) % 17) as i32)
    });
    kernel.run(comm);
    if comm.rank() != 0 {
        return None;
    }
    let mut hash = fnv::FnvHasher::default();
    for x in kernel.result_f64() {
        std::hash::Hasher::write(&mut hash, &x.to_bits().to_le_bytes());
    }
    Some(format!("{:016x}", std::hash::Hasher::finish(&hash)))
}

/// A 64-bit finaliser (the one of MurmurHash3, Appleby 2011): spreads neighbouring inputs.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The algorithm a launch runs with, read from the algorithm variables (set from the
/// environment at launch, `--algorithm-from-env`): the variable of `op` and its value's name,
/// `default` when it holds the library's own choice.
pub fn from_env(catalogue: &Catalogue, op: Op) -> AlgorithmSetting {
    match catalogue.swept(op) {
        Some((_, v)) if v.current != 0 => AlgorithmSetting {
            name: v.value_name(v.current),
            variable: v.name.clone(),
            value: Some(v.current),
        },
        other => AlgorithmSetting::default_of(catalogue.library, other.map(|(_, v)| v)),
    }
}
