#!/usr/bin/env bash
# Builds ReproMPI's mpibenchmark (Hunold and Carpen-Amarie 2016) with its clock
# synchronisation library mpi-time-sync (HCA3, JK, ...) from git mirrors, into a cache
# directory outside the repository, for scripts/eval/tail/rounds.sh. Idempotent: prints the
# path of mpibenchmark and does nothing else when it is already built. Run by hand.
#
#   REPROMPI_MIRROR  git dir or URL of hunsa/reprompi   (default /work/.mirror/hunsa+reprompi/repo)
#   MPITS_MIRROR     git dir or URL of hunsa/mpi-time-sync (default /work/.mirror/hunsa+mpi-time-sync/repo)
#   MPICC, MPICXX    the MPI compiler wrappers (default mpicc and its mpicxx sibling;
#                    scripts/setup.sh sets MPICC, e.g. mpicc.mpich for DELAYBENCH_MPI=mpich)
#   REPROMPI_CACHE   build directory (default ~/.cache/delaybench-eval/reprompi-<MPICC name>)
#
# Needs cmake (>= 3.24 for mpi-time-sync), GSL (libgsl-dev) and an MPI; installs cmake and
# libgsl-dev with apt-get when missing and apt-get is there. ReproMPI times with MPI_Wtime
# (its default build: neither ENABLE_RDTSC* nor ENABLE_GETTIME_*), so a clock_gettime shim
# (skew.c) reaches it through the MPI library's MPI_Wtime.
set -euo pipefail
REPROMPI_MIRROR="${REPROMPI_MIRROR:-/work/.mirror/hunsa+reprompi/repo}"
MPITS_MIRROR="${MPITS_MIRROR:-/work/.mirror/hunsa+mpi-time-sync/repo}"
MPICC="${MPICC:-mpicc}"
MPICXX="${MPICXX:-${MPICC/mpicc/mpicxx}}"
# One build per MPI (mpicc: the default one; mpicc.mpich, mpicc.openmpi: Debian's named ones).
REPROMPI_CACHE="${REPROMPI_CACHE:-$HOME/.cache/delaybench-eval/reprompi-$(basename "$MPICC")}"
say() { echo "build_reprompi: $*" >&2; }

exe="$REPROMPI_CACHE/install/bin/mpibenchmark"
if [ -x "$exe" ]; then echo "$exe"; exit 0; fi

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
[ -e /usr/include/gsl/gsl_fit.h ] || missing+=(libgsl-dev)
if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || { say "missing ${missing[*]}"; exit 1; }
    say "installing ${missing[*]} with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

mkdir -p "$REPROMPI_CACHE"
[ -d "$REPROMPI_CACHE/reprompi/.git" ] || git clone -q "$REPROMPI_MIRROR" "$REPROMPI_CACHE/reprompi"
[ -d "$REPROMPI_CACHE/mpi-time-sync/.git" ] || git clone -q "$MPITS_MIRROR" "$REPROMPI_CACHE/mpi-time-sync"
say "reprompi $(git -C "$REPROMPI_CACHE/reprompi" rev-parse --short HEAD), mpi-time-sync $(git -C "$REPROMPI_CACHE/mpi-time-sync" rev-parse --short HEAD)"

# FETCHCONTENT_SOURCE_DIR_MPITS makes FetchContent take the local clone instead of
# ReproMPI's git@github.com URL (no network, no ssh key).
cmake -S "$REPROMPI_CACHE/reprompi" -B "$REPROMPI_CACHE/build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$REPROMPI_CACHE/install" \
    -DCMAKE_C_COMPILER="$MPICC" -DCMAKE_CXX_COMPILER="$MPICXX" \
    -DMPI_C_COMPILER="$MPICC" -DMPI_CXX_COMPILER="$MPICXX" \
    -DFETCHCONTENT_SOURCE_DIR_MPITS="$REPROMPI_CACHE/mpi-time-sync" \
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON >"$REPROMPI_CACHE/cmake.log" 2>&1 \
    || { tail -30 "$REPROMPI_CACHE/cmake.log" >&2; exit 1; }
# mpibenchmark's rpath is the install prefix's lib/ (ReproMPI's CMakeLists sets
# BUILD_WITH_INSTALL_RPATH), where libmpits.so goes: install, then run the installed copy.
{ cmake --build "$REPROMPI_CACHE/build" -j "${JOBS:-2}" && cmake --install "$REPROMPI_CACHE/build"; } \
    >"$REPROMPI_CACHE/build.log" 2>&1 || { tail -30 "$REPROMPI_CACHE/build.log" >&2; exit 1; }
[ -x "$exe" ] || { say "no $exe after the build"; exit 1; }
echo "$exe"
