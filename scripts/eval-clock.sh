#!/usr/bin/env bash
# Drift-tracking evaluation: window-synchronised alltoall 8 B at P = 2, rank 1's clock emulated
# 1.5 ms ahead and drifting +20 ppm, runs of 1 s, 10 s and 60 s (1 ms windows), per clock
# sync method, with drift tracking on (default) and, for treefit, off. For each run it prints
# the sync time, the clock probes' share of the run, and from `analyze --truth` (the
# emulation's known clocks, independent of the sync code) the true start spread of the two
# ranks and the true error of the online global clock: median over the run and the worst
# tenth's 95th percentile, in microseconds.
#   scripts/eval-clock.sh [METHODS] [LENGTHS_S]     e.g. scripts/eval-clock.sh "treefit hca" "1 10"
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
cargo build --release --quiet
exe="${CARGO_TARGET_DIR:-target}/release/delaybench"
methods="${1:-treefit hca jk}"
lengths="${2:-1 10 60}"
out=$(mktemp -d)
printf "%-8s %-8s %6s %8s %9s %10s %10s %10s %10s\n" method tracking run_s sync_ms pauses_% \
    spread_med spread_p95 clkerr_med clkerr_p95
run_one() { # method tracking length
    local m=$1 t=$2 len=$3 f="$out/$1-$2-$3.cbor" extra=()
    [ "$t" = off ] && extra=(--no-tracking)
    "$DELAYBENCH_MPIEXEC" -np 2 "$exe" --ops alltoall --sizes 8 --procs 2 --nrep $((len * 1000)) \
        --window 1ms --warmup 20 --clock-sync "$m" "${extra[@]}" \
        --emulate-clock "offset=1.5ms*rank,skew=20ppm*rank" --output "$f" --no-figures \
        >/dev/null 2>"$out/err" || { cat "$out/err" >&2; return 1; }
    "$exe" analyze "$f" --truth --format csv 2>/dev/null >"$out/truth.csv"
    "$exe" export "$f" --rows rep --format csv 2>/dev/null >"$out/reps.csv" || true
    python3 - "$f" "$out/truth.csv" "$out/err" "$m" "$t" "$len" <<'PY'
import csv, re, sys
f, truth, err, m, t, length = sys.argv[1:]
rows = [r for r in csv.DictReader(open(truth)) if r["delay_model"] == "0"]
med = lambda xs: sorted(xs)[len(xs) // 2]
us = lambda r, k: float(r[k]) * 1e6
spread_med = med([us(r, "median_s") for r in rows])
spread_p95 = max(us(r, "p95_s") for r in rows)
err_med = med([us(r, "clock_error_median_s") for r in rows])
err_p95 = max(us(r, "clock_error_p95_s") for r in rows)
text = open(err).read()
sync = re.search(r"clock sync \S+ in ([0-9.]+) s", text)
sync_ms = float(sync.group(1)) * 1e3 if sync else float("nan")
# Probe cost: the pauses the schedule took for in-block probes, from the scheduled starts.
probes = float("nan")
try:
    reps = list(csv.DictReader(open(sys.argv[2].replace("truth.csv", "reps.csv"))))
    base = [r for r in reps if r["delay_model"] == "0"]
    s = [float(r["scheduled_start_s"]) for r in base if r.get("scheduled_start_s")]
    if len(s) > 2:
        gaps = [b - a - 1e-3 for a, b in zip(s, s[1:])]
        pause = sum(g for g in gaps if g > 0.5e-3)
        probes = 100 * pause / (s[-1] - s[0])
except Exception:
    pass
print(f"{m:8s} {t:8s} {length:>6s} {sync_ms:8.1f} {probes:9.2f} {spread_med:10.3f} "
      f"{spread_p95:10.3f} {err_med:10.3f} {err_p95:10.3f}")
PY
}
for len in $lengths; do
    for m in $methods; do run_one "$m" on "$len"; done
    run_one treefit off "$len"
done
rm -rf "$out"
