#!/usr/bin/env bash
# Makes sure delaybench can be built and launched: an MPI (mpicc, mpirun), libclang for
# rsmpi's bindgen, pkg-config, and cargo. Uses the MPI already present (on a cluster:
# `module load openmpi` first); installs Open MPI with apt-get only when no mpicc is found.
# Source it (`. scripts/setup.sh`): it exports MPIRUN_FLAGS for the launcher found.
set -euo pipefail

say() { echo "setup: $*" >&2; }

apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { say "need root or sudo to apt-get install $*"; return 1; }
        sudo="sudo"
    fi
    say "installing $* with apt-get"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

have_libclang() {
    [ -n "${LIBCLANG_PATH:-}" ] && return 0
    ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so' && return 0
    compgen -G '/usr/lib/llvm-*/lib/libclang*.so*' >/dev/null
}

missing=()
if ! command -v mpicc >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        missing+=(openmpi-bin libopenmpi-dev)
    else
        say "no MPI found (mpicc). Load one (e.g. 'module load openmpi') or install Open MPI/MPICH, then retry."
        exit 1
    fi
fi
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
have_libclang || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1; then
        apt_install "${missing[@]}"
    else
        say "missing: ${missing[*]} and no apt-get here; install them with your package manager."
        exit 1
    fi
fi

if ! command -v cargo >/dev/null 2>&1; then
    [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
if ! command -v cargo >/dev/null 2>&1; then
    say "cargo not found: install Rust >= 1.85 (https://rustup.rs), then retry."
    exit 1
fi

# Launcher flags: Open MPI refuses root and more ranks than cores unless told; MPICH takes
# neither flag.
MPIRUN_FLAGS=""
if mpirun --version 2>&1 | grep -q "Open MPI"; then
    export OMPI_MCA_rmaps_base_oversubscribe=1
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
fi
export MPIRUN_FLAGS
say "MPI: $(mpirun --version 2>&1 | head -n 1)"
