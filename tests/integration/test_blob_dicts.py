"""test_blob_dicts.py - zstd dictionaries for the reports' blobs (issue 18).
Two servers get the same reports: one trains its dictionaries on the first
40 (--blob-dict-samples 40, --blob-dict-grace 0), the other never does
(--blob-dict-samples 0). Once the first packs with them (its rows say so),
every answer about hosts, runqueue latency and iocost is the same on both,
and again after the first restarts and loads its dictionaries from the
database. A resend of a report packed with a dictionary is still a
duplicate. Runs on SQLite and on PostgreSQL; on PostgreSQL two servers share
one database too: only the rollup leader trains, and both read every row,
whichever of them packed it."""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from harness import Server, main, query, wait_for  # noqa: E402
from report_factory import now_ms  # noqa: E402
from test_golden_api import FLEET, synthetic_report  # noqa: E402

PER_HOST = 24
STEP_MS = 60000


def reports(t0):
    out = []
    for k in range(PER_HOST):
        for host, kernel, sched, model, fwrev in FLEET:
            out.append(synthetic_report(host, kernel, sched, model, fwrev, k + 1, t0 + k * STEP_MS))
    return out


def routes(t0, t1):
    # explicit windows: a default one ends at "now", which differs between the two servers
    paths = ["/api/v1/hosts", f"/api/v1/fleet/runqlat?from={t0}&to={t1}",
             f"/api/v1/fleet/runqlat?from={t0}&to={t1}&group_by=sched_ext",
             f"/api/v1/fleet/runqlat?from={t0}&to={t1}&step=600000&group_by=kernel"]
    for host, *_ in FLEET:
        paths += [f"/api/v1/hosts/{host}", f"/api/v1/hosts/{host}/reports?from={t0}&to={t1}",
                  f"/api/v1/hosts/{host}/runqlat?from={t0}&to={t1}",
                  f"/api/v1/hosts/{host}/runqlat?from={t0}&to={t1}&step=60000",
                  f"/api/v1/hosts/{host}/runqlat?from={t0}&to={t1}&cgroup=/system.slice/nginx.service",
                  f"/api/v1/hosts/{host}/runqlat?from={t0}&to={t1}&cpu=1",
                  f"/api/v1/hosts/{host}/iocost?from={t0}&to={t1}"]
    return paths


def dict_packed(db):
    """Rows whose series and whose iocost blob name a dictionary (marker 0x7d)."""
    if harness.is_pg(db):
        sql = ("SELECT count(*) FILTER (WHERE get_byte(series, 0) = 125), "
               "count(*) FILTER (WHERE get_byte(iocost, 0) = 125) FROM reports")
    else:
        sql = ("SELECT coalesce(sum(substr(series, 1, 1) = x'7d'), 0), "
               "coalesce(sum(substr(iocost, 1, 1) = x'7d'), 0) FROM reports")
    return query(db, sql)[0]


class BlobDictTest(unittest.TestCase):
    def post(self, srv, rep):
        r = srv.request("POST", "/api/v1/reports", json.dumps(rep).encode(),
                        {"Content-Type": "application/json"})
        return r.status, r.json() if r.body else None

    def answers(self, srv, paths):
        out = {}
        for p in paths:
            r = srv.request("GET", p)
            out[p] = (r.status, r.body)
        return out

    def test_answers_same_with_and_without_dictionaries(self):
        t0 = (now_ms() - 3 * 3600000) // 60000 * 60000
        reps = reports(t0)
        paths = routes(t0, t0 + PER_HOST * STEP_MS)
        with Server("--open-ingest", "--blob-dict-samples", "40", "--blob-dict-grace", "0") as a, \
                Server("--open-ingest", "--blob-dict-samples", "0") as b:
            first, rest = reps[:50], reps[50:]
            for rep in first:
                for srv in (a, b):
                    self.assertEqual(self.post(srv, rep)[0], 200)
            # The rollup worker trains both kinds and stores them; one round later they are in use.
            wait_for(lambda: query(a.db, "SELECT count(*) FROM blob_dicts")[0][0] == 2, 60, "dictionaries stored")
            self.assertEqual(query(b.db, "SELECT count(*) FROM blob_dicts")[0][0], 0)
            kinds = sorted(k for (k,) in query(a.db, "SELECT kind FROM blob_dicts"))
            self.assertEqual(kinds, [1, 2])
            time.sleep(6)  # a rollup round: the dictionaries, past their grace of 0, come into use
            for rep in rest:
                for srv in (a, b):
                    self.assertEqual(self.post(srv, rep)[0], 200)
            series, iocost = dict_packed(a.db)
            self.assertGreater(series, 0, "no series blob packed with a dictionary")
            self.assertGreater(iocost, 0, "no iocost blob packed with a dictionary")
            self.assertEqual(dict_packed(b.db), (0, 0))
            # a resend of a dictionary-packed report is a duplicate, as any
            status, body = self.post(a, rest[-1])
            self.assertEqual(status, 200)
            self.assertTrue(body.get("duplicate"), body)
            # Both servers settle (rollups) on the same answers, and so does the first once it
            # restarts (loading its dictionaries from the database; its rollup worker starts over).
            for status, _ in self.settle(a, b, paths).values():
                self.assertEqual(status, 200)
            a.stop()
            a.restart()
            self.settle(a, b, paths)

    def test_two_servers_on_one_database_share_the_dictionaries(self):
        if harness.BACKEND != "postgresql":
            self.skipTest("needs SCHEDIO_TEST_DB_BACKEND=postgresql (a database two servers share)")
        db = harness.pg_database()
        args = ("--open-ingest", "--blob-dict-samples", "40", "--blob-dict-grace", "8")
        t0 = (now_ms() - 3 * 3600000) // 60000 * 60000
        reps = reports(t0)
        paths = routes(t0, t0 + PER_HOST * STEP_MS)
        with Server(*args, db=db) as a, Server(*args, db=db) as b:
            # each server samples the reports it parses: the leader needs 40 of its own
            first, rest = reps[:90], reps[90:]
            for i, rep in enumerate(first):
                self.assertEqual(self.post((a, b)[i % 2], rep)[0], 200)
            wait_for(lambda: query(db, "SELECT count(*) FROM blob_dicts")[0][0] == 2, 60, "dictionaries stored")
            # past the grace and a round of each server: both pack with them
            time.sleep(8 + 6)
            for i, rep in enumerate(rest):
                self.assertEqual(self.post((a, b)[i % 2], rep)[0], 200)
            self.assertEqual(query(db, "SELECT count(*) FROM blob_dicts")[0][0], 2, "only the leader trains")
            self.assertEqual(dict_packed(db), (len(rest),) * 2)
            for status, _ in self.settle(a, b, paths).values():
                self.assertEqual(status, 200)

    def settle(self, a, b, paths):
        """The answers, once a's are b's; fails naming the first that differs."""
        want = got = None

        def same():
            nonlocal want, got
            want, got = self.answers(b, paths), self.answers(a, paths)
            return got == want
        try:
            wait_for(same, 60, "the same answers from both servers")
        except AssertionError:
            diff = [p for p in paths if got[p] != want[p]]
            self.fail(f"{len(diff)} answers differ, first {diff[0]}:\n{got[diff[0]][1][:2000]}\n"
                      f"{want[diff[0]][1][:2000]}")
        return want

if __name__ == "__main__":
    main()
