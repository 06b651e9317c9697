#!/usr/bin/env bash
# Builds LogGOPSim (Hoefler, Schneider and Lumsdaine 2010) from its public repository at
# 76451de into $EVAL_DIR (default target/eval) and runs it on GOAL files, for the side by
# side with the built-in LogGOPS engine (docs/simulate.md, "The LogGOPS engine").
#
#   scripts/eval/loggopsim.sh build                 # fetch and build LogGOPSim and txt2bin
#   scripts/eval/loggopsim.sh run FILE.goal [ARGS]  # txt2bin, then LogGOPSim -f (ARGS passed
#                                                   # on: -L -o -g -G -O -S, --noise-trace)
#   scripts/eval/loggopsim.sh compare               # every built-in algorithm's GOAL file
#       (tests/loggops_bench.rs writes them and the engine's end times), run by LogGOPSim:
#       one line per file, "equal" when every end time (P <= 16) or the latest (P > 16)
#       is the same to the nanosecond; exits 1 if any differs
#
# Needs g++, re2c, gengetopt and Graphviz's cgraph headers (Debian: re2c gengetopt
# libgraphviz-dev). Source: $LOGGOPSIM_SRC (a tree), the git mirror $LOGGOPSIM_MIRROR, or a
# clone of github.com/spcl/LogGOPSim; commit $LOGGOPSIM_COMMIT. Its Makefile's -O0 and the
# macOS include path are replaced by -O3 and the system's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
EVAL_DIR="${EVAL_DIR:-$repo/target/eval}"
LOGGOPSIM_COMMIT="${LOGGOPSIM_COMMIT:-76451de}"
LOGGOPSIM_MIRROR="${LOGGOPSIM_MIRROR:-/work/.mirror/spcl+LogGOPSim/repo}"
dir="$EVAL_DIR/LogGOPSim-$LOGGOPSIM_COMMIT"
bin="$dir/src/LogGOPSim"
say() { echo "loggopsim: $*" >&2; }

build() {
    [ -x "$bin/LogGOPSim" ] && [ -x "$bin/txt2bin" ] && return 0
    for tool in g++ re2c gengetopt; do
        command -v "$tool" >/dev/null || { say "needs $tool (Debian: re2c gengetopt libgraphviz-dev)"; exit 1; }
    done
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ -n "${LOGGOPSIM_SRC:-}" ]; then
        cp -a "$LOGGOPSIM_SRC/." "$dir"
    elif [ -d "$LOGGOPSIM_MIRROR" ]; then
        git --git-dir="$LOGGOPSIM_MIRROR" archive "$LOGGOPSIM_COMMIT" | tar -x -C "$dir"
    else
        git clone -q https://github.com/spcl/LogGOPSim "$dir"
        git -C "$dir" checkout -q "$LOGGOPSIM_COMMIT"
    fi
    say "building in $bin"
    make -C "$bin" CXXFLAGS="-std=c++11 -O3 -Wno-deprecated -w" LDFLAGS="-lcgraph" >&2
}

case "${1:-}" in
build) build ;;
run)
    build
    goal="$2"
    shift 2
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    "$bin/txt2bin" -i "$goal" -o "$work/schedule.bin" >&2
    "$bin/LogGOPSim" -f "$work/schedule.bin" "$@"
    ;;
compare)
    build
    out="$EVAL_DIR/loggops-goal"
    rm -rf "$out" && mkdir -p "$out"
    (cd "$repo" && LOGGOPS_EMIT_DIR="$out" cargo test --test loggops_bench -q -- --ignored \
        --exact emit_goal_files_and_their_end_times >&2)
    differ=0
    for goal in "$out"/*.goal; do
        stem="${goal%.goal}"
        "$bin/txt2bin" -i "$goal" -o "$stem.bin" >/dev/null
        "$bin/LogGOPSim" -f "$stem.bin" >"$stem.loggopsim"
        rm -f "$stem.bin"
        ranks=$(wc -l <"$stem.ends")
        if [ "$ranks" -le 16 ]; then
            theirs=$(awk '/^Host [0-9]+:/ {print $3}' "$stem.loggopsim" | tr '\n' ' ')
            ours=$(awk '{printf "%d ", $1}' "$stem.ends")
        else
            theirs=$(awk '/^Maximum finishing time/ {print $(NF-2)}' "$stem.loggopsim")
            ours=$(sort -g "$stem.ends" | tail -1 | awk '{printf "%d", $1}')
        fi
        if [ "$theirs" = "$ours" ]; then verdict=equal; else verdict=DIFFER; differ=1; fi
        printf '%-48s %-6s loggopsim: %s | engine: %s\n' "$(basename "$stem")" "$verdict" \
            "$(echo "$theirs" | cut -c1-60)" "$(echo "$ours" | cut -c1-60)"
    done
    exit "$differ"
    ;;
*)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
