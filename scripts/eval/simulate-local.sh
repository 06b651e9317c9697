#!/usr/bin/env bash
# How far to trust a simulated curve on this machine: one plan simulated on the `local`
# platform (this machine's ping-pong latency and bandwidth, `simulate --calibrate`) and
# measured here under MPI, side by side. Prints how the measurement was launched, the
# calibration and the load average, and one Markdown table, a row per (kernel, size, P):
# simulated t0, t_delta, benefit b against the measured ones with their 95 % bootstrap
# intervals, and the ratio simulated / measured of t0 (docs/simulate.md, "Against this
# machine"). An evaluation run by hand on a quiet machine, not a test; it builds nothing.
#
#   scripts/eval/simulate-local.sh
# Environment: DELAYBENCH (the binary; default target/release/delaybench), DELAYBENCH_MPIEXEC
# (default mpirun), NREP (repetitions, 200), SIZES (8; e.g. 8,64KiB), OUT (where the records
# and CSV files are kept; default results/simulate-local-<UTC time>).
set -euo pipefail
cd "$(dirname "$0")/../.."
exe="${DELAYBENCH:-target/release/delaybench}"
[ -x "$exe" ] || { echo "no $exe: cargo build --release first (this script builds nothing)" >&2; exit 1; }
mpiexec="${DELAYBENCH_MPIEXEC:-mpirun}"
out="${OUT:-results/simulate-local-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
plan=(--ops allreduce,bcast,barrier --sizes "${SIZES:-8}" --procs 2,3,4 --delay 50us
    --delay-rank 0 --nrep "${NREP:-200}" --seed 3)
quiet=(--no-figures --no-summary)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# 1. The `local` platform from this machine, now (its figures move with the load).
calibration=$("$exe" simulate --calibrate)

# 2. The plan simulated; a refusal is kept as the reason of the rows it leaves empty.
sim_error=""
if ! "$exe" simulate --engine smpi "${plan[@]}" --platform local "${quiet[@]}" --output "$out/simulated.cbor" \
    >"$out/simulate.log" 2>&1; then
    sim_error=$(grep -m1 -i 'error' "$out/simulate.log" | cut -c1-160 || true)
    sim_error="${sim_error:-simulate failed, see $out/simulate.log}"
    echo "simulate refused the plan: $sim_error" >&2
fi

# 3. The same plan measured on 4 ranks of this machine.
measure=("$mpiexec" -np 4 "$exe" "${plan[@]}" "${quiet[@]}" --output "$out/measured.cbor")
"${measure[@]}" >"$out/measure.log" 2>&1 || { tail -5 "$out/measure.log" >&2; exit 1; }
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# 4. Both analysed, then read by column name.
: >"$out/simulated.csv"  # empty when simulate refused: every row then says why
[ -z "$sim_error" ] && "$exe" analyze --format csv "$out/simulated.cbor" >"$out/simulated.csv" 2>/dev/null
"$exe" analyze --format csv "$out/measured.cbor" >"$out/measured.csv" 2>/dev/null

echo "measured with: ${measure[*]}"
echo "  ($("$mpiexec" --version 2>&1 | head -1); $(nproc) cores; $(grep -c 'oversubscribed' "$out/measure.log" || true) oversubscription warning(s))"
echo "simulated with: $exe simulate --engine smpi ${plan[*]} --platform local"
echo "calibration: ${calibration#local platform: }"
echo "load average (1, 5, 15 min): $load_start at the start, $load_end after measuring"
echo
python3 scripts/eval/simulate_local_summary.py "$out/simulated.csv" "$out/measured.csv" "$sim_error"
echo
echo "records, CSV and logs in $out"
