#!/usr/bin/env bash
# One accuracy session (docs/accuracy.md, "Sessions 4 and 5" onwards): the four cells of the
# start-spread check in 2 interleaved rounds of 10 s each, the floor program and ReproMPI
# HCA3 beside delaybench at the same window, the noise measured before and after each round,
# then `summary.py --check` of each cell. About 10 minutes; run nothing beside it.
#
#   scripts/eval/tail/session.sh OUTDIR DELAYBENCH_BINARY
#
# Cells: one host at 1 ms and 10 ms (ReproMPI at the same window), one host at the automatic
# window (the floor at 20 µs), two emulated hosts at 1 ms (needs root for the namespaces).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OUTDIR DELAYBENCH_BINARY" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$1" bin="$2"
export DB_EXTRA="--delay none"
rounds() { "$here/rounds.sh" -l 10 -r 2 -b "$bin" -n 3 "$@"; }
RM_WINDOW_US=1000 rounds -o "$out/one-1ms" -t "floor@1ms db-treefit@1ms rm-hca3"
RM_WINDOW_US=10000 rounds -o "$out/one-10ms" -t "floor@10ms db-treefit@10ms rm-hca3"
rounds -o "$out/one-auto" -t "floor@20us db-treefit@auto"
RM_WINDOW_US=1000 rounds -m cluster -o "$out/cluster-1ms" -t "floor@1ms db-treefit@1ms rm-hca3"
for d in one-1ms one-10ms one-auto cluster-1ms; do
    echo "== $d"
    python3 "$here/summary.py" --check "$out/$d"
done
