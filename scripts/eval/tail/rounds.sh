#!/usr/bin/env bash
# Accuracy evaluation (docs/accuracy.md): the TRUE start spread of a window-synchronised
# alltoall (8 B, P = 2, 1 ms windows), measured outside the benchmarks by a PMPI truth log
# (truth.c) while an LD_PRELOAD shim (skew.c) sets rank 1's clock 1.5 ms ahead and 20 ppm
# fast. Interleaved rounds: in each round, each run length, each tool once, in turn:
#   db-treefit db-hca db-jk   delaybench --clock-sync treefit|hca|jk (also db-hca3, db-offset, ...)
#   rm-hca3 rm-jk             ReproMPI (Hunold and Carpen-Amarie 2016) with mpi-time-sync's
#                             HCA3 or JK (also rm-none: no clock sync, to see the skew)
#   floor@WINDOW              the machine's floor (floor.c): ranks spin to one deadline on the
#                             shared time-stamp counter, no clock sync; summary.py gives every
#                             cell as a ratio to the floor at the same window in the same round
# Run by hand, not by the tests. Raw truth logs and records stay in the output directory;
# summary.py turns them into the Markdown table (printed at the end).
#
#   scripts/eval/tail/rounds.sh [-l "1 10 60"] [-r ROUNDS] [-m one|cluster] [-b DELAYBENCH]
#                               [-B DELAYBENCH_B] [-o OUTDIR] [-t "TOOLS"] [-n NOISE_S]
#     -l  run lengths in seconds (nrep = length x 1000)          default "1 10 60"
#     -r  rounds                                                 default 5
#     -m  one: mpirun -np 2 on this host (truth clock CLOCK_MONOTONIC);
#         cluster: 2 emulated hosts, 1 core each (scripts/cluster.sh; truth clock
#         CLOCK_REALTIME, which time namespaces leave alone)     default one
#     -b  delaybench binary                  default target/release/delaybench of this repo
#     -B  a second delaybench binary, run by the tools dbB-treefit, dbB-hca, ... in the
#         same rounds: an A/B comparison of two builds under the same noise
#     -o  output directory                   default results/accuracy-<UTC time>
#     -t  tools                              default "db-treefit db-hca db-jk rm-hca3 rm-jk"
#         db-METHOD@WINDOW (db-treefit@10ms, db-hca3@auto) sets delaybench's window (default
#         1ms) and nrep = length / window (auto: length x AUTO_REPS_PER_S, default 20000);
#         +notrack (drift tracking off) and +nodelay (undelayed block only) may follow
#     -n  seconds of the selfish-detour noise probe (scripts/eval/selfish.c) before the
#         rounds and after each round; 0: none                   default 5
# Environment: SKEW_RANKS (default 1), SKEW_OFFSET_S (1.5e-3), SKEW_PPM (20);
#   RM_HCA3_PARAMS / RM_JK_PARAMS: MPITS_PARAMS for ReproMPI (default: mpi-time-sync's own
#   defaults for HCA3 / JK); WARMUP (delaybench --warmup, default 20); DB_EXTRA (more
#   delaybench flags, e.g. "--delay none" to measure only the undelayed block that summary.py
#   uses); RM_WINDOW_US (ReproMPI's window, default 1000); RM_VERBOSE=1 (ReproMPI -v:
#   per-rank times for summary.py --check; its validity is then known for the first 3000
#   repetitions only); TIMEOUT_S per run (default 300 + 6 x length). SKEW_RANKS= (empty)
#   runs without skew.
# Wrap it as the machine's rules ask, e.g. `flock -x /tmp/quiet.lock scripts/eval/tail/rounds.sh`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
lengths="1 10 60" rounds=5 mode=one exe="" exe_b="" out="" tools="db-treefit db-hca db-jk rm-hca3 rm-jk" noise_s=5
while getopts "l:r:m:b:B:o:t:n:" opt; do
    case "$opt" in
        l) lengths="$OPTARG" ;; r) rounds="$OPTARG" ;; m) mode="$OPTARG" ;;
        b) exe="$OPTARG" ;; B) exe_b="$OPTARG" ;; o) out="$OPTARG" ;; t) tools="$OPTARG" ;; n) noise_s="$OPTARG" ;;
        *) sed -n 2,35p "$0" >&2; exit 2 ;;
    esac
done
case "$mode" in one | cluster) ;; *) echo "rounds: -m one|cluster" >&2; exit 2 ;; esac

cd "$repo"
. scripts/setup.sh
say() { echo "rounds: $*" >&2; } # after setup.sh, which has its own
exe="${exe:-${CARGO_TARGET_DIR:-target}/release/delaybench}"
exe="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"
[ -x "$exe" ] || { say "no delaybench at $exe (cargo build --release first, or -b)"; exit 1; }
if [[ " $tools " == *" dbB-"* ]]; then
    [ -x "$exe_b" ] || { say "tools dbB-* need a second delaybench binary: -B PATH"; exit 1; }
    exe_b="$(cd "$(dirname "$exe_b")" && pwd)/$(basename "$exe_b")"
fi
out="${out:-results/accuracy-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The shims and the noise probe, built into the output directory (what was run stays there).
cc -O2 -shared -fPIC -o "$out/libskew.so" "$here/skew.c" -ldl
"${MPICC:-mpicc}" -O2 -shared -fPIC -o "$out/libtruth.so" "$here/truth.c" -ldl
cc -O2 -pthread -o "$out/selfish" "$repo/scripts/eval/selfish.c" -lm
"${MPICC:-mpicc}" -O2 -o "$out/floor" "$here/floor.c"
reprompi=""
if [[ " $tools " == *" rm-"* ]]; then
    reprompi="$(MPICC="${MPICC:-mpicc}" "$here/build_reprompi.sh")"
fi

truth_clock=monotonic
if [ "$mode" = cluster ]; then
    truth_clock=realtime
    # The emulated cluster has fixed names machine-wide: hold the lock the tests take
    # (tests/common/mod.rs) so that no test run tears it down under the rounds.
    exec 9>/tmp/delaybench-cluster.lock
    flock -x 9
    scripts/cluster.sh up -H 2 -c 1 >/dev/null
    trap 'scripts/cluster.sh down' EXIT
fi

# Every rank starts through this wrapper, which preloads the shims with the run's settings
# (an env file beside the run), so nothing depends on the launcher passing variables on.
cat >"$out/launch.sh" <<EOF
#!/bin/sh
# launch.sh ENVFILE EXE ARGS...: a rank with the skew shim and the truth log preloaded.
set -a; . "\$1"; set +a; shift
export LD_PRELOAD="$out/libskew.so:$out/libtruth.so\${LD_PRELOAD:+:\$LD_PRELOAD}"
exec "\$@"
EOF
chmod +x "$out/launch.sh"

{
    echo "mode=$mode lengths=\"$lengths\" rounds=$rounds tools=\"$tools\""
    echo "skew: ranks ${SKEW_RANKS-1} offset ${SKEW_OFFSET_S:-1.5e-3} s rate ${SKEW_PPM:-20} ppm; truth clock $truth_clock"
    echo "delaybench: $exe ($("$exe" --version 2>/dev/null | head -n1))"
    [ -z "$exe_b" ] || echo "delaybench B: $exe_b ($("$exe_b" --version 2>/dev/null | head -n1))"
    echo "reprompi: ${reprompi:-none}"
    echo "host: $(uname -n) $(nproc) cpus; $(date -u +%FT%TZ)"
} >"$out/meta.txt"

if [ "$mode" = cluster ]; then
    launcher=(scripts/cluster.sh run -n 1 --mpi "$DELAYBENCH_MPI_FLAVOR" --)
elif [ "$DELAYBENCH_MPI_FLAVOR" = openmpi ]; then
    launcher=("$DELAYBENCH_MPIEXEC" -np 2 --bind-to core)
else
    launcher=("$DELAYBENCH_MPIEXEC" -n 2)
fi

run_one() { # round length tool
    local round=$1 len=$2 tool=$3 nrep=$(($2 * 1000))
    local d="$out/r$round/len$len/$tool"
    mkdir -p "$d"
    {
        echo "SKEW_RANKS=${SKEW_RANKS-1}"
        echo "SKEW_OFFSET_S=${SKEW_OFFSET_S:-1.5e-3}"
        echo "SKEW_PPM=${SKEW_PPM:-20}"
        echo "TRUTH_DIR=$d"
        echo "TRUTH_CLOCK=$truth_clock"
        echo "TRUTH_OPS=alltoall"
    } >"$d/env"
    local cmd bin="$exe"
    [[ "$tool" == dbB-* ]] && bin="$exe_b"
    case "$tool" in
        db-* | dbB-*)
            # db-METHOD[@WINDOW][+notrack][+nodelay]: the window (default 1ms; `auto`, or a
            # duration in us or ms) sets nrep so that the run lasts about LENGTH seconds (auto:
            # AUTO_REPS_PER_S repetitions per second); +notrack turns drift tracking off,
            # +nodelay measures the undelayed block only.
            local spec="${tool#*-}" window=1ms extra=()
            local method="${spec%%[@+]*}"
            [[ "$spec" == *@* ]] && { window="${spec#*@}"; window="${window%%+*}"; }
            [[ "$spec" == *+notrack* ]] && extra+=(--no-tracking)
            [[ "$spec" == *+nodelay* ]] && extra+=(--delay none)
            case "$window" in
                auto) nrep=$((len * ${AUTO_REPS_PER_S:-20000})) ;;
                *ms) nrep=$((len * 1000 / ${window%ms})) ;;
                *us) nrep=$((len * 1000000 / ${window%us})) ;;
                *) say "window $window: auto, or a duration in us or ms"; return 1 ;;
            esac
            # shellcheck disable=SC2206
            cmd=("$bin" --ops alltoall --sizes 8 --procs 2 --nrep "$nrep" --window "$window"
                --warmup "${WARMUP:-20}" --clock-sync "$method" --no-figures
                --output "$d/records.cbor" "${extra[@]}" ${DB_EXTRA:-}) ;;
        floor@*)
            local window="${tool#floor@}" us
            case "$window" in
                *ms) us=$((${window%ms} * 1000)) ;;
                *us) us=${window%us} ;;
                *) say "floor@WINDOW: a duration in us or ms"; return 1 ;;
            esac
            nrep=$((len * 1000000 / us))
            cmd=("$out/floor" "$us" "$nrep" "${WARMUP:-20}") ;;
        rm-*)
            local m="${tool#rm-}" params=""
            case "$m" in
                hca3) params="${RM_HCA3_PARAMS:---clock-sync=HCA3}" ;;
                jk) params="${RM_JK_PARAMS:---clock-sync=JK}" ;;
                none) params="--clock-sync=None" ;;
                *) say "unknown ReproMPI method $m"; return 1 ;;
            esac
            printf "MPITS_PARAMS='%s'\n" "$params" >>"$d/env"
            cmd=("$reprompi" --calls-list=MPI_Alltoall --msizes-list=8 --nrep="$nrep"
                --proc-sync=window --window-size="${RM_WINDOW_US:-1000}")
            # -v: every rank's local and global times (for summary.py --check), but this
            # version's -v error codes and global times are wrong past repetition 3000.
            [ "${RM_VERBOSE:-0}" = 1 ] && cmd+=(-v) ;;
        *) say "unknown tool $tool"; return 1 ;;
    esac
    printf '%q ' "${cmd[@]}" >"$d/cmd"
    local t0 rc=0
    t0=$(date +%s.%N)
    timeout -k 10 "${TIMEOUT_S:-$((300 + 6 * len))}" \
        "${launcher[@]}" "$out/launch.sh" "$d/env" "${cmd[@]}" >"$d/stdout" 2>"$d/stderr" || rc=$?
    echo "$rc $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}')" >"$d/exit"
    if [ "$rc" != 0 ]; then say "r$round len$len $tool: exit $rc (see $d/stderr)"; fi
    if [[ "$tool" == db* ]] && [ -s "$d/records.cbor" ]; then
        # Validity as delaybench decides it by default (posthoc global times); the per-rank
        # rows give its own reported start spread for summary.py --check.
        "$bin" export "$d/records.cbor" --rows rep --format csv >"$d/reps.csv" 2>/dev/null || true
        # ... and as the run decided it online (summary.py --online).
        "$bin" export "$d/records.cbor" --rows rep --format csv --global-times online \
            >"$d/reps-online.csv" 2>/dev/null || true
        "$bin" export "$d/records.cbor" --format csv >"$d/ranks.csv" 2>/dev/null || true
    fi
    say "r$round len$len $tool: done ($(cut -d' ' -f2 "$d/exit" | cut -c1-5) s)"
}

noise() { # label
    [ "$noise_s" != 0 ] || return 0
    "$out/selfish" "$noise_s" 2 >"$out/noise-$1.txt" 2>&1 || true
}

noise before
for round in $(seq 1 "$rounds"); do
    for len in $lengths; do
        for tool in $tools; do run_one "$round" "$len" "$tool"; done
    done
    noise "after-r$round"
done
python3 "$here/summary.py" "$out" | tee "$out/summary.md"
