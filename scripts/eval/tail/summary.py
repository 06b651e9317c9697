#!/usr/bin/env python3
"""Summary of scripts/eval/tail/rounds.sh (docs/accuracy.md): the true start spread of each
run from the truth logs only, per round median and p95, and Markdown tables of the median over
rounds of those, per tool.

    python3 scripts/eval/tail/summary.py OUTDIR [--check] [--epochs]

OUTDIR/r<round>/len<seconds>/<tool>/ holds truth.<rank>.txt (truth.c), and for delaybench
reps.csv (`delaybench export --rows rep`) and ranks.csv (per-rank export), for ReproMPI its
stdout (an errorcode per repetition; with RM_VERBOSE=1, -v: per rank and repetition,
with local and global start times). Which logged calls are the measured
repetitions:
  delaybench  its last N alltoall calls, N = the repetitions in its records (the warm-up
              calls come first); the records' order of blocks and repetitions is the order
              of the calls (blocks run one after the other). Checked: the calls before them
              must be --warmup many. Of those, the undelayed block's (delay_model 0) count:
              a default run also measures a block with a 50 us delayed rank.
  ReproMPI    every call: this version has no warm-up, and its window synchronisation
              never repeats a repetition (a late one is only flagged).
Valid: delaybench's `valid` column, in two tables: as `export --rows rep` decides it by
default (post-hoc global times, reps.csv) and as the run decided it online (reps-online.csv),
which is how ReproMPI decides its flags; ReproMPI's errorcode 0 (on every rank). The truth does not
depend on either: "all" uses every measured call, "valid" only those the tool kept.
--check adds, per run, the spread the tool itself reports (delaybench: max - min of
t_start_global_s; ReproMPI with RM_VERBOSE=1: max - min of gl_tstart_sec) beside the truth,
and how far rank 1's own clock reading before each call (delaybench t_start_local_s,
ReproMPI -v loc_tstart_sec)
is from the truth log's entry time, relative to rank 0's: on one host this is the skew that
skew.c added (e.g. 1500 us growing by 20 us/s), which shows the shim reached the tool; and
for delaybench, on its valid repetitions, how far the true spread exceeds the one it
recorded (p95) and how often its own bound held: true <= recorded + 2 x the median probe
RTT/2 it printed on stderr (its end-of-run start-spread line).
--epochs adds, per delaybench run and per second of it, the median signed offset between
the ranks' true entries and the p95 of the true spread (a clock model error moves the first,
noise the second).
Standard library only.
"""
import csv
import glob
import math
import os
import re
import sys
from statistics import median

TOOL_NAMES = {
    "db-treefit": "delaybench treefit",
    "db-hca": "delaybench hca",
    "db-jk": "delaybench jk",
    "db-hca3": "delaybench hca3",
    # rounds.sh -B: the second build of an A/B comparison
    "dbB-treefit": "delaybench B treefit",
    "dbB-hca": "delaybench B hca",
    "dbB-jk": "delaybench B jk",
    "rm-hca3": "ReproMPI HCA3",
    "rm-jk": "ReproMPI JK",
    "rm-none": "ReproMPI no sync",
    "floor@1ms": "floor 1 ms",
    "floor@10ms": "floor 10 ms",
    "floor@20us": "floor 20 µs",
}


def window_of(tool):
    """The window a tool ran with: "1ms" by default, "auto", or what follows '@'."""
    if "@" not in tool:
        return "1ms"
    return tool.split("@", 1)[1].split("+", 1)[0]


def p95(xs):
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)] if s else float("nan")


def med(xs):
    return median(xs) if xs else float("nan")


def read_truth(d):
    """{rank: [(entry_ns, exit_ns), ...]} of the logged alltoall calls."""
    logs = {}
    for path in glob.glob(os.path.join(d, "truth.*.txt")):
        rank = int(path.rsplit(".", 2)[1])
        calls = []
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                op, a, b = line.split()
                if op == "alltoall":
                    calls.append((int(a), int(b)))
        logs[rank] = calls
    return logs


def warmup_of(d):
    try:
        cmd = open(os.path.join(d, "cmd")).read().split()
        return int(cmd[cmd.index("--warmup") + 1])
    except (OSError, ValueError, IndexError):
        return None


def measured(d, tool, logs, reps_file="reps.csv"):
    """(list of call indices, list of valid flags, list of reported spreads or None, note)."""
    n_calls = min(len(c) for c in logs.values())
    note = []
    if len({len(c) for c in logs.values()}) > 1:
        note.append("ranks logged different call counts " + str(sorted(len(c) for c in logs.values())))
    if tool.startswith("floor"):
        # floor.c: WARMUP calls after a barrier each, then NREP measured ones, all kept.
        cmd = open(os.path.join(d, "cmd")).read().split()
        n = min(int(cmd[2]), n_calls)
        return list(range(n_calls - n, n_calls)), [True] * n, None, note
    if tool.startswith("db"):
        rows = list(csv.DictReader(open(os.path.join(d, reps_file))))
        n = len(rows)
        first = n_calls - n
        w = warmup_of(d)
        if w is not None and first != w:
            note.append(f"{first} calls before the measured ones, --warmup {w}")
        # The measured block: the undelayed one (delaybench's default run also measures a
        # block with a delayed rank, whose start spread is the delay on purpose).
        base = [i for i, r in enumerate(rows) if r["delay_model"] == "0"]
        valid = [rows[i]["valid"] == "true" for i in base]
        reported = None
        ranks_csv = os.path.join(d, "ranks.csv")
        if os.path.exists(ranks_csv):
            starts, local = {}, {}
            for r in csv.DictReader(open(ranks_csv)):
                key = (r["delay_model"], r["algorithm"], int(r["rep"]))
                starts.setdefault(key, []).append(float(r["t_start_global_s"]))
                local.setdefault(key, {})[int(r["rank"])] = float(r["t_start_local_s"])
            keys = [(rows[i]["delay_model"], rows[i]["algorithm"], int(rows[i]["rep"])) for i in base]
            reported = [(max(starts[k]) - min(starts[k])) * 1e6 for k in keys]
            LOCAL[d] = [local[k] for k in keys]
        return [first + i for i in base], valid, reported, note
    # ReproMPI's stdout. Default: a header "test nrep count errorcode runtime_sec", then one
    # line per repetition; the errorcode is already the largest over the ranks. With -v
    # (RM_VERBOSE=1): a header "process test nrep count [errorcode] loc_tstart_sec
    # loc_tend_sec [gl_tstart_sec gl_tend_sec]", then one line per rank and repetition. This
    # version prints -v in chunks of 3000 repetitions and gathers the error codes and
    # converts the global times of the first chunk only (results_output.c indexes them from
    # 0 in every chunk): from repetition 3000 on, -v's error codes and global times are
    # wrong, so they are not used there (the local times are right throughout).
    chunk = 3000
    err, glstart, cols, verbose = {}, {}, None, False
    try:
        for line in open(os.path.join(d, "stdout")):
            f = line.split()
            if f[:2] in (["process", "test"], ["test", "nrep"]):
                verbose = f[0] == "process"
                cols = {name: k for k, name in enumerate(f)}
                continue
            if not cols or len(f) < 4:
                continue
            if verbose and "errorcode" in cols and len(f) == len(cols) - 1:
                # Without a clock sync this version's -v header names an errorcode column
                # that its lines do not have.
                names = [n for n in sorted(cols, key=cols.get) if n != "errorcode"]
                cols = {name: k for k, name in enumerate(names)}
            if len(f) != len(cols):
                continue
            if verbose and f[0].isdigit() and f[1].startswith("MPI_"):
                key, rank = int(f[cols["nrep"]]), int(f[0])
                if "errorcode" in cols and key < chunk:
                    err.setdefault(key, []).append(int(f[cols["errorcode"]]))
                if "gl_tstart_sec" in cols and key < chunk:
                    glstart.setdefault(key, []).append(float(f[cols["gl_tstart_sec"]]))
                LOCAL.setdefault(d, {}).setdefault(key, {})[rank] = float(f[cols["loc_tstart_sec"]])
            elif not verbose and f[0].startswith("MPI_"):
                key = int(f[cols["nrep"]])
                if "errorcode" in cols:
                    err.setdefault(key, []).append(int(f[cols["errorcode"]]))
    except OSError:
        pass
    printed = len(LOCAL.get(d, {})) if verbose else len(err)
    if printed and printed != n_calls:
        note.append(f"ReproMPI printed {printed} repetitions, {n_calls} calls logged")
    if err:
        # None: not known (ReproMPI -v past its first chunk); left out of the valid figures.
        valid = [None if i not in err else all(e == 0 for e in err[i]) for i in range(n_calls)]
        if verbose and n_calls > chunk:
            note.append(f"ReproMPI -v: validity known for the first {chunk} of {n_calls} repetitions only")
    else:  # no errorcodes printed (ReproMPI -v without a clock sync)
        valid = [True] * n_calls
        note.append("ReproMPI printed no errorcodes: all repetitions count as valid")
    reported = [(max(glstart[i]) - min(glstart[i])) * 1e6 if i in glstart else float("nan")
                for i in range(n_calls)]
    if not glstart:
        reported = None
    if d in LOCAL:
        LOCAL[d] = [LOCAL[d].get(i, {}) for i in range(n_calls)]
    return list(range(n_calls)), valid, reported, note


# Per run directory: per measured repetition, {rank: the tool's own local clock reading
# just before the call (s)}, to compare with the truth log's entry time.
LOCAL = {}


def clock_vs_truth(d, idx, logs):
    """Per rank > 0: median and first/last of (tool clock - truth) minus rank 0's, in us.
    With the truth on the same clock id as the tool (one host, CLOCK_MONOTONIC), rank 1's
    value is what skew.c added: the offset plus the drift since the shim was loaded."""
    rows = LOCAL.get(d)
    if not rows or 0 not in logs:
        return None
    out = {}
    for r in sorted(logs):
        if r == 0:
            continue
        diff = [((loc[r] - logs[r][i][0] * 1e-9) - (loc[0] - logs[0][i][0] * 1e-9)) * 1e6
                for loc, i in zip(rows, idx) if r in loc and 0 in loc]
        if diff:
            out[r] = (med(diff), diff[0], diff[-1])
    return out


def line_figures(d):
    """(median, p95) in us of the spread delaybench's end-of-run line leads with (at the
    entry into MPI, or by the recorded starts in older builds), or None."""
    try:
        text = open(os.path.join(d, "stderr")).read()
    except OSError:
        return None
    m = re.search(r"at the entry into MPI, [^;]*?: median ([0-9.]+) us, p95 ([0-9.]+) us", text)
    m = m or re.search(r"by their recorded starts: median ([0-9.]+) us, p95 ([0-9.]+) us", text)
    return (float(m.group(1)), float(m.group(2))) if m else None


def half_rtt_us(d):
    """The median probe RTT/2 (us) delaybench printed on stderr for its post-hoc global
    times, or None (ReproMPI, or a run without probes)."""
    try:
        text = open(os.path.join(d, "stderr")).read()
    except OSError:
        return None
    m = re.search(r"within RTT/2, median ([0-9.]+) us", text)
    return float(m.group(1)) if m else None


def run_stats(d, tool, reps_file="reps.csv"):
    logs = read_truth(d)
    if len(logs) < 2:
        return None
    idx, valid, reported, note = measured(d, tool, logs, reps_file)
    spread = [(max(logs[r][i][0] for r in logs) - min(logs[r][i][0] for r in logs)) / 1e3
              for i in idx]
    ok = [s for s, v in zip(spread, valid) if v is True]
    # Which rank starts first, on valid repetitions: rank 1's entry minus rank 0's (a
    # systematic sign is a bias of the global clock, not noise).
    signed = [(logs[1][i][0] - logs[0][i][0]) / 1e3 for i, v in zip(idx, valid)
              if v is True and 1 in logs and 0 in logs]
    st = {
        "n": len(spread),
        "median": med(spread), "p95": p95(spread),
        "valid_frac": (sum(v is True for v in valid) / sum(v is not None for v in valid)
                       if any(v is not None for v in valid) else float("nan")),
        "v_median": med(ok), "v_p95": p95(ok),
        "v_signed": med(signed),
        "note": note,
    }
    if reported is not None:
        # Per repetition, |reported - true| where the tool reported one.
        diff = [abs(a - b) for a, b in zip(reported, spread) if not math.isnan(a)]
        shown = [a for a in reported if not math.isnan(a)]
        st["rep_median"] = med(shown)
        st["rep_p95"] = p95(shown)
        st["absdiff_median"] = med(diff)
        # The tool's own bound (delaybench's end-of-run start-spread line): the true spread
        # exceeds the recorded one by at most 2 x the probes' median RTT/2. How often does
        # it hold on the valid repetitions, and by how much does the truth exceed the record?
        h = half_rtt_us(d)
        pairs = [(t, r) for t, r, v in zip(spread, reported, valid)
                 if v is True and not math.isnan(r)]
        if h is not None and pairs:
            st["bound_us"] = 2 * h
            st["bounded"] = sum(t <= r + 2 * h for t, r in pairs) / len(pairs)
            st["excess_p95"] = p95([t - r for t, r in pairs])
    st["clock"] = clock_vs_truth(d, idx, logs)
    st["line"] = line_figures(d) if tool.startswith("db") else None
    return st


def epochs(d, tool, bin_s=1.0):
    """Per bin of `bin_s` seconds of run time (from the first measured call's entry on rank
    0), over the valid repetitions: (bin start s, reps, median of rank 1 − rank 0 entry µs,
    p95 of the true spread µs). An error of the clock model shows as a median that moves
    from one drift-tracking probe to the next; noise as a p95 that moves alone."""
    logs = read_truth(d)
    if 0 not in logs or 1 not in logs:
        return []
    idx, valid, _, _ = measured(d, tool, logs)
    t0 = logs[0][idx[0]][0] if idx else 0
    bins = {}
    for i, v in zip(idx, valid):
        if v is not True:
            continue
        b = int((logs[0][i][0] - t0) / 1e9 / bin_s)
        signed = (logs[1][i][0] - logs[0][i][0]) / 1e3
        bins.setdefault(b, []).append(signed)
    return [(b * bin_s, len(xs), med(xs), p95([abs(x) for x in xs]))
            for b, xs in sorted(bins.items())]


def fmt(a, b):
    if math.isnan(a):
        return "-"
    return f"{a:.1f} / {b:.1f}" if max(a, b) >= 10 else f"{a:.2f} / {b:.2f}"


def noise_lines(out):
    lines = []
    for path in sorted(glob.glob(os.path.join(out, "noise-*.txt")),
                       key=lambda p: (("before" not in p), os.path.getmtime(p))):
        rows = []
        for line in open(path):
            f = line.split()
            if len(f) == 8 and f[0].isdigit():
                rows.append([float(x) for x in f])
        if rows:
            label = os.path.basename(path)[6:-4]
            per_s = sum(r[2] for r in rows) / len(rows)
            lost = sum(r[3] for r in rows) / len(rows)
            longest = max(r[4] for r in rows)
            lines.append(f"| {label} | {per_s:.0f} | {lost:.2f} | {longest:.0f} |")
    return lines


def floor_for(tool, floors):
    """The floor run a tool is held to: the one at the tool's window; for the automatic
    window (a few tens of µs, chosen by the run) the one floor at a µs window, if there is
    exactly one (rounds.sh runs `floor@20us` beside `db-treefit@auto`)."""
    exact = "floor@" + window_of(tool)
    if exact in floors or window_of(tool) != "auto":
        return exact
    short = [f for f in floors if window_of(f).endswith("us")]
    return short[0] if len(short) == 1 else exact


def floor_ratios(runs, lengths, order, mode):
    """Every non-floor cell as a ratio to the floor at the same window in the same round:
    valid p95 / floor p95 and valid median − floor median (µs), median over rounds and the
    worst round. The target: p95 ≤ 1.5 × the floor's + 0.1 µs, median ≤ the floor's + 0.1 µs."""
    floors = {t for t in order if t.startswith("floor@")}
    if not floors:
        return
    print("**Against the floor of the same round** (valid p95 / floor p95, and valid median − "
          "floor median in µs; median over rounds, worst round in brackets; ✓ when every round "
          "has p95 ≤ 1.5 × floor + 0.1 µs and median ≤ floor + 0.1 µs)\n")
    cols = [t for t in order if t not in floors]
    print("| run | " + " | ".join(TOOL_NAMES.get(t, t) for t in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for length in lengths:
        cells = []
        for t in cols:
            fl = dict(runs.get((length, floor_for(t, floors)), []))
            pairs = [(st, fl[r]) for r, st in runs.get((length, t), []) if r in fl]
            if not pairs:
                cells.append("-")
                continue
            ratio = [a["v_p95"] / b["p95"] for a, b in pairs]
            dmed = [a["v_median"] - b["median"] for a, b in pairs]
            ok = all(a["v_p95"] <= 1.5 * b["p95"] + 0.1 and a["v_median"] <= b["median"] + 0.1
                     for a, b in pairs)
            cells.append(f"{med(ratio):.2f}× ({max(ratio):.2f}×), {med(dmed):+.2f} "
                         f"({max(dmed):+.2f}){' ✓' if ok else ''}")
        print(f"| {mode}, {length} s | " + " | ".join(cells) + " |")
    print()


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check = "--check" in sys.argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = args[0]
    runs = {}  # (length, tool) -> [stats per round]
    for d in sorted(glob.glob(os.path.join(out, "r*", "len*", "*"))):
        tool = os.path.basename(d)
        length = int(os.path.basename(os.path.dirname(d))[3:])
        rnd = int(os.path.basename(os.path.dirname(os.path.dirname(d)))[1:])
        try:
            st = run_stats(d, tool)
            # delaybench's validity as the run decided it online, beside the post-hoc one.
            online = os.path.join(d, "reps-online.csv")
            if st and tool.startswith("db") and os.path.exists(online):
                so = run_stats(d, tool, "reps-online.csv")
                st.update(o_median=so["v_median"], o_p95=so["v_p95"], o_frac=so["valid_frac"])
            elif st and tool.startswith("db"):  # no online export: unknown
                st.update(o_median=float("nan"), o_p95=float("nan"), o_frac=float("nan"))
            elif st:
                st.update(o_median=st["v_median"], o_p95=st["v_p95"], o_frac=st["valid_frac"])
        except (OSError, KeyError, ValueError) as e:
            st = None
            print(f"<!-- {d}: unreadable ({e}) -->")
        if st is None:
            print(f"<!-- {d}: no truth logs (the run failed?) -->")
            continue
        for n in st["note"]:
            print(f"<!-- {d}: {n} -->")
        runs.setdefault((length, tool), []).append((rnd, st))
    if not runs:
        print("no runs found under", out)
        sys.exit(1)
    meta = os.path.join(out, "meta.txt")
    mode = "one host"
    if os.path.exists(meta):
        text = open(meta).read()
        if "mode=cluster" in text:
            mode = "2 emulated hosts"
        print("```\n" + text.strip() + "\n```\n")
    order = [t for t in TOOL_NAMES if any(k[1] == t for k in runs)]
    order += sorted({k[1] for k in runs} - set(order))
    lengths = sorted({k[0] for k in runs})
    head = "| run | " + " | ".join(TOOL_NAMES.get(t, t) for t in order) + " |"
    sep = "|---|" + "---|" * len(order)

    def table(title, key_m, key_p, extra=None):
        print(f"**{title}** (median over rounds of each round's median / p95, µs; rounds in brackets)\n")
        print(head)
        print(sep)
        for length in lengths:
            cells = []
            for t in order:
                rs = [st for _, st in runs.get((length, t), [])]
                if not rs:
                    cells.append("-")
                    continue
                cell = fmt(med([s[key_m] for s in rs]), med([s[key_p] for s in rs]))
                if extra:
                    cell += extra(rs)
                cells.append(f"{cell} ({len(rs)})")
            print(f"| {mode}, {length} s | " + " | ".join(cells) + " |")
        print()

    table("True start spread, all measured repetitions", "median", "p95")
    table("True start spread, valid repetitions only (delaybench: valid on its post-hoc "
          "global times, export's default)", "v_median", "v_p95",
          lambda rs: f", valid {100 * med([s['valid_frac'] for s in rs]):.1f} %")
    table("True start spread, valid repetitions only (delaybench: valid on its online global "
          "times, as the run decided; ReproMPI as above)", "o_median", "o_p95",
          lambda rs: f", valid {100 * med([s['o_frac'] for s in rs]):.1f} %")
    floor_ratios(runs, lengths, order, mode)
    noise = noise_lines(out)
    if noise:
        print("**Noise** (scripts/eval/selfish.c, mean over CPUs; longest over CPUs)\n")
        print("| when | detours/s | lost % | longest µs |")
        print("|---|---|---|---|")
        print("\n".join(noise))
        print()
    if "--epochs" in sys.argv:
        print("**Per second of each delaybench run, valid repetitions** (µs: median of rank 1 − "
              "rank 0 entry / p95 of the true spread; reps)\n")
        for (length, t), rs in sorted(runs.items()):
            if not t.startswith("db"):
                continue
            for rnd, _ in sorted(rs, key=lambda x: x[0]):
                d = os.path.join(out, f"r{rnd}", f"len{length}", t)
                cells = [f"{m:+.2f}/{q:.2f} ({n})" for _, n, m, q in epochs(d, t)]
                print(f"- r{rnd} {length} s {t}: " + " · ".join(cells))
        print()
    if check:
        lines = [(length, t, rnd, s) for (length, t), rs in sorted(runs.items())
                 for rnd, s in rs if s.get("line")]
        if lines:
            print("**The end-of-run line against the truth** (valid repetitions, µs; the line "
                  "holds when its p95 is within [0.5×, 2×] of the true p95)\n")
            print("| round | length | tool | true median / p95 | line median / p95 | "
                  "line p95 / true p95 |")
            print("|---|---|---|---|---|---|")
            for length, t, rnd, s in sorted(lines):
                lm, lp = s["line"]
                ratio = lp / s["v_p95"] if s["v_p95"] > 0 else float("nan")
                held = "held" if 0.5 <= ratio <= 2.0 else "**not held**"
                print(f"| {rnd} | {length} s | {TOOL_NAMES.get(t, t)} | "
                      f"{fmt(s['v_median'], s['v_p95'])} | {fmt(lm, lp)} | {ratio:.2f} ({held}) |")
            print()
        print("**Per run: truth against the tool's own report** (µs)\n")
        print("| round | length | tool | reps | true median / p95 | reported median / p95 | "
              "median abs. difference | valid % | valid: rank 1 − rank 0 entry, median | "
              "rank 1's clock − truth, rel. to rank 0: median (first → last) | "
              "valid: true − reported, p95 | held: true ≤ reported + 2·RTT/2 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (length, t), rs in sorted(runs.items()):
            for rnd, s in sorted(rs, key=lambda x: x[0]):
                rep = fmt(s.get("rep_median", float("nan")), s.get("rep_p95", float("nan")))
                dif = s.get("absdiff_median", float("nan"))
                c = (s.get("clock") or {}).get(1)
                ck = f"{c[0]:.1f} ({c[1]:.1f} → {c[2]:.1f})" if c else "-"
                print(f"| {rnd} | {length} s | {TOOL_NAMES.get(t, t)} | {s['n']} | "
                      f"{fmt(s['median'], s['p95'])} | {rep} | {dif:.2f} | "
                      f"{100 * s['valid_frac']:.1f} | {s['v_signed']:+.2f} | {ck} | "
                      + (f"{s['excess_p95']:+.2f} | {100 * s['bounded']:.1f} % "
                         f"(2·RTT/2 = {s['bound_us']:.2f}) |" if "bounded" in s else "- | - |"))
        print()


if __name__ == "__main__":
    main()
