#!/usr/bin/env bash
# Builds the OSU micro-benchmarks 7.4 and IMB 2021.9.1 (IMB-NBC, IMB-MPI1) from public
# sources into $EVAL_DIR (default target/eval), for scripts/eval/osu_imb.sh. Run by hand.
#
# Sources, first found wins:
#   OSU:  $OSU_SRC (an unpacked tree), the release tarball from mvapich.cse.ohio-state.edu,
#         or a git mirror of a public copy in $OSU_MIRROR at $OSU_COMMIT (the copy's first
#         commit is the unmodified 7.4 release with its generated configure script).
#   IMB:  $IMB_SRC, a clone of github.com/intel/mpi-benchmarks, or a git mirror in
#         $IMB_MIRROR; tag $IMB_TAG.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
EVAL_DIR="${EVAL_DIR:-$repo/target/eval}"
OSU_VERSION=7.4
OSU_MIRROR="${OSU_MIRROR:-/work/.mirror/johnpzh+osu-micro-benchmarks-7.4-ext/repo}"
OSU_COMMIT="${OSU_COMMIT:-a6bb9d2}"
IMB_TAG="${IMB_TAG:-IMB-v2021.9.1}"
IMB_MIRROR="${IMB_MIRROR:-/work/.mirror/intel+mpi-benchmarks/repo}"
MPICC="${MPICC:-mpicc}"
MPICXX="${MPICXX:-mpicxx}"
JOBS="${JOBS:-2}"
mkdir -p "$EVAL_DIR"
say() { echo "build_osu_imb: $*" >&2; }

osu_dir="$EVAL_DIR/osu-micro-benchmarks-$OSU_VERSION"
if [ ! -x "$osu_dir/c/mpi/collective/non_blocking/osu_iallreduce" ]; then
    rm -rf "$osu_dir"
    if [ -n "${OSU_SRC:-}" ]; then
        cp -a "$OSU_SRC" "$osu_dir"
    elif curl -fsSL --max-time 60 -o "$EVAL_DIR/osu.tar.gz" \
        "https://mvapich.cse.ohio-state.edu/download/mvapich/osu-micro-benchmarks-$OSU_VERSION.tar.gz" 2>/dev/null; then
        tar -xzf "$EVAL_DIR/osu.tar.gz" -C "$EVAL_DIR"
    elif [ -d "$OSU_MIRROR" ]; then
        mkdir -p "$osu_dir"
        git --git-dir="$OSU_MIRROR" archive "$OSU_COMMIT" | tar -x -C "$osu_dir"
    else
        say "no OSU source: set OSU_SRC or OSU_MIRROR"; exit 1
    fi
    say "building OSU $OSU_VERSION in $osu_dir"
    (cd "$osu_dir" && touch aclocal.m4 configure Makefile.in ./*/Makefile.in ./*/*/Makefile.in \
        ./*/*/*/Makefile.in ./*/*/*/*/Makefile.in 2>/dev/null || true
     ./configure CC="$MPICC" CXX="$MPICXX" >configure.log 2>&1
     make -C c/util -j"$JOBS" >make.log 2>&1 || true
     make -C c/mpi/collective -j"$JOBS" >>make.log 2>&1)
fi
[ -x "$osu_dir/c/mpi/collective/non_blocking/osu_iallreduce" ] || { say "OSU build failed: $osu_dir/make.log"; exit 1; }

imb_dir="$EVAL_DIR/mpi-benchmarks-$IMB_TAG"
if [ ! -x "$imb_dir/IMB-NBC" ] || [ ! -x "$imb_dir/IMB-MPI1" ]; then
    rm -rf "$imb_dir"
    if [ -n "${IMB_SRC:-}" ]; then
        cp -a "$IMB_SRC" "$imb_dir"
    elif git clone -q --depth 1 --branch "$IMB_TAG" https://github.com/intel/mpi-benchmarks "$imb_dir" 2>/dev/null; then
        :
    elif [ -d "$IMB_MIRROR" ]; then
        mkdir -p "$imb_dir"
        git --git-dir="$IMB_MIRROR" archive "$IMB_TAG" | tar -x -C "$imb_dir"
    else
        say "no IMB source: set IMB_SRC or IMB_MIRROR"; exit 1
    fi
    say "building $IMB_TAG in $imb_dir"
    # IMB builds with -Werror; Open MPI's C++ bindings header trips it on recent compilers,
    # and IMB does not use those bindings: leave them out (IMB's own flags, -O0 included,
    # are kept as the release has them).
    skip="-DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1"
    (cd "$imb_dir" && make CC="$MPICC" CXX="$MPICXX" CXXFLAGS="$skip" IMB-NBC >make.log 2>&1 \
        && make CC="$MPICC" CXX="$MPICXX" CXXFLAGS="$skip" IMB-MPI1 >>make.log 2>&1)
fi
[ -x "$imb_dir/IMB-NBC" ] || { say "IMB build failed: $imb_dir/make.log"; exit 1; }
echo "OSU=$osu_dir/c/mpi/collective"
echo "IMB=$imb_dir"
