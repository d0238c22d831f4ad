"""test_server_sched_split.py - runqueue latency split by the scheduler that
ran each sample (runqlat.by_scheduler), through a real server: the fleet
query grouped by sched_ext gives each scheduler exactly its samples when a
scheduler was loaded in the middle of an interval, the whole-host answers
(fleet group_by=none, hosts list, host series, /metrics) still count every
sample once, ?sched= picks one scheduler of a host, the host detail lists
the schedulers that ran its samples (schedulers), bad splits are refused,
and the minute and hour rollups keep the split exactly.

Each part lies in its own bucket range, so a sample in the wrong group
moves that group's percentiles out of its range."""
import random
import re
import unittest

from harness import Server, main, query, wait_for
from report_factory import body, merge, now_ms, quantile

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
MIN = 60000
HOUR = 3600000
SCX = {"state": "enabled", "ops": "scx_fifo"}
OFF = {"state": "disabled", "ops": None}


def part(seed, lo, n=6):
    """A histogram of n buckets from lo: {"count", "sum_ns", "max_ns", "buckets"}."""
    rng = random.Random(seed)
    buckets = [[lo + i, rng.randrange(1, 30)] for i in range(n)]
    count = sum(c for _, c in buckets)
    return {"count": count, "sum_ns": count * 1000, "max_ns": 5000, "buckets": buckets}


def rep(host, seq, start, kernel, sched, parts, split=None):
    """A report whose CPUs are parts (one CPU each) and cgroup "/" their merge; split as
    runqlat.by_scheduler [(ops, part), ...] when given."""
    allb = merge(*[p["buckets"] for p in parts])
    r = {
        "schema": "schedio.report.v1", "seq": seq,
        "host": {"id": host, "hostname": host, "kernel": kernel, "cpus": len(parts)},
        "interval": {"start_ms": start, "end_ms": start + 10000},
        "sched_ext": sched,
        "runqlat": {
            "layout": {"grouping_power": 4, "max_value_power": 36},
            "cgroups": [{"path": "/", "count": sum(p["count"] for p in parts),
                         "buckets": sorted([i, c] for i, c in allb.items())}],
            "cpus": [dict(cpu=i, **p) for i, p in enumerate(parts)],
        },
    }
    if split is not None:
        r["runqlat"]["by_scheduler"] = [dict(ops=ops, **p) for ops, p in split]
    return r


class SchedSplit(unittest.TestCase):
    def post(self, s, r, status=200):
        resp = s.request("POST", "/api/v1/reports", body(r), GZ)
        self.assertEqual(resp.status, status, resp.body)
        return resp

    def post_set(self, s, t, seq):
        """Posts one 30 s window at t; returns {group: {bucket: count}} as it must come back
        and sw-a's two parts."""
        a_fair, a_scx = part(seq + 1, 20), part(seq + 2, 60)
        b_fair = part(seq + 3, 100)
        c_scx = part(seq + 4, 140)
        d_off, d_on = part(seq + 5, 30), part(seq + 6, 70)
        # sw-a: scx_fifo loaded in the middle of the interval (its state at the end: enabled)
        self.post(s, rep("sw-a", seq, t, "6.12.0-amd64", SCX, [a_fair, a_scx],
                         [(None, a_fair), ("scx_fifo", part(seq + 2, 60, 3)),
                          ("scx_fifo", {"count": a_scx["count"] - part(seq + 2, 60, 3)["count"],
                                        "buckets": a_scx["buckets"][3:]})]))
        # sw-b: an old kernel's fair class only; the split says nothing new
        self.post(s, rep("sw-b", seq, t, "5.15.0", OFF, [b_fair], [(None, b_fair)]))
        # old-c: an agent without by_scheduler; the whole report goes to its group
        self.post(s, rep("old-c", seq, t, "6.12.0-amd64", SCX, [c_scx]))
        # old-d: two old-style reports of one minute under different schedulers
        self.post(s, rep("old-d", seq, t + 10000, "6.12.0-amd64", OFF, [d_off]))
        self.post(s, rep("old-d", seq + 1, t + 20000, "6.12.0-amd64", SCX, [d_on]))
        b = lambda *ps: merge(*[p["buckets"] for p in ps])  # noqa: E731
        return {"eevdf": b(a_fair, d_off), "scx_fifo": b(a_scx, c_scx, d_on), "fair": b(b_fair)}, b(a_fair), b(a_scx)

    def check_fleet(self, s, frm, to, step, want, hosts=None):
        doc = s.get_json(f"/api/v1/fleet/runqlat?from={frm}&to={to}&step={step}&group_by=sched_ext")
        got = {g["key"]: g for g in doc["groups"]}
        self.assertEqual(sorted(got), sorted(want))
        for key, buckets in want.items():
            (pt,) = got[key]["series"]
            self.assertEqual(pt["count"], sum(buckets.values()), key)
            for q, name in ((0.5, "p50_ns"), (0.9, "p90_ns"), (0.99, "p99_ns")):
                self.assertEqual(pt[name], quantile(buckets, q), f"{key} {name}")
            if hosts:
                self.assertEqual(got[key]["hosts"], hosts[key], key)
        total = merge(*[list(b.items()) for b in want.values()])
        doc = s.get_json(f"/api/v1/fleet/runqlat?from={frm}&to={to}&step={step}&group_by=none")
        (g,) = doc["groups"]
        (pt,) = g["series"]
        self.assertEqual(pt["count"], sum(total.values()))  # each sample once
        self.assertEqual(pt["p99_ns"], quantile(total, 0.99))
        doc = s.get_json(f"/api/v1/fleet/runqlat?from={frm}&to={to}&step={step}&group_by=kernel")
        counts = {g["key"]: g["series"][0]["count"] for g in doc["groups"]}
        self.assertEqual(sum(counts.values()), sum(total.values()))
        self.assertEqual(counts["5.15.0"], sum(want["fair"].values()))

    def host_series(self, s, host, frm, to, step, extra=""):
        doc = s.get_json(f"/api/v1/hosts/{host}/runqlat?from={frm}&to={to}&step={step}{extra}")
        return {i: c for pt in doc["series"] for i, c in pt["buckets"]}

    def test_split_exact_raw_and_rolled_up(self):
        with Server("--open-ingest", "--metrics-per-host") as s:
            # a full hour well in the past (rolled up to minutes and the hour) ...
            h0 = (now_ms() - 3 * HOUR) // HOUR * HOUR
            old, old_fair, old_scx = self.post_set(s, h0 + 5 * MIN, 1)
            a2 = part(99, 80)
            self.post(s, rep("sw-a", 10, h0 + 20 * MIN, "6.12.0-amd64", SCX, [a2]))
            # ... and a recent minute: past the rollup grace, inside the hosts list's 5 minutes
            m0 = (now_ms() - 210000) // MIN * MIN
            new, a_fair, a_scx = self.post_set(s, m0, 20)

            # raw rows: the switched interval lands in both groups, each sample once
            self.check_fleet(s, m0, m0 + 30000, 30000, new, {"eevdf": 1, "scx_fifo": 3, "fair": 1})
            self.assertEqual(self.host_series(s, "sw-a", m0, m0 + 10000, 10000, "&sched=eevdf"), a_fair)
            self.assertEqual(self.host_series(s, "sw-a", m0, m0 + 10000, 10000, "&sched=scx_fifo"), a_scx)
            self.assertEqual(self.host_series(s, "sw-a", m0, m0 + 10000, 10000, "&sched=fair"), {})
            whole = self.host_series(s, "sw-a", m0, m0 + 10000, 10000)
            self.assertEqual(whole, merge(list(a_fair.items()), list(a_scx.items())))
            # old rows and single-scheduler reports answer ?sched= under their own group
            self.assertEqual(sorted(self.host_series(s, "old-c", m0, m0 + 10000, 10000, "&sched=scx_fifo")),
                             list(range(140, 146)))
            self.assertEqual(sorted(self.host_series(s, "sw-b", m0, m0 + 10000, 10000, "&sched=fair")),
                             list(range(100, 106)))
            for bad in ("&sched=eevdf&cgroup=/", "&sched=eevdf&cpu=0", "&sched="):
                r = s.request("GET", f"/api/v1/hosts/sw-a/runqlat?from={m0}&to={m0 + MIN}{bad}")
                self.assertEqual(r.status, 400, bad)

            # the host detail lists the scheduler groups that ran samples: both for the
            # hosts that switched (one by its split, one by two reports), one for the others
            self.check_schedulers(s)

            # whole-host answers count each sample once
            hosts = {h["id"]: h for h in s.get_json("/api/v1/hosts")["hosts"]}
            self.assertEqual(hosts["sw-a"]["runqlat"]["count"], sum(whole.values()))
            self.assertEqual(hosts["sw-a"]["runqlat"]["p99_ns"], quantile(whole, 0.99))
            metrics = s.request("GET", "/metrics").body.decode()
            m = re.search(r'^schedio_runqlat_seconds_count\{host="sw-a",id="sw-a"\} (\d+)$', metrics, re.M)
            # (summed over every report stored since the server started: the old hour's two and this one)
            self.assertEqual(int(m.group(1)), sum(old_fair.values()) + sum(old_scx.values()) + a2["count"] +
                             sum(whole.values()))

            # minutes: the fleet rollup of the recent minute keeps the split (old-d's two
            # schedulers in one minute included), and so do the old hour's minutes and hour
            wait_for(lambda: query(s.db, f"SELECT count(*) FROM fleet_rollups WHERE level = 1 AND t = {m0}")[0][0]
                     and query(s.db, "SELECT count(*) FROM rollup_dirty")[0][0] == 0)
            wait_for(lambda: query(s.db, f"SELECT count(*) FROM fleet_rollups WHERE level = 2 AND t = {h0}")[0][0]
                     and query(s.db, "SELECT count(*) FROM rollup_dirty")[0][0] == 0)
            self.check_fleet(s, m0, m0 + MIN, MIN, new, {"eevdf": 2, "scx_fifo": 3, "fair": 1})
            self.check_fleet(s, h0 + 5 * MIN, h0 + 6 * MIN, MIN, old, {"eevdf": 2, "scx_fifo": 3, "fair": 1})
            old["scx_fifo"] = merge(list(old["scx_fifo"].items()), a2["buckets"])
            self.check_fleet(s, h0, h0 + HOUR, HOUR, old, {"eevdf": 2, "scx_fifo": 3, "fair": 1})
            # the host rollups too: ?sched= on sw-a's hour, whole host once
            old_scx = merge(list(old_scx.items()), a2["buckets"])
            self.assertEqual(self.host_series(s, "sw-a", h0, h0 + HOUR, HOUR, "&sched=eevdf"), old_fair)
            self.assertEqual(self.host_series(s, "sw-a", h0, h0 + HOUR, HOUR, "&sched=scx_fifo"), old_scx)
            self.assertEqual(self.host_series(s, "sw-a", h0, h0 + HOUR, HOUR),
                             merge(list(old_fair.items()), list(old_scx.items())))
            # and once the rows are rolled up, the list is read from minutes and hours alike
            self.check_schedulers(s)

    def check_schedulers(self, s):
        want = {"sw-a": ["eevdf", "scx_fifo"], "old-d": ["eevdf", "scx_fifo"],
                "sw-b": ["fair"], "old-c": ["scx_fifo"]}

        def got():
            return {host: s.get_json(f"/api/v1/hosts/{host}")["schedulers"] for host in want}
        # Back-dated reports count once the rollup worker has redone their minutes
        # (the lists read minute rows up to the rollup mark): wait for that, then compare.
        wait_for(lambda: got() == want)
        self.assertEqual(got(), want)

    def test_bad_splits_are_refused_whole(self):
        with Server("--open-ingest") as s:
            t = now_ms() - 20000
            p, q = part(1, 20), part(2, 60)
            cases = [
                ([(None, p)], "runqlat.by_scheduler counts add up to"),
                ([(None, p), ("scx_fifo", dict(q, buckets=q["buckets"][1:]))], "runqlat.by_scheduler buckets"),
                ([(None, p), ("", q)], "runqlat.by_scheduler[1].ops"),
                ([(None, p), (7, q)], "runqlat.by_scheduler[1].ops"),
                ([(None, p), ("x" * 300, q)], "limit of 256 bytes"),
                ([(None, p), ("scx_fifo", q)] + [(f"s{i}", {"count": 0}) for i in range(63)],
                 "runqlat.by_scheduler has more than the limit of 64 entries"),
            ]
            for split, needle in cases:
                r = self.post(s, rep("bad", 1, t, "6.12.0", SCX, [p, q], split), 400)
                self.assertIn(needle, r.json()["error"])
            r = rep("bad", 1, t, "6.12.0", SCX, [p, q])
            r["runqlat"]["by_scheduler"] = {"ops": None}
            self.assertIn("by_scheduler must be an array", self.post(s, r, 400).json()["error"])
            self.assertEqual(s.get_json("/api/v1/hosts")["hosts"], [])  # nothing half-stored
            self.post(s, rep("bad", 1, t, "6.12.0", SCX, [p, q], [(None, p), ("scx_fifo", q)]))


if __name__ == "__main__":
    main()
