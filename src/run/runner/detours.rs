//! Detours during a block: the periodic ones of `--detour` and the replayed noise file of
//! `--detour trace:`, confined to the block's operation and recorded with it.

use super::block::write_measured;
use super::Runner;
use crate::delay::{DetourError, DetourInjector, DetourStats};
use crate::noise::schedule::{load_noise_file, schedule_for};
use crate::records::{Block, RecordsWriter};
use crate::run::error::RunError;
use crate::run::kernels::Kernel;
use crate::run::measure::{gather_detours, measure_block, BlockSpec};
use crate::run::process_sync::ProcessSync;
use crate::run::release_clock::ReleaseClock;
use crate::run::tracking::ProbeComms;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

impl Runner<'_> {
    /// Measures one block, with detours confined to the operation when the plan has them.
    pub(super) fn measure_with_detours(
        &self,
        comm: &SimpleCommunicator,
        kernel: &mut Kernel,
        sync: &mut dyn ProcessSync,
        spec_block: BlockSpec,
        comms: Option<&ProbeComms>,
        mut writer: Option<&mut RecordsWriter>,
    ) -> Result<Option<Block>, RunError> {
        let timing = &self.session.timing;
        let sink = writer.as_deref_mut();
        let periodic = self.plan.detour.map(|detour| {
            let first = detour.first_fire_in_s(
                timing.global_now(),
                0.0,
                comm.rank() as u32,
                self.plan.seed,
            );
            (detour.to_string(), DetourInjector::start(detour, first))
        });
        let replayed = self.trace.as_ref().map(|(spec, run)| {
            let rank = self.session.world.rank() as u32;
            let schedule = schedule_for(spec, run, rank, self.plan.seed);
            match DetourInjector::start_schedule(&schedule, timing.global_now()) {
                // A recorded rank without detours replays none.
                Err(DetourError::EmptySchedule) => (spec.to_string(), Ok(None)),
                started => (spec.to_string(), started.map(Some)),
            }
        });
        let (spec, injector) = match (periodic, replayed) {
            (Some((spec, i)), _) => (Some(spec), i.map(Some)?),
            (None, Some((spec, i))) => (Some(spec), i?),
            (None, None) => (None, None),
        };
        let anchor = clock_pair(timing);
        let mut measured = measure_block(
            comm,
            kernel,
            sync,
            timing,
            spec_block,
            injector.as_ref(),
            comms,
            sink,
        );
        if let Some(spec) = spec {
            let (stats, events) = match injector {
                Some(i) => i.stop_with_events(),
                None => (DetourStats::default(), Vec::new()),
            };
            let to_global = monotonic_to_global(anchor, clock_pair(timing));
            let events: Vec<[f64; 2]> = events.iter().map(|e| [to_global(e[0]), e[1]]).collect();
            let record = gather_detours(comm, spec, &stats, &events);
            if let Some(b) = measured.block.as_mut() {
                b.detour = record;
            }
        }
        if let Some(e) = measured.write_error.take() {
            return Err(e.into());
        }
        if let (Some(b), Some(w)) = (measured.block.as_ref(), writer) {
            write_measured(w, b, measured.chunked_reps)?;
        }
        Ok(measured.block)
    }
}

/// Every rank reads the trace rank 0 checked; a different file (another checksum) on this
/// rank's host is an error, since the ranks would replay different noise.
pub(super) fn load_agreed(
    agreed: &crate::delay::NoiseFileSpec,
) -> Result<(crate::delay::NoiseFileSpec, crate::records::noise::NoiseRun), RunError> {
    let (spec, run) = load_noise_file(agreed)?;
    if spec.crc32c != agreed.crc32c {
        return Err(RunError::BadInput(format!(
            "{}: this rank reads a different file than rank 0 (CRC-32C {:08x}, rank 0 {:08x}): \
             give every host the same noise file",
            spec.path, spec.crc32c, agreed.crc32c
        )));
    }
    Ok((spec, run))
}

/// A reading of CLOCK_MONOTONIC and of the global clock, taken together (seconds).
fn clock_pair(timing: &ReleaseClock) -> (f64, f64) {
    use crate::clock::Clock;
    (crate::clock::MonotonicClock.now(), timing.global_now())
}

/// The linear map from CLOCK_MONOTONIC (the detour log's clock) to the global clock through
/// two readings of both, taken before and after a block.
fn monotonic_to_global(a: (f64, f64), b: (f64, f64)) -> impl Fn(f64) -> f64 {
    let rate = if b.0 > a.0 {
        (b.1 - a.1) / (b.0 - a.0)
    } else {
        1.0
    };
    move |m| a.1 + (m - a.0) * rate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_maps_through_both_readings() {
        // The global clock runs 1 ppm fast and 5 s ahead of CLOCK_MONOTONIC.
        let to_global = monotonic_to_global((100.0, 105.0), (200.0, 205.0001));
        assert!((to_global(100.0) - 105.0).abs() < 1e-12);
        assert!((to_global(150.0) - 155.00005).abs() < 1e-9);
        assert!((to_global(200.0) - 205.0001).abs() < 1e-9);
    }

    #[test]
    fn monotonic_maps_at_rate_one_without_elapsed_time() {
        let to_global = monotonic_to_global((100.0, 105.0), (100.0, 107.0));
        assert_eq!(to_global(101.0), 106.0);
    }
}
