//! Rank 0 resolves and validates the plan, opens the records file, and tells every rank the
//! outcome, so bad input ends all ranks before any measurement with one message.

use super::error::RunError;
use crate::end_of_run::EndOfRun;
use crate::plan::checks::{self, Estimate};
use crate::plan::{Plan, Request, RunOptions};
use crate::records::{RecordsError, RecordsWriter};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The plan every rank runs, and on rank 0 the open records file and what the end of the
/// run makes from it.
pub struct Agreed {
    pub plan: Plan,
    pub writer: Option<RecordsWriter>,
    /// On rank 0 (`None` elsewhere and in a dry run): the folder and parts of the end-of-run
    /// outputs, checked to overwrite nothing.
    pub end: Option<EndOfRun>,
}

/// Collective on `world`. Returns the plan on every rank, or on every rank the same error
/// (only rank 0's copy is meant to be printed): [`RunError::BadInput`] when rank 0 refused
/// the plan, [`RunError::PlanBroadcast`] when its answer did not decode.
/// `hosts`: the host name of every world rank.
pub fn agree(
    world: &SimpleCommunicator,
    request: &Request,
    opts: &RunOptions,
    hosts: &[String],
) -> Result<Agreed, RunError> {
    let mut outcome: Result<Plan, String> = Err(String::new());
    let mut writer = None;
    let mut end = None;
    let mem = gather_memory(world);
    if world.rank() == 0 {
        let mem_per_rank = checks::memory_per_rank(hosts, &mem);
        outcome =
            resolve(world.size() as u32, request, opts, hosts, mem_per_rank).and_then(|plan| {
                // A dry run measures nothing, so it leaves no file behind either, but it
                // refuses the outputs the run would refuse.
                if opts.dry_run {
                    return check_outputs(opts).map(|()| plan);
                }
                let path = output_path(opts);
                // Checked before the records file is created, so a refusal leaves nothing behind.
                end = Some(checked_end_of_run(opts, &path)?);
                writer = Some(RecordsWriter::create(&path).map_err(|e| match e {
                    // Only a name the user chose may be blamed on --output.
                    RecordsError::Exists(p) if opts.output.is_none() => format!(
                        "default records file {p} already exists (a run started in the same \
                     microsecond by the same process id?): retry, or name one with --output"
                    ),
                    e => e.to_string(),
                })?);
                Ok(plan)
            });
    }
    let mut bytes = Vec::new();
    if world.rank() == 0 {
        ciborium::into_writer(&outcome, &mut bytes).expect("plan serialises");
    }
    let mut len = bytes.len() as u64;
    world.process_at_rank(0).broadcast_into(&mut len);
    bytes.resize(len as usize, 0);
    world.process_at_rank(0).broadcast_into(&mut bytes[..]);
    // Rank 0's answer travels as CBOR, the refusal as its message: every rank ends alike.
    let outcome: Result<Plan, String> = ciborium::from_reader(&bytes[..])
        .map_err(|e| RunError::PlanBroadcast(crate::frame::cbor::de_error(&e)))?;
    outcome
        .map(|plan| Agreed { plan, writer, end })
        .map_err(RunError::BadInput)
}

impl Agreed {
    /// With `--dry-run` or `--verbose`, rank 0 prints the plan and its estimated duration.
    /// Returns true when the run stops here (`--dry-run`).
    pub fn plan_only(&self, world: &SimpleCommunicator, opts: &RunOptions) -> bool {
        if world.rank() == 0 && (opts.dry_run || opts.verbose) {
            eprint!(
                "{}",
                super::report::describe_plan(&self.plan, world.size() as u32)
            );
            if opts.dry_run {
                eprintln!("delaybench: dry run: nothing measured, no file written");
            }
        }
        opts.dry_run
    }
}

/// `--dry-run --world-size N`: resolves and checks the plan for `world_size` ranks on one
/// host without starting MPI, then prints it like a dry run under mpirun. Memory is not
/// checked (the ranks' hosts are unknown). Exit code 2 with the message for a bad plan.
pub fn dry_run_without_mpi(request: &Request, opts: &RunOptions, world_size: u32) -> ExitCode {
    let hosts = vec!["localhost".to_string(); world_size as usize];
    match resolve(world_size, request, opts, &hosts, None)
        .and_then(|plan| check_outputs(opts).map(|()| plan))
    {
        Ok(plan) => {
            eprint!("{}", super::report::describe_plan(&plan, world_size));
            eprintln!(
                "delaybench: dry run without MPI: nothing measured, no file written, memory \
                 not checked"
            );
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("delaybench: error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn resolve(
    world_size: u32,
    request: &Request,
    opts: &RunOptions,
    hosts: &[String],
    mem_per_rank: Option<u64>,
) -> Result<Plan, String> {
    crate::records::provenance::check_tags(&opts.tags).map_err(|e| e.to_string())?;
    // A replay's map and kernels are settled (or refused) before the plan is made.
    let replay = request.replay_choice()?;
    for w in &replay.warnings {
        eprintln!("delaybench: warning: {w}");
    }
    for n in &replay.notes {
        eprintln!("delaybench: {n}");
    }
    let mut plan = request.to_plan(world_size, rand::random());
    plan.validate(world_size, hosts)
        .map_err(|e| e.to_string())?;
    // A trace to replay is read now, so a bad file ends the run before anything is measured;
    // its checksum, ranks and length go into the plan.
    if let Some(spec) = &plan.detour_noise_file {
        let (filled, _) = crate::noise::schedule::load_noise_file(spec)
            .map_err(|e| format!("--detour {spec}: {e}"))?;
        plan.detour_noise_file = Some(filled);
    }
    checks::check_sizes(&plan, mem_per_rank).map_err(|e| e.to_string())?;
    checks::check_captured_counts(&plan, mem_per_rank).map_err(|e| e.to_string())?;
    // The persistent kernels' MPI-4 functions are looked up in the library now (every rank
    // links the same one), so a library without them ends the run before anything is
    // measured.
    for note in super::kernels::check_persistent(&plan.ops)? {
        eprintln!("delaybench: note: {note}");
    }
    // A dry run shows the estimate whatever it is; a real run needs --yes past the bound.
    if !(opts.yes || opts.dry_run) {
        Estimate::of(&plan)
            .check(opts.max_duration_s)
            .map_err(|e| e.to_string())?;
    }
    // Emulated offsets apply from now on, so that the offsets seen look like the spec.
    plan.emulate_clock = plan
        .emulate_clock
        .map(|spec| spec.with_epoch(super::command::base_clock_now(plan.clock)));
    Ok(plan)
}

/// What a run checks of its outputs before it measures, without creating any: the folder of
/// the end-of-run outputs is missing or empty, and the records file could be created
/// ([`RecordsWriter::check_new`]).
fn check_outputs(opts: &RunOptions) -> Result<(), String> {
    let path = output_path(opts);
    checked_end_of_run(opts, &path)?;
    RecordsWriter::check_new(&path).map_err(|e| e.to_string())
}

/// What the end of a run with `opts` writes beside the records file `path`, checked (its
/// folder missing or empty) before anything is created.
fn checked_end_of_run(opts: &RunOptions, path: &Path) -> Result<EndOfRun, String> {
    let end = EndOfRun::new(
        path,
        opts.figures.as_deref(),
        opts.no_figures,
        opts.no_summary,
    );
    end.check()?;
    Ok(end)
}

fn output_path(opts: &RunOptions) -> PathBuf {
    opts.output
        .clone()
        .unwrap_or_else(|| crate::output_name::default_output("results", "delaybench", "cbor"))
}

/// Every world rank's `MemAvailable` in bytes (`None` where /proc/meminfo cannot be read),
/// on every rank (collective on `world`).
fn gather_memory(world: &SimpleCommunicator) -> Vec<Option<u64>> {
    let mine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| checks::mem_available(&text))
        .unwrap_or(0);
    let mut all = vec![0u64; world.size() as usize];
    world.all_gather_into(&mine, &mut all[..]);
    all.into_iter().map(|m| (m > 0).then_some(m)).collect()
}
