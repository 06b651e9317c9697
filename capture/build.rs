//! Compiles the PMPI wrappers (src/shim.c) with the MPI compiler wrapper ($MPICC, else
//! mpicc) and links the MPI library the same way, so the cdylib carries its own
//! dependency on libmpi.

use std::process::Command;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=exports.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/exports.map");
    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    println!("cargo:rerun-if-changed=src/shim.c");
    println!("cargo:rerun-if-env-changed=MPICC");
    cc::Build::new()
        .compiler(&mpicc)
        .file("src/shim.c")
        .flag_if_supported("-fno-omit-frame-pointer")
        .warnings(true)
        .link_lib_modifier("+whole-archive")
        .compile("delaybench_capture_shim");
    // The link flags mpicc would add: -L and -l of the MPI library.
    let link = Command::new(&mpicc)
        .args(link_query(&mpicc))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {mpicc} to learn the MPI link flags: {e}"));
    let flags = String::from_utf8_lossy(&link.stdout).to_string();
    for word in flags.split_whitespace() {
        if let Some(dir) = word.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = word.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        } else if let Some(rest) = word.strip_prefix("-Wl,-rpath,") {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{rest}");
        }
    }
}

/// Open MPI's wrapper says its link line with `-showme:link`, MPICH's with `-link_info`.
fn link_query(mpicc: &str) -> Vec<&'static str> {
    let probe = Command::new(mpicc).arg("-showme:link").output();
    match probe {
        Ok(o) if o.status.success() => vec!["-showme:link"],
        _ => vec!["-link_info"],
    }
}
