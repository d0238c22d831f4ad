"""test_multi_server.py - scale-out on PostgreSQL (issue 10): two
schedio-servers started at once on one fresh database (they migrate it
once), report senders spread over both, one server killed with kill -9
mid-run and restarted on the same database. Senders behave like agents: a
report not acknowledged is retried, on the other server. Afterwards every
report is stored exactly once, a resend is a duplicate on either server, the
rollup and retention jobs are led by exactly one server, and both servers
answer every query identically. Runs only with SCHEDIO_TEST_DB_BACKEND=postgresql."""
import json
import os
import signal
import threading
import time
import unittest

import harness
from harness import Server, main, query
from report_factory import body, now_ms, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
HOSTS = [f"ms{i:02d}" for i in range(10)]
PER_HOST = 60
JOB_LOCKS = (0x73636865646970 + 1, 0x73636865646970 + 2)  # pg_conn.h PG_MIGRATE_LOCK + 1 + job


def lock_holders(db, key):
    """Backends holding the session advisory lock key (a bigint split into classid/objid) in this
    database (advisory locks are per database: other tests' databases hold their own)."""
    hi, lo = key >> 32, key & 0xFFFFFFFF
    return query(db, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                     "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                     f"AND classid = {hi} AND objid = {lo} AND objsubid = 1")[0][0]


class MultiServer(unittest.TestCase):
    def setUp(self):
        if harness.BACKEND != "postgresql":
            self.skipTest("needs SCHEDIO_TEST_DB_BACKEND=postgresql (a shared database)")

    def test_two_servers_kill9_every_report_once_same_answers(self):
        db = harness.pg_database()
        servers = [Server("--open-ingest", db=db), Server("--open-ingest", db=db)]
        starters = [threading.Thread(target=s.start) for s in servers]
        for t in starters:
            t.start()
        for t in starters:
            t.join()
        try:
            # Both started (neither failed on the other's half-made schema) and every migration ran once.
            files = sorted(f for f in os.listdir(os.path.join(harness.SOURCE, "schema", "postgresql"))
                           if f.endswith(".sql"))
            self.assertEqual(query(db, "SELECT version, name FROM schema_version ORDER BY version"),
                             [(int(f[:4]), f) for f in files])
            self.run_fleet(db, servers)
        finally:
            for s in servers:
                s.cleanup()

    def run_fleet(self, db, servers):
        t0 = (now_ms() - 10 * 60000) // 60000 * 60000
        acked = {h: set() for h in HOSTS}
        retries = [0]
        lock = threading.Lock()

        def send(i, host):
            for seq in range(1, PER_HOST + 1):
                rep = body(report(host, seq, start_ms=t0 + seq * 10000, cgroups=4, io_cgroups=4,
                                  seed=seq * 31 + i))
                attempt = 0
                while True:
                    s = servers[(seq + i + attempt) % 2]  # spread over both; a retry goes to the other
                    try:
                        url = s.url
                        r = harness.request(url, "POST", "/api/v1/reports", rep, GZ, timeout=10) if url else None
                        if r is not None and r.status == 200:
                            with lock:
                                acked[host].add(seq)
                            break
                    except OSError:
                        pass
                    attempt += 1
                    with lock:
                        retries[0] += 1
                    time.sleep(0.05)
                time.sleep(0.03)

        senders = [threading.Thread(target=send, args=(i, h)) for i, h in enumerate(HOSTS)]
        for t in senders:
            t.start()
        time.sleep(0.8)
        victim = servers[0]
        victim.stop(signal.SIGKILL, check=False)
        victim.url = None
        time.sleep(0.5)
        victim.start()
        for t in senders:
            t.join(timeout=120)
        print(f"{sum(len(v) for v in acked.values())} reports acknowledged, {retries[0]} retries")

        for h in HOSTS:
            self.assertEqual(acked[h], set(range(1, PER_HOST + 1)), h)
        # Exactly once: as many rows as distinct reports, none missing, none doubled.
        self.assertEqual(query(db, "SELECT count(*), count(DISTINCT (host_id, seq)) FROM reports")[0],
                         (len(HOSTS) * PER_HOST, len(HOSTS) * PER_HOST))
        self.assertEqual(query(db, "SELECT count(*) FROM hosts")[0][0], len(HOSTS))
        for s in servers:
            r = s.request("POST", "/api/v1/reports",
                          body(report(HOSTS[0], PER_HOST, start_ms=t0 + PER_HOST * 10000, cgroups=4, io_cgroups=4,
                                      seed=PER_HOST * 31)), GZ)
            self.assertEqual(r.json(), {"duplicate": True, "seq": PER_HOST})

        # One leader per background job, whichever server it is (the killed one's lock went with it).
        deadline = time.time() + 15
        while time.time() < deadline and any(lock_holders(db, k) != 1 for k in JOB_LOCKS):
            time.sleep(0.5)
        self.assertEqual([lock_holders(db, k) for k in JOB_LOCKS], [1, 1])

        to = t0 + (PER_HOST + 2) * 10000
        paths = ["/api/v1/hosts", "/api/v1/ssd/models", f"/api/v1/fleet/runqlat?from={t0}&to={to}",
                 f"/api/v1/fleet/runqlat?from={t0}&to={to}&group_by=kernel"]
        for h in HOSTS:
            paths += [f"/api/v1/hosts/{h}", f"/api/v1/hosts/{h}/reports?from=0&to={to}",
                      f"/api/v1/hosts/{h}/runqlat?from={t0}&to={to}", f"/api/v1/hosts/{h}/iocost?from={t0}&to={to}"]
        for p in paths:
            a, b = (s.request("GET", p) for s in servers)
            self.assertEqual(a.status, 200, f"{p}: {a.body[:200]!r}")
            self.assertEqual((b.status, json.loads(b.body)), (a.status, json.loads(a.body)), p)
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()
