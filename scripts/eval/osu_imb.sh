#!/usr/bin/env bash
# Side by side: OSU 7.4 and IMB 2021.9.1 against delaybench's columns named after them.
# Run by hand (never by the tests); on a quiet machine for numbers worth quoting.
#
#   scripts/eval/osu_imb.sh [ROUNDS]          (default 1; the lead runs 5 on a quiet machine)
#
# Each round, for P = 2 and 4 (PROCS), runs in turn (order reversed every other round):
#   - osu_iallreduce, osu_ialltoall, osu_ibcast at 8 B and 64 KiB (-T mpi_float), and
#     osu_allreduce (blocking);
#   - IMB-NBC Iallreduce Ialltoall Ibcast and IMB-MPI1 Allreduce at the same sizes
#     (IMB-NBC reduces floats; it has no option for another type);
#   - delaybench --overlap time-own (each rank computes for its own mean pure time, as OSU
#     and IMB do) at the same ops and sizes (its δ = 0 blocks; delaybench reduces f64), then
#     `analyze --overlap` for its OSU and IMB columns. It starts each
#     repetition after an MPI_Barrier (--sync barrier; SYNC overrides), as OSU and IMB separate
#     theirs: window starts spread a run over many more scheduler slices, and on a loaded
#     machine the means over all repetitions that OSU and IMB take then catch far more
#     descheduling than the tools' own short loops do;
#   - delaybench schemes --ops allreduce (osu-7.4-avg, imb-2021-tavg, barrier-max,
#     pipelined-imb-pre2018, ...);
#   - the machine's noise: a selfish-detour loop on every core (scripts/eval/selfish.c).
# Raw outputs go to $OUT (default target/eval/rounds-<UTC>); scripts/eval/osu_imb_summary.py
# turns them into results.tsv and summary.md (medians over rounds, differences, flags).
#
# Environment: EVAL_DIR (tools' build dir), DELAYBENCH (binary; default target/release,
# built if missing), PROCS ("2 4"), NREP and NREP_LARGE (delaybench repetitions up to 8 KiB
# and above, OSU's 1000 and 100), NOISE_S (2),
# SYNC (delaybench's --sync for the overlap run, barrier).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
rounds="${1:-1}"
PROCS="${PROCS:-2 4}"
NREP="${NREP:-1000}"
NREP_LARGE="${NREP_LARGE:-100}"
NOISE_S="${NOISE_S:-2}"
SYNC="${SYNC:-barrier}"
OUT="${OUT:-$repo/target/eval/rounds-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"

# shellcheck source=/dev/null
. "$repo/scripts/setup.sh" >/dev/null
launcher="${DELAYBENCH_MPIEXEC:-mpirun}"
eval "$("$here/build_osu_imb.sh" | sed 's/^/export /')"   # sets OSU and IMB
DELAYBENCH="${DELAYBENCH:-$repo/target/release/delaybench}"
if [ ! -x "$DELAYBENCH" ]; then
    (cd "$repo" && cargo build --release)
fi
selfish="$OUT/selfish"
cc -O2 -pthread -o "$selfish" "$here/selfish.c" -lm
cores="$(nproc)"

{
    echo "date_utc: $(date -u +%FT%TZ)"
    echo "host: $(hostname), cores: $cores"
    echo "mpi: $("$launcher" --version 2>&1 | head -n 1)"
    echo "delaybench: $("$DELAYBENCH" --version 2>&1 | head -n 1) ($(cd "$repo" && git rev-parse --short HEAD))"
    echo "osu: $OSU"
    echo "imb: $IMB"
    echo "rounds: $rounds, procs: $PROCS, nrep: $NREP (above 8 KiB: $NREP_LARGE), delaybench --sync $SYNC"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/meta.txt"

printf '8\n65536\n' > "$OUT/msglen"

# One launch; a failure (e.g. delaybench's exit 4 when a block kept no valid repetition on
# a loaded machine) is noted in its output and the round goes on.
try() { "$@" || echo "eval: exit status $? from: $*" >&2; }

run_osu() { # round P
    local r=$1 p=$2 op size
    for op in iallreduce ialltoall ibcast; do
        for size in 8 65536; do
            try "$launcher" -np "$p" "$OSU/non_blocking/osu_$op" -m "$size:$size" -T mpi_float \
                > "$OUT/r$r-p$p-osu-$op-$size.txt" 2>&1
        done
    done
    for size in 8 65536; do
        try "$launcher" -np "$p" "$OSU/blocking/osu_allreduce" -m "$size:$size" -T mpi_float \
            > "$OUT/r$r-p$p-osu-allreduce-$size.txt" 2>&1
    done
}

run_imb() {
    local r=$1 p=$2
    try "$launcher" -np "$p" "$IMB/IMB-NBC" Iallreduce Ialltoall Ibcast -npmin "$p" \
        -msglen "$OUT/msglen" > "$OUT/r$r-p$p-imb-nbc.txt" 2>&1
    try "$launcher" -np "$p" "$IMB/IMB-MPI1" Allreduce -npmin "$p" -msglen "$OUT/msglen" \
        > "$OUT/r$r-p$p-imb-mpi1.txt" 2>&1
}

run_delaybench() {
    local r=$1 p=$2 size nrep f
    # One launch per size, with OSU's repetition counts (1000 up to 8 KiB, 100 above): the
    # means OSU and IMB take catch descheduling in proportion to how long a loop runs.
    for size in 8 65536; do
        nrep=$NREP
        [ "$size" -gt 8192 ] && nrep=$NREP_LARGE
        f="$OUT/r$r-p$p-delaybench-$size.cbor"
        # A delay is required; only the undelayed blocks (δ = 0) enter the comparison.
        try "$launcher" -np "$p" "$DELAYBENCH" --ops iallreduce,ialltoall,ibcast --sizes "$size" \
            --procs "$p" --delay 50us --overlap time-own --sync "$SYNC" --nrep "$nrep" \
            --output "$f" --figures "$OUT/figures-r$r-p$p-$size" -q \
            > "$OUT/r$r-p$p-delaybench-run-$size.txt" 2>&1
        try "$DELAYBENCH" analyze "$f" --overlap --format csv \
            > "$OUT/r$r-p$p-delaybench-overlap-$size.csv" 2> "$OUT/r$r-p$p-delaybench-analyze-$size.err"
    done
    try "$launcher" -np "$p" "$DELAYBENCH" schemes --ops allreduce --sizes 8,64KiB --procs "$p" \
        --nrep "$NREP" --format csv > "$OUT/r$r-p$p-delaybench-schemes.csv" \
        2> "$OUT/r$r-p$p-delaybench-schemes.err"
}

run_noise() {
    # One thread per core, each pinned to its core (selfish.c), 2 us threshold.
    "$selfish" "$NOISE_S" 2 > "$OUT/r$1-noise.txt"
}

for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds ($(date -u +%T))" >&2
    run_noise "$r"
    for p in $PROCS; do
        if [ $((r % 2)) -eq 1 ]; then
            run_osu "$r" "$p"; run_imb "$r" "$p"; run_delaybench "$r" "$p"
        else
            run_delaybench "$r" "$p"; run_imb "$r" "$p"; run_osu "$r" "$p"
        fi
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/meta.txt"
python3 "$here/osu_imb_summary.py" "$OUT"
echo "raw outputs and summary: $OUT" >&2
