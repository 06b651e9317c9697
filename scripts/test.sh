#!/usr/bin/env bash
# The tests: unit tests, and integration tests that launch the binary under mpirun.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
cargo test --all-targets "$@"
