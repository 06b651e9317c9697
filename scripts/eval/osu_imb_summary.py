#!/usr/bin/env python3
"""Parses the raw outputs of scripts/eval/osu_imb.sh in DIR into DIR/results.tsv (one line
per round, source, op, size and P) and DIR/summary.md (medians over rounds, delaybench's
OSU/IMB columns beside the tools, with the differences and the 10-point / 15 % flags).

Usage: osu_imb_summary.py DIR
"""
import csv
import glob
import os
import re
import statistics
import sys

FIELDS = ["round", "source", "op", "bytes", "P", "t_pure_us", "t_comp_us", "t_ovrl_us",
          "overlap_pct", "latency_us"]


def rows_of(d):
    out = []

    def add(r, source, op, size, p, **kw):
        row = {"round": r, "source": source, "op": op, "bytes": size, "P": p}
        row.update({k: kw.get(k, "") for k in FIELDS[5:]})
        out.append(row)

    for path in sorted(glob.glob(os.path.join(d, "r*-p*-osu-*-*.txt"))):
        m = re.search(r"r(\d+)-p(\d+)-osu-(\w+)-(\d+)\.txt$", path)
        r, p, op, size = int(m[1]), int(m[2]), m[3], int(m[4])
        for line in open(path):
            f = line.split()
            if not f or not f[0].isdigit() or int(f[0]) != size:
                continue
            if op == "allreduce":
                add(r, "osu", op, size, p, latency_us=float(f[1]))
            else:  # Size Overall Compute Pure Overlap
                add(r, "osu", op, size, p, t_ovrl_us=float(f[1]), t_comp_us=float(f[2]),
                    t_pure_us=float(f[3]), overlap_pct=float(f[4]))
    for path in sorted(glob.glob(os.path.join(d, "r*-p*-imb-*.txt"))):
        m = re.search(r"r(\d+)-p(\d+)-imb-(nbc|mpi1)\.txt$", path)
        r, p, kind = int(m[1]), int(m[2]), m[3]
        bench, procs = None, None
        for line in open(path):
            b = re.match(r"# Benchmarking (\w+)", line)
            if b:
                bench = b[1].lower()
            n = re.match(r"# #processes = (\d+)", line)
            if n:
                procs = int(n[1])
            f = line.split()
            if bench is None or procs != p or len(f) < 5 or not f[0].isdigit():
                continue
            size = int(f[0])
            if kind == "nbc":  # bytes reps t_ovrl t_pure t_CPU overlap
                add(r, "imb", bench, size, p, t_ovrl_us=float(f[2]), t_pure_us=float(f[3]),
                    t_comp_us=float(f[4]), overlap_pct=float(f[5]))
            else:  # bytes reps t_min t_max t_avg
                add(r, "imb-tavg", bench, size, p, latency_us=float(f[4]))
                add(r, "imb-tmax", bench, size, p, latency_us=float(f[3]))
    for path in sorted(glob.glob(os.path.join(d, "r*-p*-delaybench-overlap*.csv"))):
        m = re.search(r"r(\d+)-p(\d+)-", path)
        r, p = int(m[1]), int(m[2])
        for row in csv.DictReader(open(path)):
            if float(row["delay_s"]) != 0.0 or row["overlap_osu_pct"] == "":
                continue
            us = lambda k: float(row[k]) * 1e6
            for tool in ("osu", "imb"):
                add(r, "delaybench-" + tool, row["op"], int(row["bytes"]), p,
                    t_pure_us=us(tool + "_t_pure_s"), t_comp_us=us(tool + "_t_comp_s"),
                    t_ovrl_us=us(tool + "_t_ovrl_s"),
                    overlap_pct=float(row["overlap_" + tool + "_pct"]))
            add(r, "delaybench-t_b", row["op"], int(row["bytes"]), p,
                t_pure_us=us("t_pure_s"))
    for path in sorted(glob.glob(os.path.join(d, "r*-p*-delaybench-schemes.csv"))):
        m = re.search(r"r(\d+)-p(\d+)-", path)
        r, p = int(m[1]), int(m[2])
        for row in csv.DictReader(open(path)):
            add(r, "delaybench-" + row["scheme"], row["op"], int(row["bytes"]), p,
                latency_us=float(row["time_s"]) * 1e6)
    for path in sorted(glob.glob(os.path.join(d, "r*-noise.txt"))):
        r = int(re.search(r"r(\d+)-", path)[1])
        # selfish.c: a header line, then per CPU: cpu detours per_s lost_% longest_us p50 p90 p99
        for line in open(path).read().splitlines()[1:]:
            f = line.split()
            add(r, "noise", "selfish cpu" + f[0], 0, 0, latency_us=float(f[4]),
                overlap_pct=float(f[3]))
    return out


def med(rows, key):
    v = [float(r[key]) for r in rows if r[key] != ""]
    return statistics.median(v) if v else None


def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def summary(rows):
    by = {}
    for r in rows:
        by.setdefault((r["source"], r["op"], r["bytes"], r["P"]), []).append(r)
    n_rounds = len({r["round"] for r in rows})
    lines = [f"Medians over {n_rounds} round(s). Flag: overlap differs by more than 10 "
             "percentage points AND a time by more than 15 %.", "",
             "## Nonblocking: overlap %, t_pure, t_ovrl (us)", "",
             "| op | bytes | P | tool | tool overlap | db overlap | d pp | tool t_pure | db t_pure "
             "| d % | tool t_ovrl | db t_ovrl | d % | db t_b | flag |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(k[1], k[2], k[3]) for k in by if k[0] in ("osu", "imb")
                   and k[1] != "allreduce"})
    rel = lambda a, b: None if a in (None, 0) or b is None else 100.0 * (b - a) / a
    for op, size, p in keys:
        for tool in ("osu", "imb"):
            t, db = by.get((tool, op, size, p)), by.get(("delaybench-" + tool, op, size, p))
            if not t:
                continue
            to, do = med(t, "overlap_pct"), db and med(db, "overlap_pct")
            tp, dp = med(t, "t_pure_us"), db and med(db, "t_pure_us")
            tv, dv = med(t, "t_ovrl_us"), db and med(db, "t_ovrl_us")
            tb = by.get(("delaybench-t_b", op, size, p))
            dpp = None if do is None else do - to
            rp, rv = rel(tp, dp), rel(tv, dv)
            far = dpp is None or (abs(dpp) > 10 and (rp is None or abs(rp) > 15
                                                      or rv is None or abs(rv) > 15))
            lines.append(f"| {op} | {size} | {p} | {tool} | {fmt(to, 1)} | {fmt(do, 1)} | "
                         f"{fmt(dpp, 1)} | {fmt(tp)} | {fmt(dp)} | {fmt(rp, 0)} | {fmt(tv)} | "
                         f"{fmt(dv)} | {fmt(rv, 0)} | {fmt(tb and med(tb, 't_pure_us'))} | "
                         f"{'**check**' if far else ''} |")
    lines += ["", "## Blocking allreduce (us)", "",
              "| bytes | P | OSU avg | db osu-7.4-avg | IMB t_avg | db imb-2021-tavg | IMB t_max "
              "| db imb-2021-tmax | db barrier-max | db pipelined-imb-pre2018 | db window |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for size, p in sorted({(k[2], k[3]) for k in by if k[1] == "allreduce"}):
        g = lambda s: fmt(by.get((s, "allreduce", size, p)) and
                          med(by[(s, "allreduce", size, p)], "latency_us"))
        lines.append(f"| {size} | {p} | {g('osu')} | {g('delaybench-osu-7.4-avg')} | "
                     f"{g('imb-tavg')} | {g('delaybench-imb-2021-tavg')} | {g('imb-tmax')} | "
                     f"{g('delaybench-imb-2021-tmax')} | {g('delaybench-barrier-max')} | "
                     f"{g('delaybench-pipelined-imb-pre2018')} | {g('delaybench-window')} |")
    noise = [r for r in rows if r["source"] == "noise"]
    if noise:
        lines += ["", "## Machine noise (selfish detour, every core, between rounds)", "",
                  "| round | median lost % over cores | largest detour (us) |", "|---|---|---|"]
        for rnd in sorted({r["round"] for r in noise}):
            rr = [r for r in noise if r["round"] == rnd]
            lines.append(f"| {rnd} | {fmt(med(rr, 'overlap_pct'), 3)} | "
                         f"{fmt(max(float(r['latency_us']) for r in rr), 1)} |")
    return "\n".join(lines) + "\n"


def main():
    d = sys.argv[1]
    rows = rows_of(d)
    with open(os.path.join(d, "results.tsv"), "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS, delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    text = open(os.path.join(d, "meta.txt")).read() if os.path.exists(
        os.path.join(d, "meta.txt")) else ""
    s = "# OSU / IMB / delaybench side by side\n\n```\n" + text + "```\n\n" + summary(rows)
    open(os.path.join(d, "summary.md"), "w").write(s)
    sys.stdout.write(s)


if __name__ == "__main__":
    main()
