//! Records the git revision of the build for `--version` and the records header
//! (`VERGEN_GIT_SHA`, `VERGEN_GIT_DIRTY`, read by `src/build_info.rs`). Built from a tarball
//! without .git, or without the `git` command, the variables say so and the build goes on.

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
