//! The `local` platform: this machine's ping-pong latency and bandwidth, measured by
//! `simulate --calibrate` (`smpi/pingpong.c`, built with the machine's own `mpicc` and run on
//! 2 ranks with its `mpirun`) and kept in the cache directory as `local-platform.txt`.

use super::platform::{Builtin, LinkParams};
use super::toolchain::cache_dir;
use super::{rename_over, write_file, SmpiError};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// The ping-pong program, embedded.
const PINGPONG_SOURCE: &str = include_str!("../../../smpi/pingpong.c");

/// The file `--calibrate` writes and `--platform local` reads.
pub fn local_file() -> PathBuf {
    cache_dir().join("local-platform.txt")
}

/// This machine's one-way latency (s) and bandwidth (bytes/s) from `text`
/// (`latency_s L` and `bandwidth_Bps B` lines). Errors: what is missing.
pub fn parse(text: &str) -> Result<(f64, f64), String> {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key).map(str::trim))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("no positive `{key}` line"))
    };
    Ok((field("latency_s ")?, field("bandwidth_Bps ")?))
}

/// The `local` platform: one host whose ranks talk over a loopback link with the measured
/// latency and bandwidth (the ranks of a measurement on this machine share its memory).
///
/// Errors: [`SmpiError::Platform`] when `--calibrate` never ran or its file is damaged.
pub fn local() -> Result<Builtin, SmpiError> {
    let path = local_file();
    let text = std::fs::read_to_string(&path).map_err(|_| {
        SmpiError::Platform(format!(
            "--platform local needs {} (run `delaybench simulate --calibrate` first)",
            path.display()
        ))
    })?;
    let (lat, bw) =
        parse(&text).map_err(|e| SmpiError::Platform(format!("{}: {e}", path.display())))?;
    Ok(Builtin::Local(LinkParams {
        bw_bps: bw,
        lat_s: lat,
        loopback_bw_bps: bw,
        loopback_lat_s: lat,
    }))
}

/// `simulate --calibrate`: builds and runs the ping-pong with `$MPICC` (else `mpicc`) and
/// `$DELAYBENCH_MPIEXEC` (else `mpirun`), writes [`local_file`] and prints it to `out`.
///
/// Errors: [`SmpiError::Tool`] when the MPI tools fail, [`SmpiError::Io`].
pub fn run(out: &mut dyn Write) -> Result<(), SmpiError> {
    let dir = cache_dir().join(format!("calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|source| SmpiError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let src = dir.join("pingpong.c");
    write_file(&src, PINGPONG_SOURCE.as_bytes())?;
    let exe = dir.join("pingpong");
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    let built = Command::new(&mpicc)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .map_err(|e| {
            SmpiError::Tool(format!("{mpicc} (set MPICC, or `. scripts/setup.sh`): {e}"))
        })?;
    if !built.status.success() {
        return Err(SmpiError::Tool(format!(
            "{mpicc} failed: {}",
            String::from_utf8_lossy(&built.stderr)
        )));
    }
    let mpirun = std::env::var("DELAYBENCH_MPIEXEC").unwrap_or_else(|_| "mpirun".into());
    let ran = Command::new(&mpirun)
        .args(["-np", "2"])
        .arg(&exe)
        .output()
        .map_err(|e| SmpiError::Tool(format!("{mpirun}: {e}")))?;
    let text = String::from_utf8_lossy(&ran.stdout).to_string();
    if !ran.status.success() {
        return Err(SmpiError::Tool(format!(
            "{mpirun} -np 2 pingpong failed: {}",
            String::from_utf8_lossy(&ran.stderr)
        )));
    }
    let (lat, bw) = parse(&text).map_err(SmpiError::Tool)?;
    let file = format!(
        "# delaybench simulate --calibrate, {}: ping-pong on 2 ranks of this machine\n\
         latency_s {lat:.9e}\nbandwidth_Bps {bw:.6e}\n",
        chrono::Utc::now().to_rfc3339()
    );
    // Written beside it and renamed over it: a `--platform local` run reading the file
    // meanwhile, or a second calibration, sees one whole file, never half of one.
    let whole = local_file();
    let part = whole.with_extension(format!("txt.{}", std::process::id()));
    write_file(&part, file.as_bytes())?;
    rename_over(&part, &whole)?;
    let _ = std::fs::remove_dir_all(&dir);
    let _ = writeln!(
        out,
        "local platform: latency {:.3} us, bandwidth {:.2} GB/s, written to {}",
        lat * 1e6,
        bw / 1e9,
        local_file().display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_file_reads_back() {
        let (l, b) = parse("# x\nlatency_s 4.5e-7\nbandwidth_Bps 5.0e9\n").unwrap();
        assert_eq!((l, b), (4.5e-7, 5.0e9));
        assert!(parse("latency_s 1e-6\n").is_err());
        assert!(parse("latency_s -1\nbandwidth_Bps 1e9").is_err());
    }
}
