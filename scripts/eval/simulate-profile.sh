#!/usr/bin/env bash
# Where the wall time of `delaybench simulate` goes, per SMPI allreduce algorithm: one P
# (allreduce 8 B, rank 0 late by 50 us, 100 repetitions, torus built for P, simulate's own
# warm-up and distinct repetitions) under `perf record`, its self time grouped by what the
# code does. Prints a Markdown table, one row per algorithm, with the wall time and the
# machine's noise beside it. An evaluation run by hand (docs/simulate.md), not a test.
#
#   scripts/eval/simulate-profile.sh [ALGORITHMS] [P] [PERF_HZ]
#   e.g. scripts/eval/simulate-profile.sh "default mvapich2_rs rab rab_rdb rdb" 4096 99
# Environment: DELAYBENCH (the binary; default target/release/delaybench).
# Needs perf (linux-perf) and perf_event_paranoid <= 2.
set -euo pipefail
cd "$(dirname "$0")/../.."
algs="${1:-default}"
p="${2:-4096}"
hz="${3:-99}"
exe="${DELAYBENCH:-target/release/delaybench}"
[ -x "$exe" ] || { echo "no $exe: cargo build --release first" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not found: apt-get install linux-perf" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. scripts/eval/noise-before.sh
selfish_build "$out"
printf '| algorithm | P | wall time (s) | network-model solver | SMPI requests, matching, simcalls, actors |'
printf ' malloc, free, copies | context switching | simulated ranks'"'"' program | other | noise before (worst core lost, detours per core) |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
for alg in $algs; do
    noise=$(selfish_noise)
    start=$(date +%s.%N)
    perf record -q -F "$hz" -o "$out/$alg.data" -- "$exe" simulate --engine smpi --ops allreduce --sizes 8 \
        --procs "$p" --delay 50us --delay-rank 0 --nrep 100 --platform torus --algorithms "$alg" \
        --no-figures --no-summary --output "$out/$alg.cbor" >/dev/null 2>"$out/$alg.log"
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    # Self time per (module, symbol); the groups are read from SimGrid 3.32's names.
    perf report -q -i "$out/$alg.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
        awk -v alg="$alg" -v p="$p" -v wall="$wall" -v noise="$noise" '
        $1 ~ /%$/ {
            pct = $1; sub(/%/, "", pct); line = $0
            if (line ~ /lmm::|MaxMin|maxmin|Network(Cm02|Model)|update_actions_state|ActionHeap|LinkImpl|resource::/) g = "solver"
            else if (line ~ /smpi::|simcall|Mailbox|CommImpl|ActivityImpl|find_matching|actor::|EngineImpl/) g = "smpi"
            else if (line ~ /malloc|free|memcpy|memmove|memset|calloc|realloc|operator new|operator delete/) g = "mem"
            else if (line ~ /swapcontext|Context/) g = "ctx"
            else if (line ~ /delaybench_smpi/) g = "prog"
            else g = "other"   # refcounts, dynamic_cast, libsimgrid without symbols
            share[g] += pct
        }
        END {
            printf "| %s | %s | %.1f | %.0f %% | %.0f %% | %.0f %% | %.1f %% | %.1f %% | %.0f %% | %s |\n",
                alg, p, wall, share["solver"], share["smpi"], share["mem"], share["ctx"],
                share["prog"], share["other"], noise
        }'
done
echo
echo "perf record -F $hz, self time grouped by symbol name; load average at the end:" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
