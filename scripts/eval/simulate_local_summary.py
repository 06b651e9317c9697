#!/usr/bin/env python3
"""One Markdown table, a row per (kernel, size, P), of a simulated and a measured run of one
plan, from their `delaybench analyze --format csv` files: simulated t0, t_delta and benefit b
beside the measured ones with their bootstrap intervals, and the ratio simulated / measured of
the median t0. Columns are read by the names of the analyze CSV (docs/exports.md), so a column
added to it changes nothing here. Part of scripts/eval/simulate-local.sh.

    simulate_local_summary.py SIMULATED.csv MEASURED.csv [SIMULATE_ERROR]

SIMULATE_ERROR, when `simulate` refused the plan or failed, is printed as the reason in every
row without a simulated figure.
"""
import csv
import sys


def read(path):
    """The delayed rows of an analyze CSV by (op, bytes, P): each holds t0 and t_delta with
    their intervals and b. A plan with one delay has one delayed row per (op, bytes, P)."""
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["delay_model"] != "0":
                rows[(row["op"], int(row["bytes"]), int(row["nprocs"]))] = row
    return rows


def number(row, column):
    """The cell as a float, None when empty (no valid repetition, no baseline)."""
    cell = row.get(column, "") if row else ""
    return float(cell) if cell else None


def us(value):
    return "-" if value is None else f"{value * 1e6:.2f}"


def with_interval(row, column, scale, unit_format):
    """`median [lo, hi]` of `column` (the analyze CSV's `*_ci_lo*`, `*_ci_hi*` beside it)."""
    mid = number(row, column)
    if mid is None:
        return "-"
    stem, suffix = (column[:-2], "_s") if column.endswith("_s") else (column, "")
    lo, hi = number(row, f"{stem}_ci_lo{suffix}"), number(row, f"{stem}_ci_hi{suffix}")
    text = unit_format(mid * scale)
    if lo is not None and hi is not None:
        text += f" [{unit_format(lo * scale)}, {unit_format(hi * scale)}]"
    return text


def size(op, b):
    if op.endswith("barrier"):
        return "-"
    return f"{b // 1024} KiB" if b >= 1024 and b % 1024 == 0 else f"{b} B"


def main():
    sim, meas = read(sys.argv[1]), read(sys.argv[2])
    sim_error = sys.argv[3] if len(sys.argv) > 3 else ""
    # Kernels in the plan's order (their first row's), then size and P.
    keys = list(dict.fromkeys(list(meas) + list(sim)))
    first = {op: i for i, (op, _, _) in reversed(list(enumerate(keys)))}
    order = sorted(keys, key=lambda k: (first[k[0]], k[1], k[2]))
    print(
        "| kernel | size | P | simulated t0 (us) | simulated t_delta (us) | simulated b (%) "
        "| measured t0 (us) [95 %] | measured t_delta (us) [95 %] | measured b (%) [95 %] "
        "| t0 simulated / measured |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    pct = lambda v: f"{v:.1f}"
    # A simulated b of -1e-14 (rounding) reads 0.0, not -0.0.
    exact_pct = lambda v: f"{round(v, 1) + 0.0:.1f}"
    two = lambda v: f"{v:.2f}"
    for key in order:
        op, b, p = key
        s, m = sim.get(key), meas.get(key)
        if s is None:
            reason = f"not simulated: {sim_error}" if sim_error else "not simulated"
            sim_cells = [reason, "-", "-"]
        else:
            benefit = number(s, "benefit_median")
            sim_cells = [
                us(number(s, "t0_median_s")),
                us(number(s, "t_global_median_s")),
                "-" if benefit is None else exact_pct(benefit * 100),
            ]
        if m is None:
            meas_cells = ["not measured", "-", "-"]
        else:
            meas_cells = [
                with_interval(m, "t0_median_s", 1e6, two)
                if number(m, "t0_median_s") is not None
                else "no valid baseline",
                with_interval(m, "t_global_median_s", 1e6, two),
                with_interval(m, "benefit_median", 100, pct)
                if number(m, "benefit_median") is not None
                else (m["benefit_na"] or "-"),
            ]
        t0s, t0m = number(s, "t0_median_s"), number(m, "t0_median_s")
        ratio = f"{t0s / t0m:.2g}" if t0s is not None and t0m else "-"
        cells = [op, size(op, b), str(p)] + sim_cells + meas_cells + [ratio]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
