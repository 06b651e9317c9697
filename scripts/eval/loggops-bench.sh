#!/usr/bin/env bash
# The LogGOPS engine's speed: per P, a 1-byte dissemination barrier written to GOAL, read
# back and simulated on one core; prints events (LogGOPSim's count: operations + messages),
# the GOAL text's size, the wall time of writing, reading and simulating, and events per
# second of the simulation alone and of reading plus simulating (tests/loggops_bench.rs).
#
#   scripts/eval/loggops-bench.sh                 # P = 1024, 16384, 65536, optimised build
#   PROCS=65536 NOISE=periodic:1kHz:25us scripts/eval/loggops-bench.sh
#   PROFILE=dev FEATURES= scripts/eval/loggops-bench.sh   # the tests' warm build (opt-level 1)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
PROFILE="${PROFILE:-release}"
export LOGGOPS_BENCH_PROCS="${PROCS:-1024,16384,65536}"
[ -n "${NOISE:-}" ] && export LOGGOPS_BENCH_NOISE="$NOISE"
# The engine needs no MPI: by default the build leaves the MPI feature out.
FEATURES="${FEATURES---no-default-features}"
# shellcheck disable=SC2086 # FEATURES is a flag or nothing
exec cargo test --profile "$PROFILE" $FEATURES --test loggops_bench -- \
    --ignored --nocapture --test-threads 1
