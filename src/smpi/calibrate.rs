//! The `local` platform: this machine's ping-pong latency and bandwidth, measured by
//! `simulate --calibrate` and kept in the cache directory.

use super::platform::{Builtin, LinkParams};
use super::SmpiError;
use std::io::Write;

/// Reads the `local` platform written by `simulate --calibrate`.
///
/// Errors: [`SmpiError::Platform`] when it was never calibrated.
pub fn local() -> Result<Builtin, SmpiError> {
    Err(SmpiError::NotYet(
        "--platform local (run `delaybench simulate --calibrate` first)",
    ))
}

/// `simulate --calibrate`. Errors: [`SmpiError::NotYet`].
pub fn run(_out: &mut dyn Write) -> Result<(), SmpiError> {
    let _ = LinkParams {
        bw_bps: 0.0,
        lat_s: 0.0,
        loopback_bw_bps: 0.0,
        loopback_lat_s: 0.0,
    };
    Err(SmpiError::NotYet("--calibrate"))
}
