#!/usr/bin/env bash
# The tests: unit tests, and integration tests that launch the binary under mpirun.
# Arguments go to `cargo test`; one choosing targets (`scripts/test.sh --test one_timeline`)
# takes the place of --all-targets.
# Ends with the list of tests that skipped (a missing optional part: the README's testing
# section says what each needs), or "no test skipped"; the exit status is cargo's.
# DELAYBENCH_TESTS_STRICT=1 makes every such skip a failure instead (a known limit of the
# host or MPI library, `common::skip_known_limit`, is listed and never fails).
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests include the Slurm tests on the emulated cluster: install Slurm and munge for them
# when missing (DELAYBENCH_SLURM=0 leaves them out, and those tests then skip).
export DELAYBENCH_SLURM="${DELAYBENCH_SLURM:-1}"
# And SimGrid's SMPI for the simulation tests (DELAYBENCH_SIMGRID=0: they skip).
export DELAYBENCH_SIMGRID="${DELAYBENCH_SIMGRID:-1}"
# And the rest the tests use (each =0 leaves its part out, and those tests skip): the
# emulated cluster's tools, LAMMPS and HPCC for the capture of real applications, python3
# with cbor2, numpy and crc32c for read_records.py, the OTF2 library, otf2-print and its
# Python reader for OTF2 archives (`--features otf2`), and man for the manual page's rendering.
export DELAYBENCH_CLUSTER="${DELAYBENCH_CLUSTER:-1}"
export DELAYBENCH_APPS="${DELAYBENCH_APPS:-1}"
export DELAYBENCH_PYTHON="${DELAYBENCH_PYTHON:-1}"
export DELAYBENCH_OTF2="${DELAYBENCH_OTF2:-1}"
export DELAYBENCH_MAN="${DELAYBENCH_MAN:-1}"
export DELAYBENCH_BROWSER="${DELAYBENCH_BROWSER:-1}"
. scripts/setup.sh
# Each skipping test appends `skipped: TEST (why)` here (tests/common/skip.rs): a fresh file
# per run, so the list below is this run's.
DELAYBENCH_SKIP_LOG="$(mktemp)"
export DELAYBENCH_SKIP_LOG
trap 'rm -f "$DELAYBENCH_SKIP_LOG"' EXIT
# Every target unless the arguments choose some: cargo lets --all-targets override a --test.
targets=(--all-targets)
for arg in "$@"; do
    case "$arg" in
        --) break ;;
        --lib | --bins | --bin | --bin=* | --tests | --test | --test=* | --benches | --bench | \
            --bench=* | --examples | --example | --example=* | --doc) targets=() ;;
    esac
done
# The optional features whose libraries setup.sh found (DELAYBENCH_FEATURES: otf2).
features=()
[ -z "${DELAYBENCH_FEATURES:-}" ] || features=(--features "$DELAYBENCH_FEATURES")
status=0
cargo test ${features[@]+"${features[@]}"} ${targets[@]+"${targets[@]}"} "$@" || status=$?
# A test that skips the same part twice (once per choice of times) is listed once.
list=$(awk '!seen[$0]++ { sub(/^skipped: /, "  "); print }' "$DELAYBENCH_SKIP_LOG")
skipped=$(($(printf '%s' "$list" | grep -c '^' || true)))
case "$skipped" in
    0) echo "no test skipped" ;;
    1) echo "1 test skipped:" ;;
    *) echo "$skipped tests skipped:" ;;
esac
[ -z "$list" ] || printf '%s\n' "$list"
exit "$status"
