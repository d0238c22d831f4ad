#!/usr/bin/python3
"""bench_ssd.py - SSD database speed (issue 7), against a real server on
loopback with a real SQLite file:
  1. importing a ~1.5 MB resctl-bench result (POST /api/v1/ssd/results),
     median of several distinct files (each a shared result with padding
     appended to its JSON, so every import is new, not a duplicate);
     baseline: Python's own gunzip + json.loads of the same file;
  2. GET /api/v1/ssd/models with 10,001 models: the first page (default
     limit 200), the largest page (limit=1000), a search, and every page
     followed by next_offset, median of several; response sizes;
     baseline: GET /healthz on the same server.
Targets: import < 300 ms, model list (first page) < 100 ms and < 1 MiB, no page
over 1 MiB. Exits 1 when a target is missed.
Usage: tests/bench/bench_ssd.py [RUNS]   (SCHEDIO_BIN, SCHEDIO_DATA as for the tests)"""
import concurrent.futures
import glob
import gzip
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
NMODELS = 10000


def timed(fn, runs):
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out), out


def small_result(i):
    m = {"rbps": 1000 + i, "rseqiops": 10, "rrandiops": 20, "wbps": 500, "wseqiops": 5, "wrandiops": 6}
    q = {"rpct": 95.0, "rlat": 1000, "wpct": 95.0, "wlat": 2000, "min": 60.0, "max": 100.0}
    si = {"bench_version": "2.2.3", "sysreqs_report": {"scr_dev_model": f"Bench SSD {i:05d}", "scr_dev_fwrev": "FW1"}}
    return gzip.compress(json.dumps([{"spec": {"kind": "iocost-tune"}, "sysinfo": si, "result": {"solutions": {
        "naive": {"model": m, "qos": q}, "isolated-bandwidth": {"model": m, "qos": q}}}}]).encode())


def main():
    files = [f for f in glob.glob(os.path.join(harness.DATA, "resctl-bench", "*", "*", "*.json.gz"))
             if os.path.getsize(f) <= 1_700_000]
    if not files:
        print("bench_ssd: no resctl-bench results under $SCHEDIO_DATA; nothing to measure")
        return 0
    big = max(files, key=os.path.getsize)
    raw = gzip.open(big).read()
    # level 1 keeps the size near the shared file's own (upstream files are not maximally compressed)
    variants = [gzip.compress(raw[:-1] + b" " * (i + 1) + raw[-1:], 1) for i in range(RUNS)]
    ok = True
    with harness.Server() as srv:
        r = harness.run([harness.binary("schedio-server"), "token", "add", "--db", srv.db, "--scope", "submit", "b"])
        auth = {"Authorization": "Bearer " + r.stdout.strip().splitlines()[-1]}

        times = []
        for v in variants:
            t = time.perf_counter()
            r = srv.request("POST", "/api/v1/ssd/results", v, auth, timeout=60)
            times.append((time.perf_counter() - t) * 1000)
            assert r.status == 201, r.body[:200]
        imp = statistics.median(times)
        base, _ = timed(lambda: json.loads(gzip.decompress(variants[0])), 3)
        print(f"import {os.path.basename(big)} ({len(variants[0]) / 1e6:.2f} MB gzip, {len(raw) / 1e6:.1f} MB JSON): "
              f"median {imp:.1f} ms over {RUNS} (min {min(times):.1f}, max {max(times):.1f}); "
              f"baseline python gunzip+json.loads {base:.1f} ms, ratio {imp / base:.2f}  [target < 300 ms]")
        ok &= imp < 300

        t = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(4) as ex:
            statuses = list(ex.map(lambda i: srv.request("POST", "/api/v1/ssd/results", small_result(i), auth).status,
                                   range(NMODELS)))
        assert set(statuses) == {201}, set(statuses)
        fill = time.perf_counter() - t
        n = srv.get_json("/api/v1/ssd/models?limit=1")["total"]
        assert n == NMODELS + 1, n
        first = srv.request("GET", "/api/v1/ssd/models").body
        big = srv.request("GET", "/api/v1/ssd/models?limit=1000").body
        lst, _ = timed(lambda: srv.request("GET", "/api/v1/ssd/models"), RUNS * 2 + 1)
        lst1000, _ = timed(lambda: srv.request("GET", "/api/v1/ssd/models?limit=1000"), RUNS * 2 + 1)
        last, _ = timed(lambda: srv.request("GET", f"/api/v1/ssd/models?offset={n - 200}"), RUNS * 2 + 1)
        q, _ = timed(lambda: srv.request("GET", "/api/v1/ssd/models?q=SSD%200999"), RUNS * 2 + 1)
        hz, _ = timed(lambda: srv.request("GET", "/healthz"), RUNS * 2 + 1)
        sizes = []

        def walk():
            offset = 0
            sizes.clear()
            while offset is not None:
                r = srv.request("GET", f"/api/v1/ssd/models?limit=1000&offset={offset}")
                sizes.append(len(r.body))
                offset = json.loads(r.body)["next_offset"]
        every, _ = timed(walk, RUNS)
        print(f"GET /api/v1/ssd/models with {n} models, first page (200 models, {len(first) / 1e3:.1f} kB): "
              f"median {lst:.2f} ms; limit=1000 ({len(big) / 1e3:.1f} kB) {lst1000:.2f} ms; last page (offset {n - 200}) "
              f"{last:.2f} ms; ?q=SSD%200999 {q:.2f} ms; baseline GET /healthz {hz:.2f} ms, ratio {lst / hz:.0f}  "
              f"[target < 100 ms, < 1 MiB]")
        print(f"every model by next_offset, limit=1000: {len(sizes)} pages, median {every:.1f} ms in all, "
              f"largest page {max(sizes) / 1e3:.1f} kB")
        print(f"(filled {NMODELS} submissions over HTTP, 4 clients, in {fill:.1f} s: {NMODELS / fill:.0f}/s)")
        ok &= lst < 100 and len(first) < 1 << 20 and max(sizes) < 1 << 20
    print("bench_ssd: " + ("all targets met" if ok else "A TARGET WAS MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
