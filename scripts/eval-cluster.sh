#!/usr/bin/env bash
# Multi-host evaluation on the emulated cluster (scripts/cluster.sh, root): 2 hosts, 1 core
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
for per_host in ${PER_HOST:-1 2}; do
    f="$out/run$per_host.cbor"
    # MPICH/UCX over TCP can hang in MPI_Finalize with two ranks per core (docs/launching.md):
    # the records are complete by then, so a timeout only ends the hang.
    timeout -k 10 600 scripts/cluster.sh run -n "$per_host" --mpi "$DELAYBENCH_MPI_FLAVOR" -- "$exe" \
        --ops allreduce,ialltoall,bcast --sizes 8,64KiB --nrep 200 --subcomm spread \
        --output "$f" --no-figures >"$out/stdout" 2>"$out/stderr" ||
        echo "(launcher exit $?: see the MPICH finalize note)" >&2
    "$exe" export "$f" --rows rep --format csv 2>/dev/null >"$out/reps.csv"
    python3 - "$f" "$out/reps.csv" "$per_host" "$DELAYBENCH_MPI_FLAVOR" <<'PY'
import csv, sys
sys.path.insert(0, "scripts")
from read_records import read_records  # needs cbor2 numpy (crc32c optional)
f, reps, per_host, flavor = sys.argv[1:]
rows = list(csv.DictReader(open(reps)))
valid = sum(r["valid"] == "true" for r in rows)
header, blocks, footer = read_records(f)
cs = header["clock_sync"]
per = int(per_host)
print(f"{flavor}, {per} rank(s) per host: valid {valid}/{len(rows)} "
      f"({100 * valid / max(len(rows), 1):.1f} %), sync {cs['method']} {cs['duration_s'] * 1e3:.1f} ms")
for rank, m in enumerate(cs["models"]):
    truth = 1000.0 * (rank // per)
    verdict = cs["shared"][rank]["verdict"] if cs.get("shared") else "-"
    print(f"  rank {rank} (host {rank // per}, {verdict}): offset {m['intercept_s']:+.9f} s, "
          f"error {(m['intercept_s'] - truth) * 1e6:+.3f} us")
PY
done
