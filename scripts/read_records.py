#!/usr/bin/env python3
"""Load a delaybench records file with cbor2 and numpy (see docs/records-format.md).

    python3 scripts/read_records.py results/run.cbor
"""
import sys

import cbor2
import numpy as np

ARRAYS = ("t_start_local_s", "t_end_local_s", "t_start_global_s", "t_end_global_s",
          "applied_delay_s")


def read_records(path):
    """Return (header, blocks, footer); footer is None for an interrupted run."""
    header, blocks, footer = None, [], None
    with open(path, "rb") as f:
        while True:
            try:
                item = cbor2.load(f)
            except (EOFError, cbor2.CBORDecodeError):
                break  # end of file, or the torn last block of an interrupted run
            kind = item.pop("item")
            if kind == "header":
                header = item
            elif kind == "block":
                shape = (item["nrep"], item["nprocs"])
                for name in ARRAYS:
                    item[name] = np.frombuffer(item[name], dtype=">f8").reshape(shape)
                item["scheduled_start_s"] = np.frombuffer(item["scheduled_start_s"], dtype=">f8")
                item["flags"] = np.frombuffer(item["flags"], dtype=np.uint8).reshape(shape)
                blocks.append(item)
            elif kind == "footer":
                footer = item
    return header, blocks, footer


if __name__ == "__main__":
    header, blocks, footer = read_records(sys.argv[1])
    print(f"{header['world_size']} ranks, {len(blocks)} blocks, complete={footer is not None}")
    for b in blocks:
        valid = (b["flags"] == 0).all(axis=1)
        t_global = b["t_end_global_s"].max(axis=1) - b["t_start_global_s"].min(axis=1)
        print(f"{b['op']:>10} {b['bytes']:>6} B  P={b['nprocs']:<4} delay={b['delay_s'] * 1e6:7.1f} us"
              f"  valid {valid.sum()}/{b['nrep']}"
              f"  t_global median {np.median(t_global[valid]) * 1e6:9.2f} us")
