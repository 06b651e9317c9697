//! Records the git revision of the build for `--version` and the records header
//! (`VERGEN_GIT_SHA`, `VERGEN_GIT_DIRTY`, read by `src/build_info.rs`). Built from a tarball
//! without .git, or without the `git` command, the variables say so and the build goes on.
//!
//! With the `otf2` feature it also generates the bindings of the OTF2 C library
//! (`otf2/otf2.h`) with bindgen, as rsmpi does for MPI, and links `libotf2`; the include and
//! library directories come from `otf2-config` when it is on PATH.

use vergen_gitcl::{Emitter, GitclBuilder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let git = GitclBuilder::default().sha(false).dirty(false).build()?;
    Emitter::default().add_instructions(&git)?.emit()?;
    // The dirty flag follows the sources, and the revision follows commits also in a git
    // worktree, whose branch ref lives in the common directory that vergen does not watch.
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    for what in ["HEAD", "index"] {
        if let Some(path) = git_path(what) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(branch) = git_output(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git_path(&branch) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    #[cfg(feature = "otf2")]
    otf2_bindings()?;
    Ok(())
}

/// The OTF2 bindings into `$OUT_DIR/otf2_bindings.rs` (read by `src/otf2_sys/mod.rs`): only the
/// `OTF2_` functions, types and constants, so the file stays small.
#[cfg(feature = "otf2")]
fn otf2_bindings() -> Result<(), Box<dyn std::error::Error>> {
    let config = |flag: &str| {
        std::process::Command::new("otf2-config")
            .arg(flag)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let cflags: Vec<String> = config("--cflags")
        .split_whitespace()
        .map(String::from)
        .collect();
    for dir in config("--ldflags").split_whitespace() {
        if let Some(dir) = dir.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        }
    }
    println!("cargo:rustc-link-lib=otf2");
    println!("cargo:rerun-if-env-changed=PATH");
    let header_found = cflags
        .iter()
        .filter_map(|f| f.strip_prefix("-I"))
        .chain(["/usr/include", "/usr/local/include"])
        .any(|d| std::path::Path::new(d).join("otf2/otf2.h").exists());
    if !header_found {
        return Err(
            "the `otf2` feature needs the OTF2 library's headers (otf2/otf2.h): \
                    install Debian's libotf2-trace-dev (or build OTF2 3.0 and put otf2-config \
                    on PATH), or build without `--features otf2`"
                .into(),
        );
    }
    let bindings = bindgen::Builder::default()
        .header_contents("otf2_wrapper.h", "#include <otf2/otf2.h>\n")
        .clang_args(&cflags)
        .allowlist_function("OTF2_.*")
        .allowlist_type("OTF2_.*")
        .allowlist_var("OTF2_.*")
        .generate()?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("otf2_bindings.rs");
    bindings.write_to_file(out)?;
    Ok(())
}

fn git_path(name: &str) -> Option<String> {
    git_output(&["rev-parse", "--git-path", name]).filter(|p| std::path::Path::new(p).exists())
}

fn git_output(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}
