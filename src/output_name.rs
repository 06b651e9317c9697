//! Default names of output files (records, clocksync results): unique per run even when
//! runs follow each other within one second, so a second run never collides with
//! the first and is never refused for a name the user did not choose. Each records file has
//! a folder beside it with the same stem for what is made from it (figures, report page,
//! summary): `results/<stem>.cbor` and `results/<stem>/`, so outputs follow their data and
//! no run writes into another's.

use std::path::{Path, PathBuf};

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

/// The folder of what is made from the file at `data` (a records file, a clocksync CSV):
/// beside it, named by its stem (`results/run.cbor` → `results/run`). A name without an
/// extension would give the file's own path, so `.outputs` is added then
/// (`results/run` → `results/run.outputs`).
pub fn outputs_dir(data: &Path) -> PathBuf {
    match (data.extension(), data.file_stem()) {
        (Some(_), Some(stem)) => data.with_file_name(stem),
        _ => {
            let mut name = data.file_name().unwrap_or_default().to_os_string();
            name.push(".outputs");
            data.with_file_name(name)
        }
    }
}

/// The way out a run's figures folder offers when it is in the way.
pub const FIGURES_WAY_OUT: &str = "--figures DIR (or --output FILE, whose folder is beside it)";

/// Checks that `dir` may receive a command's outputs without overwriting anything: it does
/// not exist, or is an empty directory. `option` is the option that names another one
/// (`--dir`, `--output DIR`, [`FIGURES_WAY_OUT`]).
///
/// Errors: a message naming `dir`, what is in the way (a file, a non-empty directory, or
/// an unreadable path) and `option`.
pub fn check_fresh_dir(dir: &Path, option: &str) -> Result<(), String> {
    match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if dir.is_file() => Err(format!(
            "{} is a file, not a directory for the outputs ({e})",
            dir.display()
        )),
        Err(e) => Err(format!("cannot read {}: {e}", dir.display())),
        Ok(mut entries) => match entries.next() {
            None => Ok(()),
            Some(_) => Err(format!(
                "{} already holds files: outputs are never overwritten; remove it or \
                 choose another {option}",
                dir.display()
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_dir_is_beside_the_data_with_its_stem() {
        assert_eq!(
            outputs_dir(Path::new("results/delaybench-1-2.cbor")),
            PathBuf::from("results/delaybench-1-2")
        );
        assert_eq!(outputs_dir(Path::new("run.cbor")), PathBuf::from("run"));
        assert_eq!(
            outputs_dir(Path::new("a.b/clocksync.csv")),
            PathBuf::from("a.b/clocksync")
        );
        // No extension: the folder must not be the file itself.
        assert_eq!(
            outputs_dir(Path::new("results/run")),
            PathBuf::from("results/run.outputs")
        );
    }

    #[test]
    fn only_missing_or_empty_dirs_are_fresh() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("figs");
        assert_eq!(check_fresh_dir(&dir, "--dir"), Ok(()));
        std::fs::create_dir(&dir).unwrap();
        assert_eq!(check_fresh_dir(&dir, "--dir"), Ok(()));
        std::fs::write(dir.join("index.md"), "x").unwrap();
        let e = check_fresh_dir(&dir, "--dir").unwrap_err();
        assert!(
            e.contains("never overwritten") && e.ends_with("another --dir"),
            "{e}"
        );
        let file = tmp.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(check_fresh_dir(&file, "--dir")
            .unwrap_err()
            .contains("is a file"));
    }

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
