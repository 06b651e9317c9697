#!/usr/bin/env bash
# How much one launch differs from the next: the same plan launched again and again, by one
# or two delaybench binaries in interleaved rounds (A B, then B A, ...), with the machine's
# noise measured beside every round and OSU's osu_allreduce launched in the same rounds when
# it is built (scripts/eval/build_osu_imb.sh). Run by hand on a quiet machine, never by the
# tests.
#
#   scripts/eval/launch-spread.sh ROUNDS BIN_A [BIN_B]
#
# Each launch: mpirun -np 2 BIN --ops $OPS --sizes $SIZES --procs 2 --delay-rank 0
# --delay 50us --nrep $NREP --rotate 0 (the plan of the four-launch table in
# docs/metrics.md). Prints, per binary and configuration, every launch's median t0 and
# t_delta, their spread (max/min) and the verdicts over the launches (analyze over all of a
# binary's launches), then `analyze --placement` for each binary. Raw files in $OUT.
#
# Environment: OPS (allreduce,iallreduce), SIZES (8,64KiB), NREP (200), NOISE_S (2),
# OUT (target/eval/launch-spread-<UTC>), EVAL_DIR (OSU's build dir, target/eval).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
rounds="${1:?rounds}"
bins=("${2:?binary A}")
[ -n "${3:-}" ] && bins+=("$3")
OPS="${OPS:-allreduce,iallreduce}"
SIZES="${SIZES:-8,64KiB}"
NREP="${NREP:-200}"
OUT="${OUT:-$repo/target/eval/launch-spread-$(date -u +%Y%m%dT%H%M%SZ)}"
EVAL_DIR="${EVAL_DIR:-$repo/target/eval}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
. "$here/noise-before.sh"
selfish_build "$OUT"
osu="$(find "$EVAL_DIR" -name osu_allreduce -type f 2>/dev/null | head -1 || true)"
echo "launch-spread: $rounds rounds of ${#bins[@]} binaries into $OUT" >&2
for r in $(seq 1 "$rounds"); do
    order=("${!bins[@]}")
    # Every other round the other binary goes first.
    if (( r % 2 == 0 )) && (( ${#bins[@]} == 2 )); then order=(1 0); fi
    echo "round $r: noise $(selfish_noise)" | tee -a "$OUT/noise.txt" >&2
    for i in "${order[@]}"; do
        label=$(printf '%s' "ABCDEFGH" | cut -c$((i + 1)))
        mpirun -np 2 "${bins[$i]}" -q --ops "$OPS" --sizes "$SIZES" --procs 2 \
            --delay-rank 0 --delay 50us --nrep "$NREP" --rotate 0 \
            --output "$OUT/$label-$r.cbor" --tag "launch=$r" --tag "binary=$label" \
            --no-figures --no-summary >/dev/null 2>>"$OUT/stderr.txt" || true
    done
    if [ -n "$osu" ]; then
        mpirun -np 2 "$osu" -m 65536:65536 -i 2000 2>/dev/null |
            awk -v r="$r" '$1 == 65536 { print "round " r ": osu_allreduce 64KiB " $2 " us" }' |
            tee -a "$OUT/osu.txt" >&2
    fi
done
for i in "${!bins[@]}"; do
    label=$(printf '%s' "ABCDEFGH" | cut -c$((i + 1)))
    files=("$OUT/$label"-*.cbor)
    echo "== binary $label: ${bins[$i]} (${#files[@]} launches)"
    for f in "${files[@]}"; do
        "${bins[$i]}" analyze --format csv "$f" 2>/dev/null |
            python3 -c '
import csv, sys
for row in csv.DictReader(sys.stdin):
    print(sys.argv[1], row["op"], row["bytes"], row["delay_model"],
          row["t0_median_s"], row["t_global_median_s"], row["benefit_median"], sep="\t")
' "$(basename "$f" .cbor)"
    done > "$OUT/$label-launches.tsv"
    python3 - "$OUT/$label-launches.tsv" <<'EOF'
import collections, statistics, sys
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    launch, op, size, delay, t0, tg, b = line.rstrip("\n").split("\t")
    if delay != "0" and t0:
        by[(op, int(size))].append((launch, float(t0) * 1e6, float(tg) * 1e6))
print("op          size  launches  t0 medians (us)                          t0 max/min  tdelta medians (us)")
for (op, size), rows in sorted(by.items()):
    t0 = [r[1] for r in rows]
    td = [r[2] for r in rows]
    print(f"{op:<11} {size:>5}  {len(rows):>8}  {' '.join(f'{x:6.1f}' for x in t0):<40} "
          f"{max(t0) / min(t0):10.2f}  {' '.join(f'{x:6.1f}' for x in td)}")
EOF
    "${bins[$i]}" analyze "${files[@]}" 2>/dev/null | tail -n +1 > "$OUT/$label-analyze.txt" || true
    "${bins[$i]}" analyze --placement "${files[@]}" > "$OUT/$label-placement.txt" 2>/dev/null || true
    echo "   verdicts over the launches: $OUT/$label-analyze.txt; placements: $OUT/$label-placement.txt"
done
