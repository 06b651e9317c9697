#!/usr/bin/env bash
# The capture's cost per intercepted call and its memory (docs/capture.md): builds the
# library and capture/bench/overhead.c, then runs the benchmark on one rank without and with
# the library preloaded, ROUNDS times each, alternating. A benchmark, not a test: run it on
# a quiet machine. Usage: scripts/capture-overhead.sh [CALLS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
calls="${1:-1000000}"
rounds="${2:-3}"
cargo build --release -p delaybench-capture --quiet
lib="$(pwd)/${CARGO_TARGET_DIR:-target}/release/libdelaybench_capture.so"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$MPICC" -O2 -o "$work/overhead" capture/bench/overhead.c
for i in $(seq "$rounds"); do
    echo "# round $i: without the capture"
    "$work/overhead" "$calls"
    echo "# round $i: with the capture"
    DELAYBENCH_CAPTURE_DIR="$work/capture-$i" LD_PRELOAD="$lib" "$work/overhead" "$calls"
    du -k "$work/capture-$i/rank0.cbor" | awk '{print "capture_file_kib " $1}'
done
