//! From a noise file to the detours each rank replays (`--detour noise:FILE`; the mapping is
//! described in `crate::delay::NoiseFileSpec`).

use crate::delay::{DetourSchedule, NoiseFileSpec};
use crate::records::noise::{read_noise, NoiseRun};
use crate::records::RecordsError;
use std::path::Path;

/// Reads the noise file of `spec` and fills in its checksum, recorded ranks and period.
/// Errors: those of reading the file; [`RecordsError::NotRecords`] when it holds no rank or
/// no time.
pub fn load_noise_file(spec: &NoiseFileSpec) -> Result<(NoiseFileSpec, NoiseRun), RecordsError> {
    let path = Path::new(&spec.path);
    let run = read_noise(path)?;
    let bytes = std::fs::read(path).map_err(|source| RecordsError::Read {
        path: spec.path.clone(),
        source,
    })?;
    let period_s = run.header.duration_s;
    if run.ranks.is_empty() || period_s.is_nan() || period_s <= 0.0 {
        return Err(RecordsError::NotRecords {
            path: spec.path.clone(),
            reason: "the noise file holds no rank or no measured time to replay".into(),
        });
    }
    let filled = NoiseFileSpec {
        crc32c: crc32c::crc32c(&bytes),
        recorded_ranks: run.ranks.len() as u32,
        period_s,
        ..spec.clone()
    };
    Ok((filled, run))
}

/// The schedule run rank `rank` replays: recorded rank `rank mod R`, shifted as the spec's
/// mode says (with `seed`).
pub fn schedule_for(spec: &NoiseFileSpec, run: &NoiseRun, rank: u32, seed: u64) -> DetourSchedule {
    let recorded = &run.ranks[rank as usize % run.ranks.len()];
    DetourSchedule::new(
        &recorded.detour_start_global_s.0,
        &recorded.detour_duration_s.0,
        run.header.start_global_s,
        run.header.duration_s,
        spec.shift_s(rank, seed),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::noise::testdata;

    #[test]
    fn ranks_wrap_around_the_recorded_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.cbor");
        let run = testdata::run(&[vec![(100.25, 1e-5)], vec![(100.75, 2e-5)]]);
        testdata::write(&run, &path).unwrap();
        let spec: NoiseFileSpec = format!("noise:{}", path.display()).parse().unwrap();
        let (spec, run) = load_noise_file(&spec).unwrap();
        assert_eq!((spec.recorded_ranks, spec.period_s), (2, 1.0));
        assert_ne!(spec.crc32c, 0);
        let s2 = schedule_for(&spec, &run, 2, 1);
        assert_eq!(s2.durations_s, vec![1e-5]);
        assert!((s2.offsets_s[0] - 0.25).abs() < 1e-9);
        assert_eq!(schedule_for(&spec, &run, 3, 1).durations_s, vec![2e-5]);
        let missing: NoiseFileSpec = "trace:/nonexistent/n.cbor".parse().unwrap();
        assert!(load_noise_file(&missing).is_err());
    }
}
