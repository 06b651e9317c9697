//! Rank 0 resolves and validates the plan, opens the records file, and tells every rank the
//! outcome, so bad input ends all ranks before any measurement with one message.

use crate::cli::MeasureArgs;
use crate::plan::Plan;
use crate::records::{RecordsError, RecordsWriter};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;

/// The plan every rank runs, and on rank 0 the open records file.
pub struct Agreed {
    pub plan: Plan,
    pub writer: Option<RecordsWriter>,
}

/// Collective on `world`. Returns the plan on every rank, or on every rank the error message
/// (only rank 0's copy is meant to be printed).
/// `hosts`: the host name of every world rank.
pub fn agree(
    world: &SimpleCommunicator,
    args: &MeasureArgs,
    hosts: &[String],
) -> Result<Agreed, String> {
    let mut outcome: Result<Plan, String> = Err(String::new());
    let mut writer = None;
    if world.rank() == 0 {
        outcome = resolve(world.size() as u32, args, hosts).and_then(|plan| {
            let path = output_path(args);
            writer = Some(RecordsWriter::create(&path).map_err(|e| match e {
                // Only a name the user chose may be blamed on --output.
                RecordsError::Exists(p) if args.output.is_none() => format!(
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
    let outcome: Result<Plan, String> = ciborium::from_reader(&bytes[..])
        .map_err(|e| format!("plan broadcast: {}", crate::records::cbor_de_error(&e)))?;
    outcome.map(|plan| Agreed { plan, writer })
}

fn resolve(world_size: u32, args: &MeasureArgs, hosts: &[String]) -> Result<Plan, String> {
    let mut plan = args.to_plan(world_size, rand::random());
    plan.validate(world_size, hosts)
        .map_err(|e| e.to_string())?;
    // Emulated offsets apply from now on, so that the offsets seen look like the spec.
    plan.emulate_clock = plan
        .emulate_clock
        .map(|spec| spec.with_epoch(super::base_clock_now(plan.clock)));
    Ok(plan)
}

fn output_path(args: &MeasureArgs) -> PathBuf {
    args.output
        .clone()
        .unwrap_or_else(|| crate::output_name::default_output("results", "delaybench", "cbor"))
}
