"""test_server_queries.py - the query API answers with the shapes of the API
contract and with numbers that match what was ingested: percentiles from
merged buckets, CPU and cgroup selection, fleet groups, iocost series, the
hosts list, and /metrics."""
import unittest
import urllib.parse

from harness import Server, main
from report_factory import body, merge, now_ms, quantile, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}


class Queries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Server("--open-ingest", "--metrics-per-host").start()
        # Points of the 20 s step line up with reports; the last report ends 20-40 s ago, well inside
        # the 60 s before a host counts as stale even on a slow (sanitizer) run.
        cls.t0 = (now_ms() - 40000) // 20000 * 20000
        cls.sent = {}
        hosts = [("qa", "6.1.0-18-amd64", None), ("qb", "6.8.0-1-amd64", None),
                 ("qc", "6.12.0", {"state": "enabled", "ops": "rusty"})]
        for host, kernel, sched in hosts:
            for seq in (1, 2):
                rep = report(host, seq, start_ms=cls.t0 + (seq - 1) * 10000, kernel=kernel, sched=sched,
                             cgroups=4, seed=seq * 7 + len(host))
                cls.sent[(host, seq)] = rep
                r = cls.s.request("POST", "/api/v1/reports", body(rep), GZ)
                assert r.status == 200, r.body

    @classmethod
    def tearDownClass(cls):
        cls.s.stop()
        cls.s.cleanup()

    def host_buckets(self, host, part="cpus", pick=None):
        hs = []
        for (h, _), rep in self.sent.items():
            if h == host:
                hs += [x["buckets"] for x in rep["runqlat"][part] if pick is None or pick(x)]
        return merge(*hs)

    def test_hosts_list_shape_and_recent_percentiles(self):
        hosts = self.s.get_json("/api/v1/hosts")["hosts"]
        self.assertEqual([h["id"] for h in hosts], ["qa", "qb", "qc"])
        qa = [h for h in hosts if h["id"] == "qa"][0]
        self.assertEqual(set(qa), {"id", "hostname", "kernel", "cpus", "sched_ext", "last_seen_ms", "stale",
                                   "agent_restarted_ms", "runqlat", "disks"})
        self.assertIsNone(qa["agent_restarted_ms"])
        b = self.host_buckets("qa")
        self.assertEqual(qa["runqlat"], {"p50_ns": quantile(b, 0.5), "p99_ns": quantile(b, 0.99),
                                         "count": sum(b.values())})
        self.assertFalse(qa["stale"])
        self.assertEqual(qa["disks"][0]["iocost_enabled"], True)
        self.assertEqual(qa["disks"][0]["recommendation"], "no_data")  # no SSD results for this model
        self.assertEqual([h for h in hosts if h["id"] == "qc"][0]["sched_ext"], {"state": "enabled", "ops": "rusty"})
        self.assertEqual([h["id"] for h in self.s.get_json("/api/v1/hosts?q=QB")["hosts"]], ["qb"])

    def test_host_detail_shape(self):
        h = self.s.get_json("/api/v1/hosts/qa")
        for k in ("id", "hostname", "kernel", "arch", "cpus", "l3_domains", "sched_ext", "last_seen_ms",
                  "agent_version", "disks", "cgroups"):
            self.assertIn(k, h)
        self.assertEqual(h["l3_domains"], [[0, 1]])
        d = h["disks"][0]
        self.assertEqual((d["dev"], d["model"], d["fwrev"], d["rotational"]), ("253:0", "QEMU HARDDISK", "2.5+", False))
        self.assertEqual(set(d["iocost"]), {"enabled", "model", "qos"})
        self.assertEqual(h["cgroups"], sorted(["/"] + [f"/system.slice/svc{i}.service" for i in range(1, 4)]))

    def test_host_runqlat_merges_exactly(self):
        q = f"from={self.t0}&to={self.t0 + 20000}&step=20000"
        doc = self.s.get_json(f"/api/v1/hosts/qa/runqlat?{q}")
        self.assertEqual(doc["layout"], {"grouping_power": 4, "max_value_power": 36})
        self.assertEqual(doc["step_ms"], 20000)
        (pt,) = doc["series"]
        b = self.host_buckets("qa")
        self.assertEqual(dict((i, c) for i, c in pt["buckets"]), b)
        for q_, k in ((0.5, "p50_ns"), (0.9, "p90_ns"), (0.99, "p99_ns"), (0.999, "p999_ns")):
            self.assertEqual(pt[k], quantile(b, q_))
        self.assertEqual(pt["max_ns"], 4000000)
        cpu0 = self.s.get_json(f"/api/v1/hosts/qa/runqlat?{q}&cpu=0")["series"][0]
        self.assertEqual(dict(map(tuple, cpu0["buckets"])), self.host_buckets("qa", pick=lambda x: x["cpu"] == 0))
        both = self.s.get_json(f"/api/v1/hosts/qa/runqlat?{q}&cpu=0,1")["series"][0]
        self.assertEqual(dict(map(tuple, both["buckets"])), b)
        cg = "/system.slice/svc2.service"
        one = self.s.get_json(f"/api/v1/hosts/qa/runqlat?{q}&cgroup=" + urllib.parse.quote(cg))["series"][0]
        self.assertEqual(dict(map(tuple, one["buckets"])),
                         self.host_buckets("qa", "cgroups", lambda x: x["path"] == cg))
        fine = self.s.get_json(f"/api/v1/hosts/qa/runqlat?from={self.t0}&to={self.t0 + 20000}&step=10000")
        self.assertEqual([p["t"] for p in fine["series"]], [self.t0 - self.t0 % 10000 + k * 10000 for k in (0, 1)]
                         if self.t0 % 10000 == 0 else [p["t"] for p in fine["series"]])
        self.assertEqual(sum(p["count"] for p in fine["series"]), pt["count"])

    def test_fleet_groups(self):
        q = f"from={self.t0}&to={self.t0 + 20000}&step=20000"
        doc = self.s.get_json(f"/api/v1/fleet/runqlat?{q}&group_by=sched_ext")
        self.assertEqual(doc["group_by"], "sched_ext")
        groups = {g["key"]: g for g in doc["groups"]}
        self.assertEqual(set(groups), {"fair", "eevdf", "rusty"})
        self.assertEqual(groups["rusty"]["hosts"], 1)
        b = self.host_buckets("qc")
        self.assertEqual(groups["rusty"]["series"][0]["p99_ns"], quantile(b, 0.99))
        doc = self.s.get_json(f"/api/v1/fleet/runqlat?{q}&group_by=none")
        (g,) = doc["groups"]
        self.assertEqual((g["key"], g["hosts"]), ("all", 3))
        allb = merge(*[list(self.host_buckets(h).items()) for h in ("qa", "qb", "qc")])
        self.assertEqual(g["series"][0]["p50_ns"], quantile(allb, 0.5))
        self.assertEqual(g["series"][0]["count"], sum(allb.values()))
        keys = {g["key"] for g in self.s.get_json(f"/api/v1/fleet/runqlat?{q}&group_by=kernel")["groups"]}
        self.assertEqual(keys, {"6.1.0-18-amd64", "6.8.0-1-amd64", "6.12.0"})

    def test_iocost_series(self):
        q = f"from={self.t0}&to={self.t0 + 20000}&step=20000"
        doc = self.s.get_json(f"/api/v1/hosts/qa/iocost?{q}")
        self.assertEqual([d["dev"] for d in doc["disks"]], ["253:0", "253:16"])
        d = doc["disks"][0]
        self.assertEqual(d["vrate_pct"][0]["v"], 100)
        cg = {c["path"]: c for c in d["cgroups"]}["/workload1.slice"]["series"][0]
        self.assertEqual(cg["weight"], 200)
        self.assertEqual(cg["usage_pct"], 1.5)
        self.assertEqual(cg["hweight_inuse_pct"], 4.5)
        self.assertEqual(cg["wait_us"], 20)  # summed over the two reports in the step
        self.assertEqual(set(cg), {"t", "weight", "hweight_active_pct", "hweight_inuse_pct", "usage_pct",
                                   "wait_us", "indebt_us", "indelay_us"})

    def test_reports_list_sorted_by_seq(self):
        reps = self.s.get_json(f"/api/v1/hosts/qb/reports?from={self.t0 - 1}")["reports"]
        self.assertEqual(reps, [{"seq": 1, "start_ms": self.t0, "end_ms": self.t0 + 10000, "dropped": 0},
                                {"seq": 2, "start_ms": self.t0 + 10000, "end_ms": self.t0 + 20000, "dropped": 0}])

    def test_bad_query_parameters_are_400(self):
        for path in ("/api/v1/hosts/qa/runqlat?step=abc", "/api/v1/hosts/qa/runqlat?from=10&to=5",
                     f"/api/v1/hosts/qa/runqlat?from={self.t0 - 3600000}&to={self.t0}&step=1", "/api/v1/fleet/runqlat?group_by=os",
                     "/api/v1/hosts/qa/runqlat?cpu=zero", "/api/v1/hosts/qa/iocost?from=-5",
                     "/api/v1/hosts/qa/reports?to=x"):
            with self.subTest(path):
                r = self.s.request("GET", path)
                self.assertEqual(r.status, 400, r.body)
                self.assertIn("error", r.json())

    def test_metrics_exposes_counters_and_per_host_series(self):
        r = self.s.request("GET", "/metrics")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("content-type").startswith("text/plain"))
        text = r.body.decode()
        for needle in ("schedio_reports_accepted_total 6\n", "schedio_ingest_latency_seconds_count 6\n",
                       "# TYPE schedio_runqlat_seconds histogram", "schedio_database_size_bytes ",
                       'schedio_runqlat_seconds_bucket{host="qa",id="qa",le="+Inf"} ',
                       'schedio_iocost_usage_pct{host="qa",id="qa",dev="253:0",cgroup="/workload1.slice"} 1.5',
                       'schedio_iocost_hweight_inuse_pct{host="qa"'):
            self.assertIn(needle, text)
        # runqueue latency counts every report stored since the server started: qa's two, and the fleet's six
        total = sum(self.host_buckets("qa").values())
        self.assertIn(f'schedio_runqlat_seconds_count{{host="qa",id="qa"}} {total}\n', text)
        fleet = sum(sum(self.host_buckets(h).values()) for h in ("qa", "qb", "qc"))
        self.assertIn(f"schedio_fleet_runqlat_seconds_count {fleet}\n", text)
        # every sample line parses as NAME{labels} VALUE
        for line in text.splitlines():
            if line and not line.startswith("#"):
                float(line.rsplit(" ", 1)[1])


if __name__ == "__main__":
    main()
