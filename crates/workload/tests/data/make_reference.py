#!/usr/bin/env python3
"""Regenerate the Darshan fixtures and their reference JSON.

Usage:  python3 make_reference.py            (run from anywhere; needs `pip install darshan`)

What it does
1. Copies every distinct sample log shipped in the PyPI `darshan` package (pydarshan) into
   this directory and writes `<log>.json` next to it with the values pydarshan's
   libdarshan-util reads from it.
2. Builds *derived* logs that cover format features the package's samples lack
   (log versions 3.00 and 3.41, big-endian byte order, bzip2 and uncompressed regions,
   several compressed streams in one region, partial-data flags, old module versions).
   They are re-encodings of the real samples: the decompressed contents are rearranged exactly
   as the darshan-util compatibility code expects. Each derived log is read back by pydarshan
   and its reference JSON comes from pydarshan, except for bzip2 logs (the libdarshan-util
   in the wheel is built without bzip2): their JSON comes from pydarshan reading the
   zlib twin with byte-identical decompressed contents.

The Rust tests only read the committed JSON; they never run Python.
"""
import bz2
import glob
import hashlib
import json
import math
import os
import shutil
import struct
import sys
import tempfile
import zlib

import darshan
from darshan.backend import cffi_backend as b

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(darshan.__file__)

# Module names in the canonical (log format 3.41) index order.
CANON = ["NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q",
         "LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP",
         "DFS", "DAOS"]
COUNTER_MODULES = ["POSIX", "MPI-IO", "STDIO"]
DXT_MODULES = ["DXT_POSIX", "DXT_MPIIO"]
FULL_SEGMENT_LIMIT = 2000


def ver_tuple(v):
    a, b_ = v.split(".")
    return int(a), int(b_)


def canon_to_file_index(canon, version):
    """Index of canonical module `canon` in a log of `version`, or None if absent there."""
    maj, mnr = ver_tuple(version)
    idx = canon
    if (maj, mnr) < (3, 41):
        if canon == 6:
            return None
        if canon > 6:
            idx -= 1
    if (maj, mnr) < (3, 20):
        if canon == 4:
            return None
        if canon > 4:
            idx -= 1
    return idx


def file_to_canon_index(idx, version):
    for c in range(64):
        if canon_to_file_index(c, version) == idx:
            return c
    return None


# ---------------------------------------------------------------- reference values (pydarshan)

def reads_writes(mod, c, names):
    ix = {n: i for i, n in enumerate(names)}
    if mod == "POSIX":
        return (c[ix["POSIX_BYTES_READ"]], c[ix["POSIX_BYTES_WRITTEN"]],
                c[ix["POSIX_READS"]], c[ix["POSIX_WRITES"]])
    if mod == "STDIO":
        return (c[ix["STDIO_BYTES_READ"]], c[ix["STDIO_BYTES_WRITTEN"]],
                c[ix["STDIO_READS"]], c[ix["STDIO_WRITES"]])
    reads = sum(c[ix["MPIIO_" + k + "_READS"]] for k in ("INDEP", "COLL", "SPLIT", "NB"))
    writes = sum(c[ix["MPIIO_" + k + "_WRITES"]] for k in ("INDEP", "COLL", "SPLIT", "NB"))
    return (c[ix["MPIIO_BYTES_READ"]], c[ix["MPIIO_BYTES_WRITTEN"]], reads, writes)


def reference(path):
    log = b.log_open(path)
    job = b.log_get_job(log)
    exe = b.log_get_exe(log)
    mods = b.log_get_modules(log)
    names = b.log_get_name_records(log)
    out = {
        "darshan_version": job["log_ver"],
        "nprocs": job["nprocs"],
        "start_time": job["start_time_sec"],
        "start_time_nsec": job["start_time_nsec"],
        "end_time": job["end_time_sec"],
        "end_time_nsec": job["end_time_nsec"],
        "jobid": job["jobid"],
        "uid": job["uid"],
        "exe": exe,
        "name_records": len(names),
        "names_sample": {str(k): v for k, v in sorted(names.items())[:200]},
        "modules": {},
        "ranks": {},
        "dxt": {},
        "first_records": {},
    }
    for mod, info in mods.items():
        entry = {"version": info["ver"], "partial": info["partial_flag"]}
        out["modules"][mod] = entry
        if mod in COUNTER_MODULES:
            cn = b.counter_names(mod)
            fn = b.fcounter_names(mod)
            csum = [0] * len(cn)
            fsum = [[] for _ in fn]
            totals = [0, 0, 0, 0]
            nrec = 0
            first = []
            while True:
                rec = b.log_get_record(log, mod, dtype="numpy")
                if rec is None:
                    break
                nrec += 1
                c = [int(x) for x in rec["counters"]]
                f = [float(x) for x in rec["fcounters"]]
                if len(first) < 3:
                    first.append({"id": str(rec["id"]), "rank": int(rec["rank"]),
                                  "counters": c, "fcounters": f})
                for i, x in enumerate(c):
                    csum[i] += x
                for i, x in enumerate(f):
                    fsum[i].append(x)
                rw = reads_writes(mod, c, cn)
                for i in range(4):
                    totals[i] += rw[i]
                if mod == "POSIX":
                    r = out["ranks"].setdefault(str(int(rec["rank"])), {
                        "bytes_read": 0, "bytes_written": 0, "reads": 0, "writes": 0})
                    r["bytes_read"] += rw[0]
                    r["bytes_written"] += rw[1]
                    r["reads"] += rw[2]
                    r["writes"] += rw[3]
            entry.update({"records": nrec, "bytes_read": totals[0], "bytes_written": totals[1],
                          "reads": totals[2], "writes": totals[3],
                          # wrapping (two's complement) sums, as int64 arithmetic would give
                          "counter_sums": [((x + 2**63) % 2**64) - 2**63 for x in csum],
                          "fcounter_sums": [math.fsum(v) for v in fsum]})
            out["first_records"][mod] = first
        elif mod in DXT_MODULES:
            recs = []
            while True:
                rec = b.log_get_record(log, mod, dtype="dict")
                if rec is None:
                    break
                recs.append(rec)
            nseg = sum(r["write_count"] + r["read_count"] for r in recs)
            d = {
                "records": len(recs),
                "write_segments": sum(r["write_count"] for r in recs),
                "read_segments": sum(r["read_count"] for r in recs),
                "bytes_written": sum(s["length"] for r in recs for s in r["write_segments"]),
                "bytes_read": sum(s["length"] for r in recs for s in r["read_segments"]),
            }
            segs = [s for r in recs for s in r["write_segments"] + r["read_segments"]]
            d["segment_digest"] = {
                "offset_sum": sum(s["offset"] for s in segs),
                "start_time_sum": math.fsum(s["start_time"] for s in segs),
                "end_time_sum": math.fsum(s["end_time"] for s in segs),
            }
            entry.update(d)
            out["dxt"][mod] = dict(d)
            if nseg <= FULL_SEGMENT_LIMIT:
                out["dxt"][mod]["trace"] = [{
                    "id": str(r["id"]), "rank": r["rank"], "hostname": r["hostname"],
                    "writes": [[s["offset"], s["length"], s["start_time"], s["end_time"]]
                               for s in r["write_segments"]],
                    "reads": [[s["offset"], s["length"], s["start_time"], s["end_time"]]
                              for s in r["read_segments"]],
                } for r in recs]
    b.log_close(log)
    return out


# ---------------------------------------------------------------- a small re-encoder

MAGIC = 6567223


def inflate_all(data):
    """Decompress a region made of one or more concatenated zlib streams."""
    out = b""
    while data:
        d = zlib.decompressobj()
        out += d.decompress(data)
        data = d.unused_data
    return out


class Log:
    """Decompressed contents of a little-endian zlib/none log of version 3.10/3.21."""

    def __init__(self, path):
        raw = open(path, "rb").read()
        self.version = raw[:8].rstrip(b"\0").decode()
        maj, mnr = ver_tuple(self.version)
        assert struct.unpack_from("<q", raw, 8)[0] == MAGIC, "little-endian source expected"
        comp = raw[16]
        nmods = 64 if (maj, mnr) >= (3, 41) else 16
        if nmods == 64:
            name_off = 32
        else:
            name_off = 24
        hdr_len = name_off + 16 + nmods * 16 + nmods * 4

        def region(off, ln):
            blob = raw[off:off + ln]
            return inflate_all(blob) if comp == 0 else blob

        noff, nlen = struct.unpack_from("<QQ", raw, name_off)
        maps = [struct.unpack_from("<QQ", raw, name_off + 16 + 16 * i) for i in range(nmods)]
        vers = [struct.unpack_from("<I", raw, name_off + 16 + 16 * nmods + 4 * i)[0]
                for i in range(nmods)]
        first_mod = min([o for o, l in maps if l > 0] + [len(raw)])
        job_end = noff if noff else first_mod
        self.job = region(hdr_len, job_end - hdr_len)
        self.names = region(noff, nlen) if nlen else b""
        self.mods = {}
        for i, (o, l) in enumerate(maps):
            if l:
                self.mods[file_to_canon_index(i, self.version)] = [vers[i], region(o, l)]

    # job: list of i64 fields and the rest (metadata + exe/mounts)
    def job_fields(self):
        maj, mnr = ver_tuple(self.version)
        if (maj, mnr) >= (3, 41):
            f = list(struct.unpack_from("<7q", self.job, 0))
            return f, self.job[56:]
        uid, st, et, np_, jid = struct.unpack_from("<5q", self.job, 0)
        return [uid, st, 0, et, 0, np_, jid], self.job[40:]

    def name_list(self):
        """(id, name bytes) pairs from a 3.10+ name region."""
        out, p, n = [], 0, self.names
        while p + 8 < len(n):
            rid = struct.unpack_from("<Q", n, p)[0]
            end = n.index(b"\0", p + 8)
            out.append((rid, n[p + 8:end]))
            p = end + 1
        return out


def records(blob, size):
    assert len(blob) % size == 0, (len(blob), size)
    return [bytearray(blob[i:i + size]) for i in range(0, len(blob), size)]


def drop_i64(rec, idxs, base=16):
    """Remove 8-byte fields at (absolute field) indices `idxs` counted after the base record."""
    fields = [rec[base + 8 * i: base + 8 * i + 8] for i in range((len(rec) - base) // 8)]
    keep = [f for i, f in enumerate(fields) if i not in set(idxs)]
    return bytearray(rec[:base] + b"".join(keep))


def insert_i64(rec, at, values, base=16):
    fields = [rec[base + 8 * i: base + 8 * i + 8] for i in range((len(rec) - base) // 8)]
    for k, v in enumerate(values):
        fields.insert(at + k, struct.pack("<q", v))
    return bytearray(rec[:base] + b"".join(fields))


def posix_downgrade(blob, target, skip_one_fopen=False):
    recs = records(blob, 704)
    out = []
    for r in recs:
        r = drop_i64(r, [1, 2, 10, 11, 12])          # v4 -> v3: 64 counters, 17 fcounters
        if target <= 2:
            r = drop_i64(r, [64 + 3, 64 + 4])          # v3 -> v2: 15 fcounters
        if target <= 1:
            r = insert_i64(r, 6, [0, 0, 0, 0])         # v2 -> v1: 4 stdio counters at 6..9
        out.append(r)
    if target <= 1 and skip_one_fopen and out:
        out[0][16 + 6 * 8:16 + 7 * 8] = struct.pack("<q", 3)  # libdarshan-util drops it
    return b"".join(out)


def mpiio_downgrade(blob):
    return b"".join(drop_i64(r, [51 + 3, 51 + 4]) for r in records(blob, 560))


def stdio_downgrade(blob):
    return b"".join(drop_i64(r, [1]) for r in records(blob, 248))


def swap8(blob, start=0, end=None):
    end = len(blob) if end is None else end
    out = bytearray(blob)
    for i in range(start, end - 7, 8):
        out[i:i + 8] = out[i:i + 8][::-1]
    return out


def swap_dxt(blob):
    out, p = bytearray(), 0
    while p < len(blob):
        hdr = bytearray(blob[p:p + 104])
        wc, rc = struct.unpack_from("<qq", hdr, 88)
        for o in (0, 8, 16, 88, 96):
            hdr[o:o + 8] = hdr[o:o + 8][::-1]
        segs = blob[p + 104:p + 104 + 32 * (wc + rc)]
        out += hdr + swap8(segs)
        p += 104 + 32 * (wc + rc)
    return bytes(out)


def compress(blob, comp, streams):
    """Compress `blob` into `streams` concatenated streams (one per 'rank', as the runtime does)."""
    if not blob:
        return b""
    if comp == "none":
        return blob
    n = max(1, min(streams, len(blob)))
    cut = [len(blob) * k // n for k in range(n + 1)]
    parts = [blob[cut[k]:cut[k + 1]] for k in range(n)]
    if comp == "zlib":
        return b"".join(zlib.compress(p) for p in parts)
    return b"".join(bz2.compress(p) for p in parts)


def encode(log, version, comp="zlib", big_endian=False, streams=1, partial=(), nsec=(0, 0),
           keep=None, posix_ver=None, mpiio_v1=False, stdio_v1=False, dxt_mpiio_v1=False,
           skip_one_fopen=False):
    maj, mnr = ver_tuple(version)
    e = ">" if big_endian else "<"
    # --- module payloads (little-endian first), versions
    mods = {}
    for canon, (ver, blob) in sorted(log.mods.items()):
        name = CANON[canon]
        if keep is not None and name not in keep:
            continue
        if canon_to_file_index(canon, version) is None:
            continue
        blob = bytes(blob)
        if name == "POSIX" and posix_ver is not None and posix_ver < ver:
            assert ver == 4
            blob, ver = posix_downgrade(blob, posix_ver, skip_one_fopen), posix_ver
        if name == "MPI-IO" and mpiio_v1:
            assert ver == 3
            blob, ver = mpiio_downgrade(blob), 1
        if name == "STDIO" and stdio_v1 and ver == 2:
            blob, ver = stdio_downgrade(blob), 1
        if name == "DXT_MPIIO" and dxt_mpiio_v1:
            ver = 1
        if big_endian:
            if name in ("POSIX", "MPI-IO", "STDIO"):
                blob = bytes(swap8(blob))
            elif name in DXT_MODULES:
                blob = swap_dxt(blob)
            else:
                raise ValueError("cannot byte-swap module " + name)
        mods[canon] = (ver, blob)
    # --- job region
    f, rest = log.job_fields()
    f[2], f[4] = nsec
    if (maj, mnr) >= (3, 41):
        job = struct.pack(e + "7q", *f) + rest
    else:
        job = struct.pack(e + "5q", f[0], f[1], f[3], f[5], f[6]) + rest
    job = job[:4096]
    # --- name region
    names = b""
    for rid, nm in log.name_list():
        if (maj, mnr) == (3, 0):
            names += struct.pack(e + "QI", rid, len(nm)) + nm
        else:
            names += struct.pack(e + "Q", rid) + nm + b"\0"
    # --- layout
    nmods = 64 if (maj, mnr) >= (3, 41) else 16
    name_off = 32 if nmods == 64 else 24
    hdr_len = name_off + 16 + nmods * 16 + nmods * 4
    body = bytearray()
    pos = hdr_len
    cj = compress(job, comp, streams)
    body += cj
    pos += len(cj)
    cn = compress(names, comp, streams)
    name_map = (pos, len(cn)) if cn else (0, 0)
    body += cn
    pos += len(cn)
    maps = [(0, 0)] * nmods
    vers = [0] * nmods
    for canon, (ver, blob) in sorted(mods.items()):
        fi = canon_to_file_index(canon, version)
        c = compress(blob, comp, streams)
        maps[fi] = (pos, len(c))
        vers[fi] = ver
        body += c
        pos += len(c)
    pflag = 0
    for name in partial:
        fi = canon_to_file_index(CANON.index(name), version)
        pflag |= 1 << fi
    hdr = bytearray(hdr_len)
    hdr[0:8] = version.encode().ljust(8, b"\0")
    struct.pack_into(e + "q", hdr, 8, MAGIC)
    hdr[16] = {"zlib": 0, "bzip2": 1, "none": 2}[comp]
    if nmods == 64:
        struct.pack_into(e + "Q", hdr, 24, pflag)
    else:
        struct.pack_into(e + "I", hdr, 20, pflag)
    struct.pack_into(e + "QQ", hdr, name_off, *name_map)
    for i in range(nmods):
        struct.pack_into(e + "QQ", hdr, name_off + 16 + 16 * i, *maps[i])
        struct.pack_into(e + "I", hdr, name_off + 16 + 16 * nmods + 4 * i, vers[i])
    return bytes(hdr + body)


VARIANTS = [
    # (output name, source log, encode() options)
    ("derived-v341-dxt-multistream.darshan", "sample-dxt-simple.darshan",
     dict(version="3.41", streams=3, nsec=(250000000, 750000000), partial=("DXT_POSIX",))),
    ("derived-v321-bigendian-dxt.darshan", "sample-dxt-simple.darshan",
     dict(version="3.21", big_endian=True, streams=2)),
    ("derived-v341-bigendian-bzip2-dxt.darshan", "sample-dxt-simple.darshan",
     dict(version="3.41", big_endian=True, comp="bzip2", streams=4, nsec=(1, 999999999))),
    ("derived-v300-oldmodules-nocomp.darshan", "sample-dxt-simple.darshan",
     dict(version="3.00", comp="none", posix_ver=1, mpiio_v1=True, dxt_mpiio_v1=True,
          skip_one_fopen=True, partial=("MPI-IO",))),
    ("derived-v310-bzip2-multistream-lustre.darshan", "example.darshan",
     dict(version="3.10", comp="bzip2", streams=2)),
    ("derived-v321-posixv2-stdiov1-lustre.darshan", "ior_hdf5_example.darshan",
     dict(version="3.21", streams=2, posix_ver=2, stdio_v1=True,
          keep=("POSIX", "MPI-IO", "STDIO", "LUSTRE", "H5F", "H5D", "DXT_POSIX", "DXT_MPIIO"))),
]


def main():
    logs = {}
    for p in sorted(glob.glob(os.path.join(PKG, "**", "*.darshan"), recursive=True)):
        digest = hashlib.sha256(open(p, "rb").read()).hexdigest()
        logs.setdefault(digest, []).append(p)
    manifest = []
    for digest, paths in sorted(logs.items(), key=lambda kv: os.path.basename(kv[1][0])):
        src = paths[0]
        name = os.path.basename(src)
        dst = os.path.join(HERE, name)
        shutil.copyfile(src, dst)
        ref = reference(dst)
        ref["source"] = {"package": "darshan", "version": darshan.__version__,
                         "paths": [os.path.relpath(p, os.path.dirname(PKG)) for p in paths],
                         "sha256": digest}
        json.dump(ref, open(dst + ".json", "w"), indent=1, sort_keys=True)
        manifest.append(name)
        print("reference", name)
    for out, srcname, opts in VARIANTS:
        log = Log(os.path.join(HERE, srcname))
        data = encode(log, **opts)
        dst = os.path.join(HERE, out)
        open(dst, "wb").write(data)
        if opts.get("comp") == "bzip2":
            twin = dict(opts, comp="zlib")
            with tempfile.TemporaryDirectory() as td:
                tp = os.path.join(td, "twin.darshan")
                open(tp, "wb").write(encode(log, **twin))
                ref = reference(tp)
        else:
            ref = reference(dst)
        ref["source"] = {"derived_from": srcname, "options": {k: v for k, v in opts.items()},
                         "reference_by": "pydarshan %s" % darshan.__version__ +
                         (" on the zlib twin" if opts.get("comp") == "bzip2" else "")}
        json.dump(ref, open(dst + ".json", "w"), indent=1, sort_keys=True)
        manifest.append(out)
        print("derived", out, len(data), "bytes")
    json.dump({"pydarshan_version": darshan.__version__, "logs": manifest},
              open(os.path.join(HERE, "manifest.json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
