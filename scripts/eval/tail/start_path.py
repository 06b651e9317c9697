#!/usr/bin/env python3
"""Which term of the true start spread grows with the window (docs/accuracy.md): for every
delaybench run of a rounds.sh output directory that was run with `--start-path` (DB_EXTRA),
per valid repetition of the undelayed block, beside the truth log's entry spread:

  release (post-hoc)  the spread of the recorded releases on the post-hoc global clock
                      (what the end-of-run line used to report)
  release error       the spread over ranks of (online − post-hoc global time) at the
                      release: how far the clock model the rank waited on was off
  path                the largest release-to-entry path of the repetition (counter stamps)
  entry (global)      the spread of release + path on the post-hoc global clock
  entry (counter)     the spread of the entry stamps on the shared time-stamp counter (one
                      host only): no clock model at all
  after the stamp     (one host only) the spread over ranks of (truth log's entry − entry
                      stamp): what the call's first instructions (the PLT, the library's and
                      the truth log's own entry and clock read) add after delaybench's last
                      stamp, which no figure of delaybench can see
  preempted / stolen  the share of repetitions in which a rank waited on a run queue or lost
                      steal time since the previous one, and the true p95 among them

    python3 scripts/eval/tail/start_path.py OUTDIR

Needs cbor2 and numpy (scripts/read_records.py).
"""
import glob
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", ".."))
import summary  # noqa: E402
from read_records import read_records  # noqa: E402


def q(xs, p):
    xs = np.asarray([x for x in xs if np.isfinite(x)])
    return float(np.percentile(xs, p)) if xs.size else float("nan")


def spread(m):
    """Per row of a [reps][ranks] array: max − min."""
    return m.max(axis=1) - m.min(axis=1)


def run(d, tool):
    logs = summary.read_truth(d)
    if len(logs) < 2 or not os.path.exists(os.path.join(d, "records.cbor")):
        return None
    idx, valid, _, _ = summary.measured(d, tool, logs)
    _, blocks, _, _ = read_records(os.path.join(d, "records.cbor"), "posthoc")
    _, online, _, _ = read_records(os.path.join(d, "records.cbor"), "online")
    k = [i for i, b in enumerate(blocks) if b["delay_model"] == "0"]
    if not k or not blocks[k[0]].get("start_path"):
        return None
    b, bo = blocks[k[0]], online[k[0]]
    sp = b["start_path"]
    ok = np.array([v is True for v in valid])
    truth = np.array([(max(logs[r][i][0] for r in logs) - min(logs[r][i][0] for r in logs)) / 1e3
                      for i in idx])[ok]
    delay = b["applied_delay_s"]
    hz = np.asarray(sp["tsc_hz"], dtype=float)
    path = (sp["entry_cycles"] - sp["release_cycles"]) / hz
    g = b["t_start_global_s"] - delay
    base = np.asarray(sp["tsc_base_cycles"], dtype=np.float64)
    counter = ((base - base.min()) + sp["entry_cycles"]) / hz[0] - delay
    rel_err = bo["t_start_global_s"] - b["t_start_global_s"]
    # The truth log's entry (ns, CLOCK_MONOTONIC) per valid repetition and rank, against the
    # counter's entry: their difference per rank is one constant plus what runs after the
    # stamp; its spread over ranks drops the constant.
    ranks = sorted(logs)
    truth_entry = np.array([[logs[r][i][0] / 1e9 for r in ranks] for i in idx])
    after = spread(truth_entry - counter)[ok] * 1e6 if b.get("hosts") == 1 else None
    row = {
        "truth": truth,
        "release": spread(g)[ok] * 1e6,
        "release error": spread(rel_err)[ok] * 1e6,
        "path": path.max(axis=1)[ok] * 1e6,
        "entry (global)": spread(g + path)[ok] * 1e6,
        "entry (counter)": (spread(counter)[ok] * 1e6 if b.get("hosts") == 1 else None),
        "after the stamp": after,
        "migrated": float(np.mean((sp["release_cpu"] != sp["entry_cpu"]).any(axis=1)[ok])),
    }
    for name, key in (("preempted", "run_delay_s"), ("stolen", "steal_s")):
        a = sp.get(key)
        if a is not None and a.size:
            hit = (a > 0).any(axis=1)[ok]
            row[name] = (float(hit.mean()), q(truth[hit], 95) if hit.any() else float("nan"),
                         q(truth[~hit], 95) if (~hit).any() else float("nan"))
    return row


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = sys.argv[1]
    terms = ["truth", "release", "release error", "path", "entry (global)", "entry (counter)",
             "after the stamp"]
    print("| round | length | tool | valid reps | " + " | ".join(terms) +
          " | migrated | preempted: share, true p95 with / without | stolen: share, true p95 "
          "with / without |")
    print("|---|---|---|---|" + "---|" * len(terms) + "---|---|---|")
    for d in sorted(glob.glob(os.path.join(out, "r*", "len*", "db*"))):
        tool = os.path.basename(d)
        length = os.path.basename(os.path.dirname(d))[3:]
        rnd = os.path.basename(os.path.dirname(os.path.dirname(d)))[1:]
        try:
            r = run(d, tool)
        except (OSError, KeyError, ValueError) as e:
            print(f"<!-- {d}: {e} -->")
            continue
        if r is None:
            print(f"<!-- {d}: no truth logs or no start-path stamps -->")
            continue
        cells = []
        for t in terms:
            v = r[t]
            cells.append("-" if v is None else f"{q(v, 50):.2f} / {q(v, 95):.2f}")
        extra = []
        for name in ("preempted", "stolen"):
            if name in r:
                share, w, wo = r[name]
                extra.append(f"{100 * share:.1f} %, {w:.2f} / {wo:.2f}")
            else:
                extra.append("-")
        print(f"| {rnd} | {length} s | {tool} | {len(r['truth'])} | " + " | ".join(cells) +
              f" | {100 * r['migrated']:.1f} % | " + " | ".join(extra) + " |")
    print("\n(µs, median / p95 over the valid repetitions of the undelayed block)")


if __name__ == "__main__":
    main()
