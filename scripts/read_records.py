#!/usr/bin/env python3
"""Load a delaybench records file (format version 2) with cbor2 and numpy; see
docs/records-format.md.

    pip install cbor2 numpy crc32c
    python3 scripts/read_records.py results/run.cbor

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
    return item


def join(parts):
    """One block from its chunks' parts, in repetition order (per-block values of the last)."""
    block = dict(parts[-1])
    for name in ARRAYS + ("scheduled_start_s", "flags"):
        block[name] = np.concatenate([p[name] for p in parts])
    block["nrep"] = sum(p["nrep"] for p in parts)
    block["clock_probes"] = [c for p in parts for c in p.get("clock_probes", [])]
    if block.get("overlap"):
        # Overlap parts stay big-endian f64 byte strings, as in unchunked blocks.
        block["overlap"] = dict(block["overlap"])
        for name in ("post_s", "compute_s", "test_s", "wait_s"):
            block["overlap"][name] = b"".join(p["overlap"][name] for p in parts)
    return block


def read_records(path):
    """Return (header, blocks, footer); footer is None for an interrupted run."""
    header, blocks, footer, chunks = None, [], None, []
    with open(path, "rb") as f:
        for offset, payload in frames(f):
            item = cbor2.loads(payload)
            kind = item.pop("item")
            if kind == "header":
                if item["format_version"] != 2:
                    raise ValueError(f"format version {item['format_version']}, expected 2")
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
    header, blocks, footer = read_records(sys.argv[1])
    print(f"{header['world_size']} ranks, {len(blocks)} blocks, complete={footer is not None}")
    for b in blocks:
        valid = (b["flags"] == 0).all(axis=1)
        t_global = b["t_end_global_s"].max(axis=1) - b["t_start_global_s"].min(axis=1)
        median = np.median(t_global[valid]) * 1e6 if valid.any() else float("nan")
        print(f"{b['op']:>10} {b['bytes']:>6} B  P={b['nprocs']:<4} delay={b['delay_s'] * 1e6:7.1f} us"
              f"  valid {valid.sum()}/{b['nrep']}  t_global median {median:9.2f} us")
