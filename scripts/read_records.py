#!/usr/bin/env python3
"""Load a delaybench records file (format version 2 or 3) with cbor2 and numpy; see
docs/records-format.md.

    pip install cbor2 numpy crc32c
    python3 scripts/read_records.py results/run.cbor [posthoc|online]

Global times: as `delaybench analyze`, `export` and `plot` read them. With "posthoc" (the
default) a run with drift-tracking probes gets its global times recomputed from the local
times by interpolating each rank's offset linearly between its probes (Becker et al. 2008),
and validity decided again on those times; a run without probes keeps its online times.
`read_records` returns which were used.

Every item is a checksummed frame: b"DBR2", kind (1 byte), payload length (8 bytes, big
endian), the CBOR payload, and the CRC-32C of kind, length and payload (4 bytes, big endian).
A frame with a wrong checksum is damage and raises; a frame cut off by the end of the file is
the block (or chunk) in flight of an interrupted run and ends the reading.

A long block may be written in chunks: "chunk" items ({"first_rep", "part": a block of those
repetitions}) in repetition order, closed by a "block_end" item ({"nrep"}). They are joined
into one block; the complete chunks of a block an interrupted run was writing are kept as its
last block, marked "partial": True.
"""
import os
import struct
import sys

import cbor2
import numpy as np

try:
    from crc32c import crc32c
except ImportError:  # slow pure-Python CRC-32C (Castagnoli), if the crc32c package is missing
    _TABLE = []
    for _n in range(256):
        _c = _n
        for _ in range(8):
            _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
        _TABLE.append(_c)

    def crc32c(data):
        c = 0xFFFFFFFF
        for b in data:
            c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
        return c ^ 0xFFFFFFFF

MAGIC = b"DBR2"
ARRAYS = ("t_start_local_s", "t_end_local_s", "t_start_global_s", "t_end_global_s",
          "applied_delay_s")


def checksum_ok(covered, crc):
    """Whether the 4 big-endian bytes `crc` are the CRC-32C of `covered` (kind, length and
    payload: everything after the magic)."""
    return struct.unpack(">I", crc)[0] == crc32c(covered)


def valid_frame_at(data, i):
    """Whether a complete frame with a matching checksum starts at data[i]."""
    if data[i:i + 4] != MAGIC or len(data) < i + 17:
        return False
    (length,) = struct.unpack(">Q", data[i + 5:i + 13])
    end = i + 13 + length
    if end + 4 > len(data):
        return False
    return checksum_ok(data[i + 4:end], data[end:end + 4])


def damaged_not_torn(head, rest):
    """A frame running past the end of the file is torn by an interruption, unless the bytes
    left are the whole frame with a damaged length (the checksum matches the true length) or
    complete frames follow it (as the Rust reader decides)."""
    if len(rest) >= 4:
        fixed = head[4:5] + struct.pack(">Q", len(rest) - 4)
        if checksum_ok(fixed + rest[:-4], rest[-4:]):
            return True
    return any(valid_frame_at(rest, i) for i in range(len(rest)) if rest[i:i + 4] == MAGIC)


def frames(f):
    """Yield (offset, payload) per complete frame; stop at a torn last frame."""
    offset = 0
    while True:
        head = f.read(13)
        if len(head) < 13:
            return  # end of file, or a torn frame header
        if head[:4] != MAGIC:
            raise ValueError(f"damaged records file: no frame at byte {offset}")
        (length,) = struct.unpack(">Q", head[5:13])
        # Never read (allocate) past the end of the file, whatever the length field says.
        left = os.fstat(f.fileno()).st_size - f.tell()
        payload = f.read(min(length, left))
        crc = f.read(4)
        if len(payload) < length or len(crc) < 4:
            rest = payload + crc
            if damaged_not_torn(head, rest):
                raise ValueError(f"damaged records file: frame at byte {offset} has a damaged "
                                 "length, or complete frames follow it")
            return  # the block in flight of an interrupted run
        if not checksum_ok(head[4:] + payload, crc):
            raise ValueError(f"damaged records file: checksum mismatch at byte {offset}")
        yield offset, payload
        offset += 13 + length + 4


def as_arrays(item):
    """Turn a block's byte-string arrays into numpy arrays of shape [nrep][nprocs]."""
    shape = (item["nrep"], item["nprocs"])
    for name in ARRAYS:
        item[name] = np.frombuffer(item[name], dtype=">f8").reshape(shape)
    item["scheduled_start_s"] = np.frombuffer(item["scheduled_start_s"], dtype=">f8")
    item["flags"] = np.frombuffer(item["flags"], dtype=np.uint8).reshape(shape)
    sp = item.get("start_path")
    if sp:
        # The release and entry stamps (docs/records-format.md); run_delay_s and steal_s
        # are empty without --start-path.
        for name in START_PATH_ARRAYS:
            a = np.frombuffer(sp.get(name, b""), dtype=">f8")
            sp[name] = a.reshape(shape) if a.size else a
    return item


START_PATH_ARRAYS = ("release_cycles", "entry_cycles", "release_cpu", "entry_cpu",
                     "run_delay_s", "steal_s")


def join(parts):
    """One block from its chunks' parts, in repetition order (per-block values of the last)."""
    block = dict(parts[-1])
    for name in ARRAYS + ("scheduled_start_s", "flags"):
        block[name] = np.concatenate([p[name] for p in parts])
    block["nrep"] = sum(p["nrep"] for p in parts)
    block["clock_probes"] = [c for p in parts for c in p.get("clock_probes", [])]
    if block.get("start_path"):
        block["start_path"] = dict(block["start_path"])
        for name in START_PATH_ARRAYS:
            block["start_path"][name] = np.concatenate([p["start_path"][name] for p in parts])
    if block.get("overlap"):
        # Overlap parts stay big-endian f64 byte strings, as in unchunked blocks.
        block["overlap"] = dict(block["overlap"])
        for name in ("post_s", "compute_s", "test_s", "wait_s"):
            block["overlap"][name] = b"".join(p["overlap"][name] for p in parts)
    return block


FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN = 1, 2


def _model_offset(m, t):
    """Offset (local - global, seconds) of clock model `m` at local time `t`."""
    return m["slope"] * (t - m["t_ref_s"]) + m["intercept_s"]


def offset_tracks(header, blocks):
    """Per world rank, a function of local time giving the offset to the global clock:
    piecewise-linear between the rank's probes, the initial model's slope before the first,
    the last online model's slope after the last; ranks sharing a leader's clock take the
    leader's. None when the run has no usable probe."""
    n = header["world_size"]
    models = header["clock_sync"]["models"]
    identity = {"slope": 0.0, "intercept_s": 0.0, "t_ref_s": 0.0}
    initial = [models[r] if r < len(models) else identity for r in range(n)]
    points = [[] for _ in range(n)]
    last = list(initial)
    for b in blocks:
        for p in b.get("clock_probes", []):
            r = p["world_rank"]
            if r < n and np.isfinite(p["t_local_s"]) and np.isfinite(p["offset_s"]):
                points[r].append((p["t_local_s"], p["offset_s"]))
                last[r] = p["model"]
    if not any(points):
        return None

    def track(r):
        # One offset per time, the first, as the Rust reader keeps it.
        first = {}
        for t, o in points[r]:
            first.setdefault(t, o)
        pts = sorted(first.items())
        before, after = initial[r], last[r]
        ts = np.array([t for t, _ in pts])
        os_ = np.array([o for _, o in pts])

        def offset_at(t):
            t = np.asarray(t, dtype=float)
            if len(ts) == 0:
                return _model_offset(before, t)
            inside = np.interp(t, ts, os_)
            lo = _model_offset(before, t) - _model_offset(before, ts[0]) + os_[0]
            hi = _model_offset(after, t) - _model_offset(after, ts[-1]) + os_[-1]
            return np.where(t < ts[0], lo, np.where(t > ts[-1], hi, inside))
        return offset_at

    tracks = [track(r) for r in range(n)]
    for r, check in enumerate(header["clock_sync"].get("shared", [])[:n]):
        if check["verdict"] == "shared" and check["leader"] < n:
            tracks[r] = tracks[check["leader"]]
    return tracks


def redecide_flags(b):
    """The flags of block `b` decided again on its global times: a rank started late when it
    recorded its start more than the late tolerance after its instant (scheduled start plus
    its delay), overran its window when it ended after the window closed."""
    sched = b["scheduled_start_s"][:, None]
    flags = np.zeros(b["flags"].shape, dtype=np.uint8)
    if b.get("window_s") is None:
        return flags
    finite = np.isfinite(sched)
    late = finite & (b["t_start_global_s"] - (sched + b["applied_delay_s"]) > b["late_tolerance_s"])
    over = finite & (b["t_end_global_s"] > sched + b["window_s"])
    flags[late] |= FLAG_STARTED_LATE
    flags[over] |= FLAG_WINDOW_OVERRUN
    return flags


def apply_global_times(header, blocks, choice="posthoc"):
    """Rewrite the blocks' global times and flags for `choice`; returns the times used,
    "posthoc" or "online". The recorded flags stay in "flags_online"."""
    tracks = offset_tracks(header, blocks) if choice == "posthoc" else None
    if tracks is None:
        return "online"
    for b in blocks:
        p = b["nprocs"]
        world = b.get("world_ranks") or list(range(p))
        start, end = b["t_start_global_s"].copy(), b["t_end_global_s"].copy()
        for r in range(p):
            w = world[r]
            if w < len(tracks):
                t0, t1 = b["t_start_local_s"][:, r], b["t_end_local_s"][:, r]
                start[:, r] = t0 - tracks[w](t0)
                end[:, r] = t1 - tracks[w](t1)
        b["t_start_global_s"], b["t_end_global_s"] = start, end
        b["flags_online"] = b["flags"]
        b["flags"] = redecide_flags(b)
    return "posthoc"


def read_records(path, global_times="posthoc"):
    """Return (header, blocks, footer, times): footer is None for an interrupted run, times
    the global times used ("posthoc" or "online", see the module's documentation)."""
    header, blocks, footer = read_raw(path)
    times = apply_global_times(header, blocks, global_times)
    return header, blocks, footer, times


def read_raw(path):
    """Return (header, blocks, footer) as recorded (online global times and verdicts)."""
    header, blocks, footer, chunks = None, [], None, []
    with open(path, "rb") as f:
        for offset, payload in frames(f):
            item = cbor2.loads(payload)
            kind = item.pop("item")
            if kind == "header":
                # Version 3 only added the header's optional "p2p" (one-way times).
                if item["format_version"] not in (2, 3):
                    raise ValueError(f"format version {item['format_version']}, expected 2 or 3")
                header = item
            elif kind == "block":
                blocks.append(as_arrays(item))
            elif kind == "chunk":
                expected = sum(p["nrep"] for p in chunks)
                if item["first_rep"] != expected:
                    raise ValueError(f"chunk at byte {offset} starts at repetition "
                                     f"{item['first_rep']}, expected {expected}")
                chunks.append(as_arrays(item["part"]))
            elif kind == "block_end":
                block = join(chunks)
                if block["nrep"] != item["nrep"]:
                    raise ValueError(f"block end at byte {offset}: {item['nrep']} repetitions, "
                                     f"its chunks hold {block['nrep']}")
                blocks.append(block)
                chunks = []
            elif kind == "footer":
                footer = item
    if chunks and footer is None:
        blocks.append(dict(join(chunks), partial=True))
    return header, blocks, footer


if __name__ == "__main__":
    choice = sys.argv[2] if len(sys.argv) > 2 else "posthoc"
    if choice not in ("posthoc", "online"):
        sys.exit(f"global times must be posthoc or online, not {choice}")
    header, blocks, footer, times = read_records(sys.argv[1], choice)
    print(f"{header['world_size']} ranks, {len(blocks)} blocks, complete={footer is not None}, "
          f"global times: {times}")
    for b in blocks:
        valid = (b["flags"] == 0).all(axis=1)
        t_global = b["t_end_global_s"].max(axis=1) - b["t_start_global_s"].min(axis=1)
        median = np.median(t_global[valid]) * 1e6 if valid.any() else float("nan")
        print(f"{b['op']:>10} {b['bytes']:>6} B  P={b['nprocs']:<4} delay={b['delay_s'] * 1e6:7.1f} us"
              f"  valid {valid.sum()}/{b['nrep']}  t_global median {median:9.2f} us")
