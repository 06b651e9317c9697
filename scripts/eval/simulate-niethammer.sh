#!/usr/bin/env bash
# The simulated counterpart of Niethammer et al. (2016), Figures 5-9: allreduce and barrier,
# 8 B, rank 0 late by 50 us, P = 2 to PMAX in ONE launch per curve (so every P runs on the
# same simulated machine), on the torus (Hermit-like, 32 ranks per host) and the dragonfly
# (Hazel Hen-like, 24 ranks per host). Prints the median t0 (us) and the delay overlap
# benefit b (%) per P and curve as a Markdown table, and each curve's wall time. An
# evaluation run by hand (docs/simulate.md), not a test.
#
#   scripts/eval/simulate-niethammer.sh [PMAX] [ALLREDUCE_ALG] [BARRIER_ALG]
#   defaults: 16384 rdb ompi_recursivedoubling (SMPI's names); CURVE_TIMEOUT (s, default 600)
#   stops a curve, keeping the P it finished.
set -euo pipefail
cd "$(dirname "$0")/../.."
pmax="${1:-16384}"
ar="${2:-rdb}"
ba="${3:-ompi_recursivedoubling}"
exe="${DELAYBENCH:-target/release/delaybench}"
[ -x "$exe" ] || { echo "no $exe: cargo build --release first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
curves=()
for plat in torus:32 dragonfly:24; do
    for op in allreduce barrier; do
        name="${plat%%:*}-$op"
        start=$(date +%s)
        /usr/bin/time -f 'maxrss_kb %M' timeout -k 10 "${CURVE_TIMEOUT:-600}" "$exe" simulate --engine smpi --ops "$op" --sizes 8 --procs "2:$pmax" \
            --nrep 100 --warmup 2 --delay 50us --delay-rank 0 --platform "${plat%%:*}" \
            --ranks-per-host "${plat##*:}" --seed 1 --cfg "smpi/allreduce:$ar" \
            --cfg "smpi/barrier:$ba" --no-figures --no-summary --output "$out/$name.cbor" \
            >/dev/null 2>"$out/$name.log" || echo "$name: stopped after ${CURVE_TIMEOUT:-600} s" \
            "(the P finished before are kept)" >&2
        echo "$name: $(($(date +%s) - start)) s of wall time," \
            "$(($(sed -n 's/^maxrss_kb //p' "$out/$name.log" | tail -1) / 1024)) MB peak;" \
            "$(grep -c 'simulated P =' "$out/$name.log") process counts" >&2
        "$exe" analyze "$out/$name.cbor" --format csv 2>/dev/null >"$out/$name.csv"
        curves+=("$name")
    done
done
python3 - "$out" "${curves[@]}" <<'PY'
import csv, sys
out, names = sys.argv[1], sys.argv[2:]
rows = {}
for n in names:
    for r in csv.DictReader(open(f"{out}/{n}.csv")):
        if r["delay_model"] != "0":
            rows[(n, int(r["nprocs"]))] = (float(r["t0_median_s"]) * 1e6,
                                           float(r["benefit_median"]) * 100)
ps = sorted({p for _, p in rows})
print("| P | " + " | ".join(f"{n}: t0 (us), b (%)" for n in names) + " |")
print("|---|" + "---|" * len(names))
for p in ps:
    cells = [f"{rows[(n, p)][0]:.2f}, {rows[(n, p)][1]:+.2f}" if (n, p) in rows else "-"
             for n in names]
    print(f"| {p} | " + " | ".join(cells) + " |")
PY
echo
echo "allreduce: smpi/allreduce:$ar; barrier: smpi/barrier:$ba; 100 repetitions (distinct" \
    "delay vectors simulated once), warm-up 2, seed 1; load average at the end:" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
