//! SimGrid's tools: finding `smpicc` and `smpirun`, the engine's version, and building the
//! simulated ranks' program (`smpi/delaybench_smpi.c`, embedded in the binary) at first use.

use super::SmpiError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C program the simulated ranks run, compiled with `smpicc` (see its header comment).
pub const PROGRAM_SOURCE: &str = include_str!("../../../smpi/delaybench_smpi.c");

/// SimGrid's compiler wrapper and launcher, and the engine's version.
#[derive(Debug, Clone)]
pub struct Toolchain {
    pub smpicc: PathBuf,
    pub smpirun: PathBuf,
    /// `3.32`, from `smpirun -version` (`SimGrid version 3.32`).
    pub version: String,
}

/// `name` on `PATH`, or `None`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Toolchain {
    /// Finds `smpicc` and `smpirun` on `PATH` and asks the version.
    ///
    /// Errors: [`SmpiError::Missing`] (with how to install SimGrid), [`SmpiError::Tool`].
    pub fn find() -> Result<Toolchain, SmpiError> {
        let smpicc = on_path("smpicc").ok_or(SmpiError::Missing("smpicc"))?;
        let smpirun = on_path("smpirun").ok_or(SmpiError::Missing("smpirun"))?;
        let out = Command::new(&smpirun)
            .arg("-version")
            .output()
            .map_err(|e| SmpiError::Tool(format!("{} -version: {e}", smpirun.display())))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let version = parse_version(&text).unwrap_or_else(|| "unknown".into());
        Ok(Toolchain {
            smpicc,
            smpirun,
            version,
        })
    }

    /// The simulated ranks' program, compiled at first use into the cache directory
    /// ([`cache_dir`]) under a name that hashes the source and the SimGrid version, so an
    /// edited source or another SimGrid builds anew. Concurrent builds each write their own
    /// file and rename it into place.
    ///
    /// Errors: [`SmpiError::Build`] with the compiler's output.
    pub fn program(&self) -> Result<PathBuf, SmpiError> {
        let dir = cache_dir();
        std::fs::create_dir_all(&dir)
            .map_err(|e| SmpiError::Build(format!("cannot create {}: {e}", dir.display())))?;
        let key = fnv1a(format!("{}\n{}", self.version, PROGRAM_SOURCE).as_bytes());
        let exe = dir.join(format!("delaybench_smpi-{key:016x}"));
        if exe.is_file() {
            return Ok(exe);
        }
        let tmp = dir.join(format!("build-{}-{key:016x}", std::process::id()));
        std::fs::create_dir_all(&tmp)
            .map_err(|e| SmpiError::Build(format!("cannot create {}: {e}", tmp.display())))?;
        let src = tmp.join("delaybench_smpi.c");
        std::fs::write(&src, PROGRAM_SOURCE)
            .map_err(|e| SmpiError::Build(format!("cannot write {}: {e}", src.display())))?;
        let built = tmp.join("delaybench_smpi");
        let out = Command::new(&self.smpicc)
            .args(["-O2", "-o"])
            .arg(&built)
            .arg(&src)
            .current_dir(&tmp)
            .output()
            .map_err(|e| SmpiError::Build(format!("{}: {e}", self.smpicc.display())))?;
        if !out.status.success() || !built.is_file() {
            return Err(SmpiError::Build(format!(
                "{} failed: {}{}",
                self.smpicc.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        std::fs::rename(&built, &exe)
            .map_err(|e| SmpiError::Build(format!("cannot move the program into place: {e}")))?;
        let _ = std::fs::remove_dir_all(&tmp);
        Ok(exe)
    }
}

/// Where the built program and the `local` platform live: `$DELAYBENCH_CACHE`, else
/// `$XDG_CACHE_HOME/delaybench`, else `$HOME/.cache/delaybench`, else the temporary directory.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("DELAYBENCH_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Path::new(&d).join("delaybench");
    }
    if let Some(d) = std::env::var_os("HOME") {
        return Path::new(&d).join(".cache").join("delaybench");
    }
    std::env::temp_dir().join("delaybench")
}

/// `3.32` from `SimGrid version 3.32` (also `3.32.1`, `3.32-dev`).
pub fn parse_version(text: &str) -> Option<String> {
    let rest = &text[text.find("SimGrid version")? + "SimGrid version".len()..];
    let word = rest.split_whitespace().next()?;
    let v: String = word
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    (!v.is_empty()).then_some(v.trim_end_matches('.').to_string())
}

/// FNV-1a, 64 bits (the `fnv` crate): a stable name for a build (not a security hash).
fn fnv1a(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_read_from_smpirun() {
        assert_eq!(
            parse_version("SimGrid version 3.32\n").as_deref(),
            Some("3.32")
        );
        assert_eq!(
            parse_version("x\nSimGrid version 3.34.1 (git)").as_deref(),
            Some("3.34.1")
        );
        assert_eq!(parse_version("smpirun: unknown"), None);
    }

    #[test]
    fn build_names_differ_with_the_source() {
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        // The published FNV-1a 64 test vector for "a": build names stay those of earlier builds.
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
