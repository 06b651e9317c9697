//! Default names of output files (records, clocksync results): unique per run even when
//! runs follow each other within one second, so a second run never collides with
//! the first and is never refused for a name the user did not choose.

use std::path::PathBuf;

/// `<dir>/<prefix>-<UTC time to the microsecond>-<pid>.<ext>`, e.g.
/// `results/delaybench-20260101T120000.123456Z-4242.cbor`. The microseconds separate
/// back-to-back runs, the process id runs started in the same microsecond.
pub fn default_output(dir: &str, prefix: &str, ext: &str) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
    PathBuf::from(format!(
        "{dir}/{prefix}-{stamp}-{}.{ext}",
        std::process::id()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_names_differ_and_have_their_parts() {
        let a = default_output("results", "delaybench", "cbor");
        std::thread::sleep(std::time::Duration::from_micros(2));
        let b = default_output("results", "delaybench", "cbor");
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("delaybench-") && name.ends_with(".cbor"),
            "{name}"
        );
        assert!(
            name.contains(&format!("-{}.", std::process::id())),
            "{name}"
        );
        assert!(a.starts_with("results"));
    }
}
