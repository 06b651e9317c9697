#!/usr/bin/env python3
"""Do two studies of one plan give the same verdicts? Run by hand, never by the tests.

    delaybench analyze --format csv STUDY1/launch-*.cbor > a.csv
    delaybench analyze --format csv STUDY2/launch-*.cbor > b.csv
    scripts/eval/verdicts_agree.py a.csv b.csv

A delayed row's verdict is its `verdict` column (analyze schema 10: the summary table's
verdict at the analysis' equivalence margin, `--margin`, without its figure). For older
CSVs without it: `launches disagree` when `launches_disagree` is true; otherwise, when
`benefit_significant` is true, the sign of `benefit_median` (`hides`: b > 0, `costs
extra`: b < 0); otherwise `not significant`; and `no claim` where the row has no benefit
interval (too few valid repetitions). Prints each row's two verdicts and the share of rows
whose verdicts are the same, per P and in all.
"""
import csv
import sys


def verdicts(path):
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["delay_model"] == "0":
                continue
            key = (row["op"], int(row["bytes"]), int(row["nprocs"]), row["algorithm"],
                   row["delay_model"])
            if "verdict" in row:
                v = row["verdict"] or "no verdict"
            elif row.get("launches_disagree") == "true":
                v = "launches disagree"
            elif row["benefit_median_ci_lo"] == "":
                v = "no claim"
            elif row["benefit_significant"] == "true":
                v = "hides" if float(row["benefit_median"]) > 0 else "costs extra"
            else:
                v = "not significant"
            out[key] = (v, row["launches"])
    return out


def main():
    a, b = verdicts(sys.argv[1]), verdicts(sys.argv[2])
    keys = [k for k in a if k in b]
    same = 0
    print(f"{'op':<12} {'size':>6} {'P':>3} {'delay':>8}  {'study 1':<18} {'study 2':<18}")
    for k in keys:
        (va, na), (vb, nb) = a[k], b[k]
        same += va == vb
        mark = "" if va == vb else "  <- differs"
        print(f"{k[0]:<12} {k[1]:>6} {k[2]:>3} {k[4]:>8}  {va:<18} {vb:<18}{mark}")
    for p in sorted({k[2] for k in keys}):
        at = [k for k in keys if k[2] == p]
        n = sum(a[k][0] == b[k][0] for k in at)
        print(f"P = {p}: same verdict in {n} of {len(at)} rows")
    only = len(a) + len(b) - 2 * len(keys)
    print(f"same verdict in {same} of {len(keys)} rows ({100.0 * same / max(len(keys), 1):.1f} %)"
          + (f"; {only} rows in one study only" if only else ""))


if __name__ == "__main__":
    main()
