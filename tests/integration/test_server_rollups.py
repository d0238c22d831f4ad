"""test_server_rollups.py - the background rollups and retention: minutes and
hours are merged by adding buckets (totals and percentiles equal the raw
data), a report arriving after its minute was rolled up redoes that minute,
and raw data past its retention is deleted while the rollups keep answering."""
import unittest

from harness import Server, main, query, wait_for
from report_factory import body, merge, now_ms, quantile, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
MIN = 60000
HOUR = 3600000


def rollup_rows(db, level):
    return query(db, f"SELECT count(*) FROM rollups WHERE level = {int(level)}")[0][0]


class Rollups(unittest.TestCase):
    def post(self, s, rep):
        r = s.request("POST", "/api/v1/reports", body(rep), GZ)
        self.assertEqual(r.status, 200, r.body)

    def test_minutes_roll_up_exactly_and_late_reports_redo_them(self):
        with Server("--open-ingest") as s:
            m0 = (now_ms() - 6 * MIN) // MIN * MIN  # well past the 2-minute grace
            sent = []
            for seq in range(1, 7):  # one minute: six 10 s reports
                rep = report("r1", seq, start_ms=m0 + (seq - 1) * 10000, cgroups=3, seed=seq)
                self.post(s, rep)
                sent.append(rep)
            want = merge(*[x["buckets"] for rep in sent for x in rep["runqlat"]["cpus"]])
            q = f"/api/v1/hosts/r1/runqlat?from={m0}&to={m0 + MIN}&step={MIN}"
            # reports that arrived while the minute was being rolled up are redone; wait for both
            wait_for(lambda: rollup_rows(s.db, 1) >= 1 and
                     dict(map(tuple, s.get_json(q)["series"][0]["buckets"])) == want)
            (pt,) = s.get_json(q)["series"]
            self.assertEqual(pt["p99_ns"], quantile(want, 0.99))
            fleet = s.get_json(f"/api/v1/fleet/runqlat?from={m0}&to={m0 + MIN}&step={MIN}")["groups"][0]
            self.assertEqual(fleet["series"][0]["count"], sum(want.values()))
            io = s.get_json(f"/api/v1/hosts/r1/iocost?from={m0}&to={m0 + MIN}&step={MIN}")
            self.assertEqual(io["disks"][0]["cgroups"][1]["series"][0]["wait_us"], 10 * 6)

            # a late report for the rolled-up minute is merged in by a redo
            late = report("r1", 100, start_ms=m0 + 5000, cgroups=3, seed=100)
            self.post(s, late)
            want2 = merge(*[list(want.items())], *[x["buckets"] for x in late["runqlat"]["cpus"]])
            wait_for(lambda: query(s.db, "SELECT count(*) FROM rollup_dirty")[0][0] == 0)
            wait_for(lambda: dict(map(tuple, s.get_json(q)["series"][0]["buckets"])) == want2)
            fleet = s.get_json(f"/api/v1/fleet/runqlat?from={m0}&to={m0 + MIN}&step={MIN}")["groups"][0]
            self.assertEqual(fleet["series"][0]["count"], sum(want2.values()))

    def test_raw_expires_and_hour_rollups_keep_answering(self):
        with Server("--open-ingest", "--retain-raw", "1h") as s:
            h0 = (now_ms() - 5 * HOUR) // HOUR * HOUR
            sent = []
            for host in ("old-a", "old-b"):
                for seq in range(1, 4):
                    rep = report(host, seq, start_ms=h0 + seq * 7 * MIN, cgroups=2, seed=seq)
                    self.post(s, rep)
                    sent.append(rep)
            want = merge(*[x["buckets"] for rep in sent for x in rep["runqlat"]["cpus"]])
            # raw reports older than the retention go, once rolled up
            wait_for(lambda: s.get_json(f"/api/v1/hosts/old-a/reports?from=0")["reports"] == [])
            wait_for(lambda: rollup_rows(s.db, 2) >= 2)
            # Every report here is late (older than the marks of a new database) and each is
            # redone on its own round: wait until the last redo is in, not just the first.
            fleet_q = f"/api/v1/fleet/runqlat?from={h0}&to={h0 + HOUR}&step={HOUR}"
            wait_for(lambda: query(s.db, "SELECT count(*) FROM rollup_dirty")[0][0] == 0 and
                     s.get_json(fleet_q)["groups"][0]["series"][0]["count"] == sum(want.values()))
            doc = s.get_json(fleet_q)
            (g,) = doc["groups"]
            self.assertEqual((g["key"], g["hosts"]), ("all", 2))
            self.assertEqual(g["series"][0]["count"], sum(want.values()))
            self.assertEqual(g["series"][0]["p50_ns"], quantile(want, 0.5))
            # a range past raw retention is answered from the minutes, never finer
            doc = s.get_json(f"/api/v1/hosts/old-b/runqlat?from={h0}&to={h0 + HOUR}")
            self.assertGreaterEqual(doc["step_ms"], MIN)
            self.assertEqual(len(doc["series"]), 3)
            self.assertEqual(query(s.db, "SELECT count(*) FROM reports")[0][0], 0)


if __name__ == "__main__":
    main()
