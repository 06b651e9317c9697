#!/usr/bin/env bash
# The main job: build delaybench, measure late arrivals on real MPI ranks, then print the
# summary table and write the figures, report page and summary into the run's own folder
# beside its records (results/<name>.cbor and results/<name>/; never overwritten). Extra
# arguments go to delaybench, e.g.
#   NP=8 scripts/run.sh --ops allreduce,iallreduce --delay 50us,200us
# as LAUNCHES launches (default 5) of that plan into results/<name>/, decided over launches;
# LAUNCHES=1 measures once into results/<name>.cbor.
# A first argument --install-man also installs the manual pages into ~/.local/share/man.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
# 4 ranks, or one per core where the machine has fewer: ranks that share cores time the
# scheduler's slices (milliseconds) rather than the collective, and two studies of 4 ranks on
# 2 cores agreed in 16 of 26 verdicts where 2 ranks agreed in 25 of 26. NP=4 asks for 4.
cores=$(nproc 2>/dev/null || echo 4)
if [ -z "${NP:-}" ]; then
    NP=4
    if [ "$cores" -lt 4 ]; then
        NP=$(( cores < 2 ? 2 : cores ))
        echo "run: $NP ranks, one per core of this machine's $cores (NP=4 runs 4 on shared cores)" >&2
    fi
fi
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
# A study is LAUNCHES launches (default 5) of one plan: results differ from one mpirun to the
# next by more than one launch's repetitions show, so the verdicts are decided over launches
# (`delaybench launches`, docs/metrics.md "Between launches"). LAUNCHES=1 measures once, and
# its table says that its verdicts rest on one launch.
LAUNCHES="${LAUNCHES:-5}"
start=$(date +%s)
if [ "$LAUNCHES" != 1 ]; then
    dir="results/delaybench-np${NP}-$(date -u +%Y%m%dT%H%M%SZ)-$$"
    echo "run: $exe launches $LAUNCHES --dir $dir -- $DELAYBENCH_MPIEXEC -np $NP $exe" \
        "--delay-rank 0 --delay 50us $*" >&2
    "$exe" launches "$LAUNCHES" --dir "$dir" -- \
        "$DELAYBENCH_MPIEXEC" -np "$NP" "$exe" --delay-rank 0 --delay 50us "$@"
    echo "run: done in $(( $(date +%s) - start )) s; records $dir/launch-*.cbor; figures and" \
        "report pages in $dir/report/" >&2
    # Last, the one file to open: the self-contained report page (a browser, from file://).
    echo "run: report page $dir/report/index.html" >&2
    exit 0
fi
out="results/delaybench-np${NP}-$(date -u +%Y%m%dT%H%M%SZ)-$$.cbor"
echo "run: $DELAYBENCH_MPIEXEC -np $NP $exe --delay-rank 0 --delay 50us --output $out $*" >&2
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
