//! `scripts/find_libclang.sh` must find what rsmpi's bindgen can load (libclang.so,
//! libclang-N.so, libclang.so.N) and never take the llvm packages' libclang-cpp for it: that
//! mistake made the README's first command fail on a fresh Debian machine.

use std::path::Path;
use std::process::Command;

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/find_libclang.sh")
}

/// Runs the finder with only `dirs` searched; returns the path it printed, or None.
fn find_in(dirs: &[&Path]) -> Option<String> {
    let joined = dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let out = Command::new("bash")
        .arg(script())
        .env("DELAYBENCH_LIBCLANG_DIRS", joined)
        .output()
        .expect("bash runs the finder");
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert_eq!(
        out.status.success(),
        !printed.is_empty(),
        "exit status and output disagree: {out:?}"
    );
    out.status.success().then_some(printed)
}

fn dir_with(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::write(dir.path().join(f), b"").unwrap();
    }
    dir
}

#[test]
fn finds_versioned_and_plain_libclang() {
    for name in [
        "libclang.so",
        "libclang-14.so",
        "libclang.so.1",
        "libclang-14.so.1",
        "libclang-14.0.6.so",
        "libclang.so.18.1",
    ] {
        let dir = dir_with(&[name]);
        let found = find_in(&[dir.path()]);
        assert_eq!(
            found,
            Some(dir.path().join(name).display().to_string()),
            "{name} is a libclang bindgen loads"
        );
    }
}

#[test]
fn absent_directory_or_empty_directory_finds_nothing() {
    let dir = dir_with(&[]);
    assert_eq!(find_in(&[dir.path()]), None);
    assert_eq!(find_in(&[&dir.path().join("no-such-dir")]), None);
}

#[test]
fn libclang_cpp_alone_is_not_libclang() {
    let dir = dir_with(&[
        "libclang-cpp.so.14",
        "libclang-cpp.so",
        "libclangBasic.a",
        "libclang.a",
    ]);
    assert_eq!(find_in(&[dir.path()]), None);
}

#[test]
fn libclang_beside_libclang_cpp_is_found_in_a_later_directory() {
    let cpp_only = dir_with(&["libclang-cpp.so.14"]);
    let real = dir_with(&["libclang-cpp.so.14", "libclang-14.so.1"]);
    assert_eq!(
        find_in(&[cpp_only.path(), real.path()]),
        Some(real.path().join("libclang-14.so.1").display().to_string())
    );
}
