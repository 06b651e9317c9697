#!/usr/bin/env bash
# The main job: build delaybench, measure late arrivals on real MPI ranks, then print the
# summary table and write the figures, report page and summary into the run's own folder
# beside its records (results/<name>.cbor and results/<name>/; never overwritten). Extra
# arguments go to delaybench, e.g.
#   NP=8 scripts/run.sh --ops allreduce,iallreduce --delay 50us,200us
# A first argument --install-man also installs the manual pages into ~/.local/share/man.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
NP="${NP:-4}"
cargo build --release --quiet
exe="${CARGO_TARGET_DIR:-target}/release/delaybench"
# With --install-man (first argument) the manual pages go into this user's man folders
# (man delaybench, man delaybench-analyze, man delaybench-metrics): a change outside the
# repository, so only when asked. man looks in ~/.local/share/man when ~/.local/bin is on
# PATH; otherwise MANPATH has to name it.
if [ "${1:-}" = "--install-man" ]; then
    shift
    manroot="${XDG_DATA_HOME:-$HOME/.local/share}/man"
    pages=$(mktemp -d)
    if "$exe" man --dir "$pages" >/dev/null \
        && mkdir -p "$manroot/man1" "$manroot/man7" \
        && mv "$pages"/*.1 "$manroot/man1/" && mv "$pages"/*.7 "$manroot/man7/"; then
        if command -v man >/dev/null && man -w delaybench >/dev/null 2>&1; then
            echo "run: installed the manual pages in $manroot/man1 and man7 (man delaybench)" >&2
        else
            echo "run: installed the manual pages in $manroot/man1 and man7" \
                "(MANPATH=$manroot: man delaybench)" >&2
        fi
    else
        echo "run: could not install the manual pages in $manroot; delaybench man prints them" >&2
    fi
    rm -rf "$pages"
fi
mkdir -p results
out="results/delaybench-np${NP}-$(date -u +%Y%m%dT%H%M%SZ)-$$.cbor"
echo "run: $DELAYBENCH_MPIEXEC -np $NP $exe --delay-rank 0 --delay 50us --output $out $*" >&2
start=$(date +%s)
status=0
"$DELAYBENCH_MPIEXEC" -np "$NP" "$exe" \
    --delay-rank 0 --delay 50us --output "$out" "$@" || status=$?
# Exit 4: a block had no valid repetition (named in the warning above), typically P = NP
# ranks sharing too few cores on a busy machine. Every other block is measured, analysed and
# drawn, which is what this job is for, so it says so and succeeds; anything else fails.
if [ "$status" -eq 4 ]; then
    echo "run: some blocks had no valid repetition (see the warning above): the machine was too" \
        "busy or has too few cores for P = $NP; the other blocks are in the table and figures" >&2
elif [ "$status" -ne 0 ]; then
    echo "run: delaybench failed with exit status $status" >&2
    exit "$status"
fi
echo "run: done in $(( $(date +%s) - start )) s; records $out; figures, report pages and summary in ${out%.cbor}/" >&2
# Last, the one file to open: the self-contained report page (a browser, from file://).
if [ -f "${out%.cbor}/index.html" ]; then
    echo "run: report page ${out%.cbor}/index.html" >&2
fi
