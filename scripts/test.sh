#!/usr/bin/env bash
# The tests: unit tests, and integration tests that launch the binary under mpirun.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests include the Slurm tests on the emulated cluster: install Slurm and munge for them
# when missing (DELAYBENCH_SLURM=0 leaves them out, and those tests then skip).
export DELAYBENCH_SLURM="${DELAYBENCH_SLURM:-1}"
# And SimGrid's SMPI for the simulation tests (DELAYBENCH_SIMGRID=0: they skip).
export DELAYBENCH_SIMGRID="${DELAYBENCH_SIMGRID:-1}"
. scripts/setup.sh
cargo test --all-targets "$@"
