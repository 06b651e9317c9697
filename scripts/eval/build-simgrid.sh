#!/usr/bin/env bash
# Builds SimGrid VERSION (default 4.1) from its source release into
# ~/.cache/delaybench/simgrid-VERSION, to time `delaybench simulate` under a newer SimGrid
# than Debian's 3.32 (docs/simulate.md, "Timing at scale"). Run by hand; about 10 minutes
# on 2 cores. The source is the `simgrid` package on PyPI, whose sdist carries SimGrid's
# whole C++ tree; the library is built without its model checker, Python and Fortran parts
# and without debug logging (as fast as SimGrid builds).
#
#   scripts/eval/build-simgrid.sh [VERSION]
#   PATH=~/.cache/delaybench/simgrid-4.1/bin:$PATH target/release/delaybench simulate --engine smpi ...
#
# simulate then finds that smpicc and smpirun first, compiles its program anew for that
# version, and records the version in the file's header. Environment: PREFIX (the install
# folder), JOBS (make -j, default: the cores).
set -euo pipefail
version="${1:-4.1}"
prefix="${PREFIX:-$HOME/.cache/delaybench/simgrid-$version}"
say() { echo "build-simgrid: $*" >&2; }
if [ -x "$prefix/bin/smpirun" ]; then
    say "$prefix already has SimGrid $version"
    exit 0
fi
for tool in cmake g++ pip3; do
    command -v "$tool" >/dev/null || {
        say "$tool not found: apt-get install cmake g++ libboost-dev python3-pip"
        exit 1
    }
done
[ -d /usr/include/boost ] || { say "Boost headers not found: apt-get install libboost-dev"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pip3 download --quiet --no-deps --no-binary :all: "simgrid==$version" -d "$work"
tar xzf "$work/simgrid-$version.tar.gz" -C "$work"
cmake -S "$work/simgrid-$version" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -Denable_debug=OFF -Denable_model-checking=OFF \
    -Denable_python=OFF -Denable_fortran=OFF -Denable_sthread=OFF \
    -Denable_documentation=OFF >"$work/cmake.log"
make -C "$work/build" -j"${JOBS:-$(nproc)}" simgrid >"$work/make.log"
make -C "$work/build" -j"${JOBS:-$(nproc)}" install >"$work/install.log"
say "SimGrid $version in $prefix: PATH=$prefix/bin:\$PATH delaybench simulate --engine smpi ..."
