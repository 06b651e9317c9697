#!/usr/bin/env bash
# Makes sure delaybench can be built and launched: an MPI (compiler wrapper and launcher),
# libclang for rsmpi's bindgen, pkg-config, make (libffi-sys, under rsmpi's user operations,
# builds libffi with configure and make), and cargo. Source it (`. scripts/setup.sh`).
#
# Which MPI, from DELAYBENCH_MPI:
#   auto (default)  the MPI already on PATH (on a cluster: `module load openmpi` first);
#                   Open MPI from apt-get when there is none. Builds into target/.
#   openmpi, mpich  Debian's Open MPI or MPICH by their own names (mpicc.openmpi,
#                   mpicc.mpich, ...), installed with apt-get when missing, so both live on
#                   one machine without update-alternatives. Builds into target/<name>/.
#
# Optional parts:
#   DELAYBENCH_SLURM=1  Debian's slurm-wlm and munge too (apt-get, when missing), for the
#                       Slurm tests on the emulated cluster (tests/slurm.rs,
#                       scripts/slurm-cluster.sh); without them those tests skip.
#   DELAYBENCH_SIMGRID=1  Debian's libsimgrid-dev too (apt-get, when smpicc is missing):
#                       SimGrid's SMPI for `delaybench simulate` and tests/simulate_smpi.rs;
#                       without it those tests skip and `simulate` says how to get it.
#   DELAYBENCH_CLUSTER=1  the tools of the emulated cluster (scripts/cluster.sh: ip from
#                       iproute2; unshare, nsenter and taskset from util-linux), for
#                       tests/cluster.rs and tests/slurm.rs. Root and namespaces no package
#                       gives: without them those tests record a known limit.
#   DELAYBENCH_APPS=1   Debian's lammps, lammps-examples and hpcc too (apt-get, when lmp,
#                       the melt example or hpcc is missing): real applications under the
#                       capture (tests/capture_apps.rs, tests/capture_ground_truth.rs).
#                       Debian builds both for Open MPI: under MPICH those tests record a
#                       known limit.
#   DELAYBENCH_PYTHON=1   python3 with cbor2, numpy and crc32c for scripts/read_records.py
#                       (tests/one_timeline.rs, tests/records_roundtrip.rs): `pip install`
#                       when python3 cannot import them, Debian's python3-cbor2,
#                       python3-numpy and python3-crc32c when pip refuses (Debian's own
#                       python3 is externally managed); a failure is said and returned.
#   DELAYBENCH_OTF2=1   the OTF2 library (Debian's libotf2-trace-dev: headers, libotf2 and
#                       otf2-config), otf2-tools (otf2-print) and python3-otf2 (the
#                       library's Python reader and writer, for Debian's /usr/bin/python3),
#                       apt-get when missing: `--features otf2` (OTF2 archives, bindgen over
#                       the C API) and tests/otf2_export.rs. Exports DELAYBENCH_FEATURES=otf2
#                       once the headers are there, which scripts/test.sh passes to cargo;
#                       without them the feature stays off and those tests skip.
#   DELAYBENCH_MAN=1    man-db (apt-get, when man is missing), for tests/man_page.rs's
#                       rendering of the manual page.
#   DELAYBENCH_BROWSER=1  Debian's chromium (apt-get, when no chromium is on PATH), the
#                       headless browser tests/html_report.rs opens the report pages in,
#                       and python3's html5lib, the validator it parses them with (pip,
#                       else Debian's python3-html5lib).
#
# Exports: DELAYBENCH_FEATURES (see DELAYBENCH_OTF2), MPICC (read by rsmpi's build), DELAYBENCH_MPIEXEC (the launcher: mpirun or
# mpiexec), DELAYBENCH_MPI_FLAVOR (openmpi, mpich or other), CARGO_TARGET_DIR for a named
# MPI, LIBCLANG_PATH when libclang is outside bindgen's default places, and the Open MPI
# variables for root and for more ranks than cores. Shell options of the caller are left as
# they were; a failure returns (or exits, when run rather than sourced) with status 1.

_setup_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
_repo_dir="$(cd "$_setup_dir/.." && pwd)"
. "$_setup_dir/find_libclang.sh"

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

# Whether python3 imports every module named.
_python_has() {
    local imports
    imports=$(printf 'import %s; ' "$@")
    python3 -c "$imports" >/dev/null 2>&1
}

_delaybench_setup() {
    # Options apply inside this function only: sourcing must not change the caller's shell.
    local -
    set -uo pipefail
    missing=()
    want_mpi="${DELAYBENCH_MPI:-auto}"
    case "$want_mpi" in
        auto)
            if command -v mpicc >/dev/null 2>&1; then
                MPICC=mpicc
                if command -v mpirun >/dev/null 2>&1; then DELAYBENCH_MPIEXEC=mpirun; else DELAYBENCH_MPIEXEC=mpiexec; fi
            elif command -v apt-get >/dev/null 2>&1; then
                missing+=(openmpi-bin libopenmpi-dev)
                MPICC=mpicc DELAYBENCH_MPIEXEC=mpirun
            else
                say "no MPI found (mpicc). Load one (e.g. 'module load openmpi') or install Open MPI/MPICH, then retry."
                return 1
            fi
            ;;
        openmpi)
            MPICC=mpicc.openmpi DELAYBENCH_MPIEXEC=mpirun.openmpi
            command -v mpicc.openmpi >/dev/null 2>&1 || missing+=(openmpi-bin libopenmpi-dev)
            export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$_repo_dir/target/openmpi}"
            ;;
        mpich)
            MPICC=mpicc.mpich DELAYBENCH_MPIEXEC=mpiexec.mpich
            command -v mpicc.mpich >/dev/null 2>&1 || missing+=(mpich libmpich-dev)
            export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$_repo_dir/target/mpich}"
            ;;
        *)
            say "DELAYBENCH_MPI=$want_mpi: expected auto, openmpi or mpich"
            return 1
            ;;
    esac
    command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
    if [ "${DELAYBENCH_SLURM:-0}" = 1 ]; then
        command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 || missing+=(slurm-wlm)
        command -v munged >/dev/null 2>&1 || missing+=(munge)
    fi
    if [ "${DELAYBENCH_SIMGRID:-0}" = 1 ]; then
        command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1 || missing+=(libsimgrid-dev)
    fi
    if [ "${DELAYBENCH_CLUSTER:-0}" = 1 ]; then
        command -v ip >/dev/null 2>&1 || missing+=(iproute2)
        for tool in unshare nsenter taskset; do
            command -v "$tool" >/dev/null 2>&1 || { missing+=(util-linux); break; }
        done
    fi
    if [ "${DELAYBENCH_APPS:-0}" = 1 ]; then
        command -v lmp >/dev/null 2>&1 || missing+=(lammps)
        [ -f /usr/share/lammps/examples/melt/in.melt ] || missing+=(lammps-examples)
        command -v hpcc >/dev/null 2>&1 || missing+=(hpcc)
    fi
    python_modules=(cbor2 numpy crc32c)
    if [ "${DELAYBENCH_PYTHON:-0}" = 1 ]; then
        command -v python3 >/dev/null 2>&1 || missing+=(python3)
        # pyarrow too, for the Parquet test's second reader, where pip can install it (Debian
        # packages no python3-pyarrow, so with Debian's python3 that part is a known limit).
        if command -v python3 >/dev/null 2>&1 && ! _python_has pyarrow; then
            python3 -m pip install --quiet pyarrow >/dev/null 2>&1 ||
                say "pip install pyarrow failed: the Parquet test reads its file with the parquet crate only"
        fi
        if command -v python3 >/dev/null 2>&1 && ! _python_has "${python_modules[@]}"; then
            # pip first: it serves whichever python3 is on PATH (a pyenv or venv one too).
            # Debian's own python3 refuses it (externally managed): its packages then.
            if ! pip_err=$(python3 -m pip install --quiet "${python_modules[@]}" 2>&1); then
                say "pip install ${python_modules[*]} failed: $(printf '%s\n' "$pip_err" | tail -n 2 | tr '\n' ' ')"
                if [ "$(readlink -f "$(command -v python3)")" = "$(readlink -f /usr/bin/python3)" ]; then
                    say "using Debian's packages instead"
                    missing+=(python3-cbor2 python3-numpy python3-crc32c)
                fi
            fi
        fi
    fi
    if [ "${DELAYBENCH_OTF2:-0}" = 1 ]; then
        [ -f /usr/include/otf2/otf2.h ] || command -v otf2-config >/dev/null 2>&1 || missing+=(libotf2-trace-dev)
        command -v otf2-print >/dev/null 2>&1 || missing+=(otf2-tools)
        [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import otf2' >/dev/null 2>&1 || missing+=(python3-otf2)
    fi
    if [ "${DELAYBENCH_MAN:-0}" = 1 ]; then
        command -v man >/dev/null 2>&1 || missing+=(man-db)
    fi
    if [ "${DELAYBENCH_BROWSER:-0}" = 1 ]; then
        command -v chromium >/dev/null 2>&1 || missing+=(chromium)
        if ! command -v python3 >/dev/null 2>&1; then
            missing+=(python3 python3-html5lib)
        elif ! _python_has html5lib && ! python3 -m pip install --quiet html5lib >/dev/null 2>&1; then
            missing+=(python3-html5lib)
        fi
    fi
    command -v make >/dev/null 2>&1 || missing+=(make)
    if libclang=$(find_libclang); then
        say "libclang for bindgen: $libclang"
    else
        say "no libclang that bindgen can load (libclang.so or libclang-N.so; libclang-cpp does not count)"
        missing+=(libclang-dev)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        if command -v apt-get >/dev/null 2>&1; then
            apt_install "${missing[@]}" || return 1
        else
            say "missing: ${missing[*]} and no apt-get here; install them with your package manager."
            return 1
        fi
    fi
    if [ "${DELAYBENCH_PYTHON:-0}" = 1 ] && ! _python_has "${python_modules[@]}"; then
        say "python3 ($(command -v python3)) still cannot import ${python_modules[*]}: install them for it (python3 -m pip install ${python_modules[*]}), or set DELAYBENCH_PYTHON=0 to leave out the tests of scripts/read_records.py"
        return 1
    fi
    if [ "${DELAYBENCH_OTF2:-0}" = 1 ]; then
        if [ -f /usr/include/otf2/otf2.h ] || command -v otf2-config >/dev/null 2>&1; then
            DELAYBENCH_FEATURES=otf2
            export DELAYBENCH_FEATURES
            say "OTF2: the library is there, cargo builds with --features otf2 (scripts/test.sh)"
        else
            say "OTF2: no otf2/otf2.h after installing libotf2-trace-dev; the feature stays off"
        fi
    fi
    if [ -z "${libclang:-}" ]; then
        libclang=$(find_libclang) || {
            say "libclang is still missing after installing libclang-dev; set LIBCLANG_PATH to the directory holding libclang.so"
            return 1
        }
        say "libclang for bindgen: $libclang"
        # bindgen looks in llvm-config's prefix and the system directories; say where, if elsewhere.
        export LIBCLANG_PATH="${LIBCLANG_PATH:-$(dirname "$libclang")}"
    fi

    if ! command -v cargo >/dev/null 2>&1; then
        [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        say "cargo not found: install Rust >= 1.85 (https://rustup.rs), then retry."
        return 1
    fi

    # Open MPI refuses root and more ranks than cores unless told; MPICH takes neither flag, and
    # the variables are harmless to it.
    version_line="$("$DELAYBENCH_MPIEXEC" --version 2>&1 | head -n 3 | tr '\n' ' ')"
    case "$version_line" in
        *"Open MPI"* | *"OpenRTE"*) DELAYBENCH_MPI_FLAVOR=openmpi ;;
        *HYDRA* | *MPICH* | *mpich*) DELAYBENCH_MPI_FLAVOR=mpich ;;
        *) DELAYBENCH_MPI_FLAVOR=other ;;
    esac
    if [ "$DELAYBENCH_MPI_FLAVOR" = openmpi ]; then
        export OMPI_MCA_rmaps_base_oversubscribe=1
        if [ "$(id -u)" -eq 0 ]; then
            export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        fi
    fi
    export MPICC DELAYBENCH_MPIEXEC DELAYBENCH_MPI_FLAVOR
    # Kept for scripts written against the old name.
    MPIRUN_FLAGS=""
    export MPIRUN_FLAGS
    say "MPI: $DELAYBENCH_MPI_FLAVOR, launcher $DELAYBENCH_MPIEXEC ($(echo "$version_line" | cut -c1-60)), build dir ${CARGO_TARGET_DIR:-target}"
}

if ! _delaybench_setup; then
    unset -f _delaybench_setup _python_has
    # shellcheck disable=SC2317
    return 1 2>/dev/null || exit 1
fi
unset -f _delaybench_setup _python_has
