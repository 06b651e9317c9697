#!/usr/bin/env bash
# Issue 7's evaluation on the emulated cluster (scripts/cluster.sh, root): 2 hosts, 1 core
# each, CLOCK_MONOTONIC 1000 s apart; 1 rank per host, then 2 ranks per host. For each, the
# valid/total repetitions, every rank's clock offset found (and its error against the
# 1000 s × host truth) and the sync time. MPI from DELAYBENCH_MPI (openmpi or mpich).
#   [DELAYBENCH_MPI=mpich] scripts/eval-cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
cargo build --release --quiet
exe="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release/delaybench"
out=$(mktemp -d)
scripts/cluster.sh up -H 2 -c 1 >/dev/null
trap 'scripts/cluster.sh down; rm -rf "$out"' EXIT
for per_host in 1 2; do
    f="$out/run$per_host.cbor"
    # MPICH/UCX over TCP can hang in MPI_Finalize with two ranks per core (docs/launching.md):
    # the records are complete by then, so a timeout only ends the hang.
    timeout 300 scripts/cluster.sh run -n "$per_host" --mpi "$DELAYBENCH_MPI_FLAVOR" -- "$exe" \
        --ops allreduce,ialltoall,bcast --sizes 8,64KiB --nrep 200 --subcomm spread \
        --output "$f" --figures "$out/fig" >"$out/stdout" 2>"$out/stderr" ||
        echo "(launcher exit $?: see the MPICH finalize note)" >&2
    "$exe" export "$f" --rows rep --format csv 2>/dev/null >"$out/reps.csv"
    python3 - "$f" "$out/reps.csv" "$out/stderr" "$per_host" "$DELAYBENCH_MPI_FLAVOR" <<'PY'
import csv, re, sys
f, reps, err, per_host, flavor = sys.argv[1:]
rows = list(csv.DictReader(open(reps)))
valid = sum(r["valid"] == "true" for r in rows)
text = open(err).read()
sync = re.search(r"clock sync (\S+) in ([0-9.]+) s \(([^)]*)\), offsets to rank 0: ([^;]*);", text)
print(f"{flavor}, {per_host} rank(s) per host: valid {valid}/{len(rows)} "
      f"({100 * valid / max(len(rows), 1):.1f} %)")
if sync:
    method, secs, shared, offsets = sync.groups()
    print(f"  sync {method} {float(secs) * 1e3:.1f} ms ({shared})")
    offs = [float(o.replace("us", "")) for o in offsets.split()]
    per = int(per_host)
    for rank, o in enumerate(offs):
        truth = 1000e6 * (rank // per)
        print(f"  rank {rank} (host {rank // per}): offset {o:+.2f} us, error {o - truth:+.3f} us")
PY
done
