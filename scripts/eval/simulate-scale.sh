#!/usr/bin/env bash
# Wall time and memory of `delaybench simulate` from 2 ranks to PMAX, per SMPI allreduce
# algorithm: one benefit-vs-P curve (allreduce 8 B, rank 0 late by 50 us, 100 repetitions,
# torus platform) per algorithm, each stopped after TIMEOUT seconds. Prints a Markdown
# table: the wall time of every P (from simulate's own per-P lines), the whole curve's
# wall time (or where it stopped) and the peak memory (GNU time's maximum resident set,
# the simulator included). An evaluation run by hand (docs/simulate.md), not a test.
#
#   scripts/eval/simulate-scale.sh [ALGORITHMS] [PMAX] [TIMEOUT_S] [EXTRA simulate options...]
#   e.g. scripts/eval/simulate-scale.sh "redbcast rdb" 16384 600 --cfg smpi/reduce:binomial
# ALGORITHMS: SMPI names, space-separated, or `all` (the 22 of SimGrid 3.32). Environment:
# DELAYBENCH (the binary; default target/release/delaybench), NREP (100), WARMUP (simulate's
# own default when unset), PLATFORM (torus), PROCS (a comma-separated list of P instead of
# the doublings from 2 to PMAX; the torus is built for PMAX), EVERY=1 to simulate every
# repetition (--every-repetition), NOISE_S (2: seconds of a selfish-detour loop on every
# core before each algorithm, scripts/eval/selfish.c, printed as the noise column).
#
#   PROCS=2,16,128,1024,4096,16384 scripts/eval/simulate-scale.sh "rab ompi" 16384 600
#   PROCS=65536 NREP=10 scripts/eval/simulate-scale.sh redbcast 65536 600 --cfg smpi/reduce:binomial
set -euo pipefail
cd "$(dirname "$0")/../.."
all="default lr rab1 rab2 rab_rdb rdb smp_binomial smp_binomial_pipeline smp_rdb smp_rsag \
smp_rsag_lr smp_rsag_rab redbcast ompi ompi_ring_segmented mpich mvapich2 mvapich2_rs \
mvapich2_two_level impi rab automatic"
algs="${1:-redbcast}"
[ "$algs" = all ] && algs="$all"
pmax="${2:-16384}"
limit="${3:-600}"
shift $(($# < 3 ? $# : 3))
exe="${DELAYBENCH:-target/release/delaybench}"
[ -x "$exe" ] || { echo "no $exe: cargo build --release first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
every=()
[ "${EVERY:-0}" = 1 ] && every=(--every-repetition)
warmup=()
[ -n "${WARMUP:-}" ] && warmup=(--warmup "$WARMUP")
if [ -n "${PROCS:-}" ]; then
    ps=${PROCS//,/ }
    procs=$PROCS
    case ",$PROCS," in *",$pmax,"*) ;; *) procs="$PROCS,$pmax" ;; esac
else
    ps=$(p=2; while [ "$p" -le "$pmax" ]; do printf '%s ' "$p"; p=$((p * 2)); done)
    procs="2:$pmax"
fi
# The machine's noise beside every curve: without it a slow curve cannot be told from a
# busy machine.
. scripts/eval/noise-before.sh
selfish_build "$out"
printf '| algorithm |'; for p in $ps; do printf ' %s |' "$p"; done
printf ' curve (s) | peak memory (MB) | noise before (worst core lost, detours per core) |\n|---|'
for _ in $ps; do printf -- '---:|'; done
printf -- '---:|---:|---|\n'
for alg in $algs; do
    log="$out/$alg.log"
    before=$(selfish_noise)
    start=$(date +%s.%N)
    status=0
    /usr/bin/time -f 'maxrss_kb %M' timeout -k 10 "$limit" "$exe" simulate --engine smpi --ops allreduce \
        --sizes 8 --procs "$procs" --delay 50us --delay-rank 0 --nrep "${NREP:-100}" \
        "${warmup[@]}" --platform "${PLATFORM:-torus}" --algorithms "$alg" \
        "${every[@]}" "$@" --no-figures --no-summary --output "$out/$alg.cbor" \
        >/dev/null 2>"$log" || status=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    printf '| %s |' "$alg"
    for p in $ps; do
        t=$(sed -n "s/.*simulated P = $p ([^)]*):.* in \([0-9.]*\) s of wall time.*/\1/p" "$log")
        printf ' %s |' "${t:--}"
    done
    rss=$(sed -n 's/^maxrss_kb \([0-9]*\)/\1/p' "$log")
    if [ "$status" = 0 ]; then
        printf ' %.1f | %s | %s |\n' "$wall" "$((${rss:-0} / 1024))" "$before"
    elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
        printf ' stopped at %s s | %s | %s |\n' "$limit" "$((${rss:-0} / 1024))" "$before"
    else
        printf ' failed (%s): %s | - | %s |\n' "$status" \
            "$(grep -m1 -i 'error\|critical' "$log" | cut -c1-80)" "$before"
    fi
done
echo
echo "allreduce 8 B, 50 us late rank 0, ${NREP:-100} repetitions, warm-up ${WARMUP:-as simulate sets it}," \
    "platform ${PLATFORM:-torus}, $([ ${#every[@]} = 0 ] && echo 'distinct repetitions' || echo 'every repetition') simulated;" \
    "extra: ${*:-none}; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
