"""test_golden_api.py - every GET route's answer, byte for byte, against a
recording (tests/golden/api-<backend>.txt) made from the same fixed dataset
by the last commit before the server was rearranged into layers. A move of
code changes no behaviour; this test is how that is shown.

The dataset: the real agent report of the fuzz corpus, a synthetic fleet of
five hosts (six hours of reports, sched_ext splits, iocost disks whose model
is in the SSD database) and a fixed list of the shared resctl-bench results.
The server runs under libfaketime with a frozen wall clock (monotonic time
left real, so timeouts still work), so "now", ingest times and the default
query windows are the same in every run. It is loaded, stopped and started
again: the restart's first rollup pass rolls up and expires what is due, and
the answers are read once they no longer change.

Recorded with SCHEDIO_GOLDEN_RECORD=1 (writes the file instead of comparing);
a later recording is a change of behaviour and needs a reason in its commit.
Responses are recorded with status, the headers that carry meaning (not Date)
and the body (binary bodies as their length and SHA-256). One value is not
pinned: PostgreSQL's database size on /metrics, which moves with autovacuum.

On SQLite, reports' keys by host are staged and moved into place about once
a minute (schema/sqlite/0018); under the frozen clock nothing moves, so the
recording reads hosts' reports through the staging tables. A second run makes
the period zero, so that the idle writer moves every report's keys while the
answers are read, and holds it to the same recording (but the file's size,
which depends on where the keys are) and to every key moved in the end."""
import copy
import gzip
import hashlib
import json
import os
import random
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from harness import Server, main, query, wait_for  # noqa: E402

FAKE_NOW = "2027-01-01 00:00:00"  # libfaketime's frozen wall clock, UTC
NOW_MS = 1798761600000
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
GOLDEN_DIR = os.path.join(harness.SOURCE, "tests", "golden")
AGENT_REPORT = os.path.join(harness.SOURCE, "tests", "fuzz", "corpus", "fuzz_server_report", "agent_report.json")
SSD_FILES = [
    "2.1/KXG6AZNV512G_TOSHIBA/merged-results.json.gz",
    "2.1/SKhynix_Phoenix/merged-results.json.gz",
    "2.1/SKhynix_Phoenix/result-3f744f3c6a196cc8cd65db0fd2162ab7.json.gz",
    "2.2/Fanxiang_S500Pro_1TB/result-991a666f8129a5a9083c0571f4ed2095.json.gz",
    "2.2/INTEL_SSDPEKKA256G7/result-4170ede4ef4102003c24e1d17329a8b4.json.gz",
    "2.2/Samsung_SSD_970_EVO_500GB/result-2e27bb67d0f66925d52afd2426f5befd.json.gz",
    "2.2/Samsung_SSD_970_EVO_500GB/result-6fad2ce0b75a19ba7db88309618b8a1f.json.gz",
]
HEADERS = ("content-type", "cache-control", "allow", "etag", "content-disposition", "content-encoding",
           "retry-after", "www-authenticate", "vary")
# Five synthetic hosts: (id, kernel, sched_ext, disk model, disk firmware)
FLEET = [
    ("web-1", "6.1.0-18-amd64", None, "Samsung SSD 970 EVO 500GB", "2B2QEXE7"),
    ("web-2", "6.1.0-18-amd64", None, "Samsung SSD 970 EVO 500GB", "OTHERFW"),
    ("db-1", "6.12.0-amd64", "scx_fifo", "Fanxiang S500Pro 1TB", "SN10245"),
    ("batch-1", "7.2.0-1-amd64", "scx_l3", "INTEL SSDPEKKA256G7", "PSF119D"),
    ("batch-2", "7.2.0-1-amd64", "scx_l3", "Unknown Disk 9000", "1.0"),
]
REPORTS_PER_HOST = 36  # every 10 minutes for six hours, the last ending 10 s before NOW
STEP_MS = 600000


def hist(rng, nbuckets, lo):
    start = rng.randrange(lo, lo + 30)
    buckets = [[start + i, rng.randrange(1, 30)] for i in range(nbuckets)]
    count = sum(c for _, c in buckets)
    return {"count": count, "sum_ns": count * 40000 + rng.randrange(1000), "max_ns": 3000000, "buckets": buckets}


def synthetic_report(host, kernel, sched, model, fwrev, seq, start_ms):
    rng = random.Random(f"{host}/{seq}")
    cpus = [dict(cpu=c, **hist(rng, 12, 60 + 10 * c)) for c in range(2)]
    rep = {
        "schema": "schedio.report.v1",
        "seq": seq,
        "agent": {"version": "0.1.0"},
        "interval": {"start_ms": start_ms, "end_ms": start_ms + 10000},
        "host": {"id": host, "hostname": host + ".example", "kernel": kernel, "arch": "x86_64", "cpus": 2,
                 "l3_domains": [{"cpus": [0, 1], "size_kb": 32768}]},
        "sched_ext": {"state": "enabled", "ops": sched} if sched else {"state": "disabled", "ops": None},
        "runqlat": {
            "layout": {"grouping_power": 4, "max_value_power": 36},
            "cgroups": [dict(path=p, **hist(rng, 10, 70)) for p in
                        ("/", "/system.slice/nginx.service", "/system.slice/postgres.service", "/user.slice")],
            "cpus": cpus,
        },
        "iocost": {
            "source": "weights",
            "disks": [{"dev": "259:0", "name": "nvme0n1", "model": model, "fwrev": fwrev,
                       "size_bytes": 500107862016, "rotational": False, "enabled": True, "vrate_pct": 95.5}],
            "cgroups": [{"path": p, "dev": "259:0", "weight": w, "usage_pct": round(rng.uniform(0, 60), 2),
                         "hweight_active_pct": round(rng.uniform(10, 60), 2),
                         "hweight_inuse_pct": round(rng.uniform(10, 60), 2), "wait_us": rng.randrange(5000),
                         "indebt_us": rng.randrange(100), "indelay_us": rng.randrange(100)}
                        for p, w in (("/system.slice", 100), ("/workload.slice", 500), ("/user.slice", 50))],
        },
    }
    if sched:
        # Split the host's samples between the fair class (ops null) and the
        # sched_ext scheduler, bucket by bucket, so the split adds up.
        total = {}
        for c in cpus:
            for i, n in c["buckets"]:
                total[i] = total.get(i, 0) + n
        fair, scx = [], []
        for i in sorted(total):
            k = total[i] // 3
            if k:
                fair.append([i, k])
            if total[i] - k:
                scx.append([i, total[i] - k])
        rep["runqlat"]["by_scheduler"] = [
            {"ops": None, "count": sum(n for _, n in fair), "buckets": fair},
            {"ops": sched, "count": sum(n for _, n in scx), "buckets": scx},
        ]
    return rep


def dataset():
    """The reports to send, in order."""
    reps = []
    with open(AGENT_REPORT) as f:
        real = json.load(f)
    for k in range(3):
        r = copy.deepcopy(real)
        length = r["interval"]["end_ms"] - r["interval"]["start_ms"]
        r["seq"] = real["seq"] + k
        r["interval"]["start_ms"] = NOW_MS - (25 - 10 * k) * 60000
        r["interval"]["end_ms"] = r["interval"]["start_ms"] + length
        reps.append(r)
    for k in range(REPORTS_PER_HOST):
        for host, kernel, sched, model, fwrev in FLEET:
            start = NOW_MS - (REPORTS_PER_HOST - 1 - k) * STEP_MS - 20000
            reps.append(synthetic_report(host, kernel, sched, model, fwrev, k + 1, start))
    return reps


def routes(ssd_ids):
    """Every GET the golden covers: each route, its parameters and its errors."""
    h = ["3d1219c7c4c5404aaa1f6d2a48adfda4"] + [f[0] for f in FLEET]
    six_h = NOW_MS - 6 * 3600000
    paths = ["/healthz", "/metrics", "/api/v1/hosts", "/api/v1/hosts?q=web", "/api/v1/hosts?q=WEB-",
             "/api/v1/hosts?q=nothing-matches", "/api/v1/hosts/no-such-host", "/api/v1/hosts/no-such-host/runqlat"]
    for host in h:
        paths += [f"/api/v1/hosts/{host}", f"/api/v1/hosts/{host}/reports",
                  f"/api/v1/hosts/{host}/reports?from=0",
                  f"/api/v1/hosts/{host}/runqlat", f"/api/v1/hosts/{host}/runqlat?from={six_h}&to={NOW_MS}",
                  f"/api/v1/hosts/{host}/runqlat?from={six_h}&to={NOW_MS}&step=3600000",
                  f"/api/v1/hosts/{host}/iocost", f"/api/v1/hosts/{host}/iocost?from={six_h}&to={NOW_MS}"]
    paths += [
        f"/api/v1/hosts/web-1/runqlat?from={six_h}&to={NOW_MS}&step=60000",
        "/api/v1/hosts/web-1/runqlat?cgroup=/system.slice/nginx.service",
        "/api/v1/hosts/web-1/runqlat?cgroup=/no/such/cgroup",
        "/api/v1/hosts/web-1/runqlat?cpu=0", "/api/v1/hosts/web-1/runqlat?cpu=0,1", "/api/v1/hosts/web-1/runqlat?cpu=x",
        "/api/v1/hosts/db-1/runqlat?sched=scx_fifo", "/api/v1/hosts/db-1/runqlat?sched=eevdf",
        f"/api/v1/hosts/db-1/runqlat?sched=scx_fifo&from={six_h}&to={NOW_MS}&step=1800000",
        "/api/v1/hosts/batch-1/runqlat?sched=nope",
        "/api/v1/hosts/web-1/runqlat?from=abc", "/api/v1/hosts/web-1/runqlat?from=10&to=5",
        "/api/v1/hosts/web-1/runqlat?step=0", "/api/v1/hosts/web-1/runqlat?step=1",
        f"/api/v1/hosts/web-1/reports?from={NOW_MS - 3600000}&to={NOW_MS}",
        "/api/v1/fleet/runqlat", "/api/v1/fleet/runqlat?group_by=sched_ext", "/api/v1/fleet/runqlat?group_by=kernel",
        "/api/v1/fleet/runqlat?group_by=none", "/api/v1/fleet/runqlat?group_by=bogus",
        f"/api/v1/fleet/runqlat?from={six_h}&to={NOW_MS}&group_by=sched_ext",
        f"/api/v1/fleet/runqlat?from={six_h}&to={NOW_MS}&step=3600000&group_by=kernel",
        "/api/v1/ssd/models", "/api/v1/ssd/models?q=samsung", "/api/v1/ssd/models?q=PSF119",
        "/api/v1/ssd/models?limit=2", "/api/v1/ssd/models?limit=2&offset=2", "/api/v1/ssd/models?limit=0",
        "/api/v1/ssd/models?offset=-1", "/api/v1/ssd/models?q=%25_",
        "/api/v1/ssd/hwdb", "/api/v1/ssd/hwdb?model=Samsung_SSD_970_EVO_500GB", "/api/v1/ssd/hwdb?model=%01bad",
        "/api/v1/ssd/models/No_Such_Model", "/api/v1/ssd/results/00000000000000000000000000000000",
        "/api/v1/ssd/results/xyz", "/api/v1/nope", "/api/v2/hosts", "/api/v1/reports",
    ]
    for model in ("Samsung_SSD_970_EVO_500GB", "Samsung SSD 970 EVO 500GB", "KXG6AZNV512G_TOSHIBA",
                  "SKhynix_Phoenix", "Fanxiang_S500Pro_1TB", "INTEL_SSDPEKKA256G7"):
        m = model.replace(" ", "%20")
        paths += [f"/api/v1/ssd/models/{m}", f"/api/v1/ssd/models/{m}/config",
                  f"/api/v1/ssd/models/{m}/config?dev=259:0", f"/api/v1/ssd/models/{m}/config?dev=bad",
                  f"/api/v1/ssd/models/{m}/config?solution=naive", f"/api/v1/ssd/models/{m}/config?solution=nope"]
    paths += ["/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB?fwrev=2B2QEXE7",
              "/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB?fwrev=NONE"]
    for rid in ssd_ids:
        paths += [f"/api/v1/ssd/results/{rid}", f"/api/v1/ssd/results/{rid}/file"]
    return paths


def without_size(text):
    """text with the SQLite file's size on /metrics left out: it depends on where the keys are."""
    return re.sub(r"^schedio_database_size_bytes \d+$", "schedio_database_size_bytes <where-the-rows-are>", text,
                  flags=re.M)


def record(srv, paths):
    out = []
    for p in paths:
        r = srv.request("GET", p, timeout=60)
        lines = [f"GET {p}", f"status {r.status}"]
        for name in HEADERS:
            if r.header(name) is not None:
                lines.append(f"{name}: {r.header(name)}")
        body = r.body
        try:
            text = body.decode("utf-8")
            binary = "\x00" in text or body[:2] == b"\x1f\x8b"
        except UnicodeDecodeError:
            binary = True
        if harness.BACKEND == "postgresql" and p == "/metrics" and not binary:
            # pg_database_size counts files autovacuum adds (free space and
            # visibility maps) whenever it happens to run: not ours to pin.
            text = re.sub(r"^schedio_database_size_bytes \d+$", "schedio_database_size_bytes <autovacuum-dependent>",
                          text, flags=re.M)
        if binary:
            lines.append(f"body: {len(body)} bytes, sha256 {hashlib.sha256(body).hexdigest()}")
        else:
            lines.append("body:")
            lines.append(text)
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


class GoldenApiTest(unittest.TestCase):
    def answers(self, extra_env=None):
        """The recording of every GET route after the dataset is loaded and the server restarted,
        and the server's database file (removed by cleanup: read it before)."""
        if not os.path.exists(LIBFAKETIME):
            self.fail("libfaketime is missing (Debian package faketime; deploy/install-deps.sh installs it)")
        for f in SSD_FILES:
            if not os.path.exists(os.path.join(harness.DATA, "resctl-bench", f)):
                self.fail(f"shared result {f} is missing under {harness.DATA}")
        env = dict(os.environ, LD_PRELOAD=LIBFAKETIME, FAKETIME=FAKE_NOW, FAKETIME_DONT_FAKE_MONOTONIC="1",
                   TZ="UTC", ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0",
                   **(extra_env or {}))
        old = dict(os.environ)
        os.environ.update(env)  # the server and `schedio-server token` inherit the frozen clock
        srv = Server("--open-ingest", "--retain-raw", "2h")
        try:
            srv.start()
            token = srv.add_token("golden", scope="submit")
            for rep in dataset():
                r = srv.request("POST", "/api/v1/reports", gzip.compress(json.dumps(rep).encode(), mtime=0),
                                {"Content-Type": "application/json", "Content-Encoding": "gzip"})
                self.assertEqual(r.status, 200, r.body[:300])
            ids = []
            for f in SSD_FILES:
                with open(os.path.join(harness.DATA, "resctl-bench", f), "rb") as fh:
                    r = srv.request("POST", "/api/v1/ssd/results", fh.read(),
                                    {"Authorization": "Bearer " + token}, timeout=120)
                self.assertIn(r.status, (200, 201), r.body[:300])
                ids.append(r.json()["id"])
            srv.stop()
            srv.restart()
            paths = routes(ids)
            got, deadline = record(srv, paths), time.time() + 60
            while True:
                time.sleep(1.5)
                again = record(srv, paths)
                if again == got:
                    break
                self.assertLess(time.time(), deadline, "answers did not settle after the restart's rollups")
                got = again
            staged = None
            if harness.BACKEND == "sqlite":
                def stage():
                    return query(srv.db, "SELECT (SELECT count(*) FROM reports_stage0) + "
                                         "(SELECT count(*) FROM reports_stage1), count(*) FROM reports")[0]
                staged = stage()
                if extra_env:  # read again once the idle writer has moved every report
                    moving = got
                    wait_for(lambda: stage()[0] == 0, timeout=60, what="the staged report keys to move")
                    if "SCHEDIO_SQLITE_CHUNK_MIN" in extra_env:  # and the rollup worker chunked them
                        def chunked():
                            return query(srv.db, "SELECT (SELECT count(*) FROM report_chunks), "
                                                 "(SELECT coalesce(sum(n), 0) FROM report_chunks), "
                                                 "(SELECT count(*) FROM reports), "
                                                 "(SELECT count(*) FROM reports r WHERE NOT EXISTS (SELECT 1 "
                                                 "FROM report_times t WHERE t.host_id = r.host_id AND "
                                                 "t.start_ms = r.start_ms AND t.id = r.id))")[0]
                        wait_for(lambda: chunked()[0] > 0, timeout=60, what="the raw rows to be chunked")
                        last, t = chunked(), time.time()
                        while time.time() - t < 3:
                            time.sleep(0.5)
                            now = chunked()
                            if now != last:
                                last, t = now, time.time()
                        self.chunked = last
                    staged, got = stage(), record(srv, paths)
                    self.assertEqual(without_size(moving), without_size(got),
                                     "answers changed as the staged report keys moved")
            srv.stop()
        finally:
            os.environ.clear()
            os.environ.update(old)
            srv.cleanup()
        return got, staged

    def test_every_get_route_answers_as_recorded(self):
        got, _ = self.answers()
        path = os.path.join(GOLDEN_DIR, f"api-{harness.BACKEND}.txt")
        if os.environ.get("SCHEDIO_GOLDEN_RECORD") == "1":
            os.makedirs(GOLDEN_DIR, exist_ok=True)
            with open(path, "w") as f:
                f.write(got)
            print(f"recorded {got.count(chr(10) + 'GET ') + 1} answers into {path}")
            return
        with open(path) as f:
            want = f.read()
        if got != want:
            import difflib
            diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "recorded", "now"))[:200])
            self.fail("API answers differ from the recording:\n" + diff)

    def assert_as_recorded_but_size(self, got, when):
        """got is SQLite's recording but for the file's size, which depends on where the rows are."""
        with open(os.path.join(GOLDEN_DIR, "api-sqlite.txt")) as f:
            want = f.read()
        got, want = without_size(got), without_size(want)
        if got != want:
            import difflib
            diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "recorded", "now"))[:200])
            self.fail(f"API answers differ from the recording {when}:\n" + diff)

    def test_same_answers_while_staged_reports_move(self):
        if harness.BACKEND != "sqlite":
            self.skipTest("staged report keys are SQLite's (schema/sqlite/0018)")
        got, (staged, stored) = self.answers({"SCHEDIO_SQLITE_STAGE_MS": "0"})
        self.assertGreater(stored, 0)
        self.assertEqual(staged, 0, "the idle writer left report keys in the staging tables")
        self.assert_as_recorded_but_size(got, "once the staged report keys moved")

    def test_same_answers_from_chunked_raw_reports(self):
        """Issue 18: with every old enough raw row moved into chunks (schema/sqlite/0020) and the
        chunked rows swept, each answer is the one recorded from rows."""
        if harness.BACKEND != "sqlite":
            self.skipTest("chunked raw reports are SQLite's (schema/sqlite/0020)")
        got, (staged, stored) = self.answers({"SCHEDIO_SQLITE_STAGE_MS": "0", "SCHEDIO_SQLITE_CHUNK_AFTER_MS": "0",
                                              "SCHEDIO_SQLITE_CHUNK_MIN": "1", "SCHEDIO_SQLITE_CHUNK_PERIOD_MS": "0",
                                              "SCHEDIO_SQLITE_CHUNK_SWEEP_MS": "0"})
        chunks, in_chunks, rows, waiting = self.chunked
        print(f"{chunks} chunks hold {in_chunks} reports; {rows} reports are rows")
        self.assertGreater(in_chunks, 0)
        self.assertGreater(rows, 0, "the newest reports, not yet rolled up, stay rows")
        self.assertEqual(waiting, 0, "chunked rows were left for the sweep")
        self.assert_as_recorded_but_size(got, "once raw reports are chunked")

    def test_same_answers_from_chunked_rows_not_yet_swept(self):
        """Issue 18: a chunked row leaves its keys at once and its row only when the sweep passes it
        (report_chunks.c); until then every read by time alone leaves it out."""
        if harness.BACKEND != "sqlite":
            self.skipTest("chunked raw reports are SQLite's (schema/sqlite/0020)")
        got, _ = self.answers({"SCHEDIO_SQLITE_STAGE_MS": "0", "SCHEDIO_SQLITE_CHUNK_AFTER_MS": "0",
                               "SCHEDIO_SQLITE_CHUNK_MIN": "1", "SCHEDIO_SQLITE_CHUNK_PERIOD_MS": "0",
                               "SCHEDIO_SQLITE_CHUNK_SWEEP_MS": str(3650 * 86400 * 1000)})
        chunks, in_chunks, rows, waiting = self.chunked
        print(f"{chunks} chunks hold {in_chunks} reports; {rows} rows, {waiting} of them chunked")
        self.assertGreater(in_chunks, 0)
        self.assertGreater(waiting, 0, "no chunked row waits for the sweep")
        self.assert_as_recorded_but_size(got, "once raw reports are chunked, their rows not yet swept")


if __name__ == "__main__":
    main()
