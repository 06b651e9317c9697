#!/usr/bin/env bash
# The main job: build delaybench, measure late arrivals on real MPI ranks, then print the
# summary table and write the figures. Extra arguments go to delaybench, e.g.
#   NP=8 scripts/run.sh --ops allreduce,iallreduce --delay 50us,200us
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
NP="${NP:-4}"
cargo build --release --quiet
exe="${CARGO_TARGET_DIR:-target}/release/delaybench"
mkdir -p results figures
out="results/delaybench-np${NP}-$(date -u +%Y%m%dT%H%M%SZ).cbor"
echo "run: $DELAYBENCH_MPIEXEC -np $NP $exe --delay-rank 0 --delay 50us --output $out $*" >&2
start=$(date +%s)
"$DELAYBENCH_MPIEXEC" -np "$NP" "$exe" \
    --delay-rank 0 --delay 50us --output "$out" --figures figures "$@"
echo "run: done in $(( $(date +%s) - start )) s; records $out; figures in figures/" >&2
