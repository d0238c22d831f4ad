"""report_factory.py - schedio.report.v1 documents for server tests: a
realistic report (cgroups with dozens of non-zero buckets, CPUs, disks with
iocost rows) built deterministically from a seed."""
import gzip
import json
import random
import time


def now_ms():
    return int(time.time() * 1000)


def hist(rng, nbuckets=60, lo=80, scale=20):
    start = rng.randrange(lo, lo + 40)
    buckets = [[start + i, rng.randrange(1, scale)] for i in range(nbuckets)]
    count = sum(c for _, c in buckets)
    return {"count": count, "sum_ns": count * 50000, "max_ns": 4000000, "buckets": buckets}


def report(host_id="host-a", seq=1, start_ms=None, interval_ms=10000, hostname=None, cgroups=20, cpus=2,
           disks=2, io_cgroups=20, seed=None, kernel="6.1.0-18-amd64", sched=None):
    rng = random.Random(seed if seed is not None else hash((host_id, seq)))
    if start_ms is None:
        start_ms = now_ms() - interval_ms
    rep = {
        "schema": "schedio.report.v1",
        "seq": seq,
        "agent": {"version": "0.1.0"},
        "interval": {"start_ms": start_ms, "end_ms": start_ms + interval_ms},
        "host": {"id": host_id, "hostname": hostname or host_id, "kernel": kernel, "arch": "x86_64",
                 "cpus": cpus, "l3_domains": [list(range(cpus))]},
        "sched_ext": sched or {"state": "disabled", "ops": None},
    }
    if cgroups or cpus:
        rep["runqlat"] = {
            "layout": {"grouping_power": 4, "max_value_power": 36},
            "cgroups": [dict(path="/" if i == 0 else f"/system.slice/svc{i}.service", **hist(rng))
                        for i in range(cgroups)],
            "cpus": [dict(cpu=c, **hist(rng)) for c in range(cpus)],
        }
    if disks:
        devs = [f"253:{i * 16}" for i in range(disks)]
        rep["iocost"] = {
            "source": "weights",
            "disks": [{"dev": d, "name": f"vd{chr(97 + i)}", "model": "QEMU HARDDISK", "fwrev": "2.5+",
                       "size_bytes": 10737418240, "rotational": False, "enabled": True,
                       "vrate_pct": 100.0} for i, d in enumerate(devs)],
            "cgroups": [{"path": f"/workload{i}.slice", "dev": d, "weight": 100 * (1 + i % 3),
                         "usage_pct": 1.5 * i, "hweight_active_pct": 5.0, "hweight_inuse_pct": 4.5,
                         "wait_us": 10 * i, "indebt_us": 0, "indelay_us": i}
                        for d in devs for i in range(io_cgroups // disks)],
        }
    return rep


def body(rep, compress=True):
    data = json.dumps(rep).encode()
    return gzip.compress(data) if compress else data


def bucket_value(idx, g=4, n=36):
    """Value the server reports for bucket idx (the middle of its range), per bpf/hist.h."""
    def lower(i):
        if i < (1 << (g + 1)):
            return i
        h = (i >> g) + g - 1
        return ((1 << g) + (i & ((1 << g) - 1))) << (h - g)
    last = ((n - g + 1) << g) - 1
    lo = lower(idx)
    if idx >= last:
        return lo
    return lo + (lower(idx + 1) - 1 - lo) // 2


def quantile(buckets, q):
    """Nearest-rank quantile of {index: count}, as the server computes it."""
    import math
    total = sum(buckets.values())
    if not total:
        return 0
    rank = max(1, math.ceil(q * total))
    seen = 0
    for i in sorted(buckets):
        seen += buckets[i]
        if seen >= rank:
            return bucket_value(i)


def merge(*hists):
    """Adds [[index, count], ...] lists into {index: count}."""
    out = {}
    for h in hists:
        for i, c in h:
            out[i] = out.get(i, 0) + c
    return out
