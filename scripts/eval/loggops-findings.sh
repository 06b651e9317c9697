#!/usr/bin/env bash
# Three published noise findings, rerun on the built-in LogGOPS engine (docs/simulate.md,
# "Published noise findings"): an 8 B allreduce (recursive doubling, no late rank) at P ranks
# under synthetic noise of the same net amount generated in different ways.
#   - Ferreira, Bridges and Brightwell (2008): 2.5 % net noise as 10 Hz x 2.5 ms and as
#     1 kHz x 25 us, periodic and Poisson, at random phases.
#   - Beckman et al. (2008): the same noise co-scheduled (every rank at one phase).
#   - Hoefler, Schneider and Lumsdaine (2010): a network ten times faster (L, o, g / 10)
#     under the same noise.
# Prints a Markdown table: per case the valid repetitions, the median and mean of t_global
# over the valid repetitions (`analyze`, the undelayed blocks) and the slowdown against the
# noiseless run on the same network. An evaluation run by hand, not a test.
#
#   scripts/eval/loggops-findings.sh [PROCS] [NREP]     defaults: 16384 20
#   DELAYBENCH=path/to/delaybench (default target/release/delaybench)
set -euo pipefail
cd "$(dirname "$0")/../.."
procs="${1:-16384}"
nrep="${2:-20}"
exe="${DELAYBENCH:-target/release/delaybench}"
[ -x "$exe" ] || { echo "no $exe: cargo build --release first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fast="L=250ns,o=150ns,g=100ns"
# name | --noise (or -) | phases | --loggops (or -)
cases=(
    "none|-|-|-"
    "periodic-10Hz|periodic:10Hz:2.5ms|random|-"
    "periodic-1kHz|periodic:1kHz:25us|random|-"
    "poisson-10Hz|poisson:10Hz:2.5ms|random|-"
    "poisson-1kHz|poisson:1kHz:25us|random|-"
    "periodic-10Hz-cosched|periodic:10Hz:2.5ms|cosched|-"
    "periodic-1kHz-cosched|periodic:1kHz:25us|cosched|-"
    "fast-none|-|-|$fast"
    "fast-periodic-10Hz|periodic:10Hz:2.5ms|random|$fast"
    "fast-periodic-1kHz|periodic:1kHz:25us|random|$fast"
)
echo "| case | noise | phases | network | P | valid | t_global median (us) | mean (us) | slowdown (median) | slowdown (mean) | wall (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in "${cases[@]}"; do
    IFS='|' read -r name noise phases params <<<"$c"
    args=(simulate --ops allreduce --algorithms recursive_doubling --sizes 8 --procs "$procs"
        --nrep "$nrep" --delay 50us --delay-rank 0 --seed 1 --window 20ms
        --no-figures --no-summary --output "$out/$name.cbor")
    [ "$noise" != - ] && args+=(--noise "$noise")
    [ "$phases" = cosched ] && args+=(--noise-cosched)
    [ "$params" != - ] && args+=(--loggops "$params")
    start=$(date +%s.%N)
    "$exe" "${args[@]}" 2>"$out/$name.log" || { echo "$name failed: $(tail -1 "$out/$name.log")" >&2; continue; }
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    "$exe" analyze "$out/$name.cbor" --format csv 2>/dev/null >"$out/$name.csv"
    python3 - "$out" "$name" "$noise" "$phases" "$params" "$wall" <<'PY'
import csv, sys
out, name, noise, phases, params, wall = sys.argv[1:]
def rows(n):
    # The undelayed blocks: t_global per P over the valid repetitions.
    with open(f"{out}/{n}.csv") as f:
        return {int(r["nprocs"]): r for r in csv.DictReader(f) if float(r["delay_s"]) == 0}
base = "fast-none" if name.startswith("fast-") else "none"
mine, ref = rows(name), rows(base)
for p, r in sorted(mine.items()):
    med, mean = float(r["t_global_median_s"]), float(r["t_global_mean_s"])
    b = ref[p]
    bmed, bmean = float(b["t_global_median_s"]), float(b["t_global_mean_s"])
    net = "L, o, g / 10" if params != "-" else "LogGOPSim's defaults"
    print(f"| {name} | {noise if noise != '-' else 'none'} | {phases} | {net} | {p} | "
          f"{r['valid']}/{r['total']} | {med * 1e6:.1f} | {mean * 1e6:.1f} | "
          f"{med / bmed:.2f} | {mean / bmean:.2f} | {float(wall):.0f} |")
PY
done
echo
echo "8 B allreduce, recursive doubling, seed 1, window 20 ms, $nrep repetitions per case;" \
    "t_global over the valid repetitions of the undelayed blocks (analyze); slowdown: against" \
    "the noiseless run on the same network. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(nproc) cores."
