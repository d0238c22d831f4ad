"""test_server_health.py - issue 17 on the real server over real HTTP: the
report's sched_ext health (enable_seq, nr_rejected, events, schedulers,
exits), work conservation per L3 domain (runqlat.l3_domains) and the agent's
own cost (agent.cpu_ns, rss_bytes, bpf) are checked, stored (schema 0012) and
answered by GET /api/v1/hosts/{id}/health and GET /api/v1/fleet/health with
exactly the numbers posted (the expected answers are computed here from the
posted reports, not read back from the server); /metrics sums them into
counters that grow over two posts and count a resent report once; malformed
fields are a 400 naming the field and store nothing; reports without the
fields are taken as before."""
import copy
import json
import os
import re
import unittest

from harness import SOURCE, Server, is_pg, main, query, undo_schema_after_16, wait_for
from report_factory import body, now_ms, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
INTERVAL = 10000


def post(s, rep):
    return s.request("POST", "/api/v1/reports", body(rep, True), GZ)


def healthy(host, seq, start, cpu_ns, rss, events, l3, progs, schedulers=None, exits=None, nr_rejected=0,
            enable_seq=7):
    """A report with every issue-17 field."""
    rep = report(host, seq, start_ms=start, interval_ms=INTERVAL, cgroups=2, cpus=2, disks=0,
                 sched={"state": "enabled", "ops": "fifo"})
    rep["sched_ext"].update({"enable_seq": enable_seq, "nr_rejected": nr_rejected, "events": events,
                             "schedulers": schedulers or [], "exits": exits or []})
    rep["host"]["l3_domains"] = [{"cpus": cpus, "size_kb": 32768} for cpus, *_ in l3]
    rep["runqlat"]["l3_domains"] = [
        {"cpus": cpus, "wait_ns": w, "waits": n, "idle_sibling_wait_ns": iw, "idle_sibling_waits": iwn}
        for cpus, w, n, iw, iwn in l3]
    rep["agent"].update({"cpu_ns": cpu_ns, "rss_bytes": rss,
                         "bpf": {"sampled_ns": 1000000000,
                                 "programs": [{"name": n, "run_cnt": c, "run_time_ns": t} for n, c, t in progs]}})
    return rep


def metrics(s):
    """{(name, frozenset(labels)): value} of every sample on /metrics, and the TYPE of each family."""
    text = s.request("GET", "/metrics").body.decode()
    samples, types = {}, {}
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if m:
            types[m.group(1)] = m.group(2)
            continue
        m = re.match(r"([a-z0-9_]+)(?:\{(.*)\})? (\S+)$", line)
        if m:
            labels = frozenset(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
            samples[(m.group(1), labels)] = float(m.group(3))
    return samples, types, text


class Health(unittest.TestCase):
    def setUp(self):
        self.base = now_ms() - 20 * 60000
        self.base -= self.base % 1000
        b = self.base
        self.r1 = healthy("h1", 1, b, 2000000, 9000000, {"select_cpu_fallback": 3, "dispatch_keep_last": 0},
                          [([0, 1], 123456, 100, 2345, 7), ([2, 3], 1000, 10, 0, 0)],
                          [("schedio_rq_swtch", 12345, 678901), ("schedio_wakeup", 100, 2000)],
                          schedulers=[{"ops": "fifo", "enable_seq": 6, "first_ms": b - 5000, "last_ms": b + 9000,
                                       "partial": False}],
                          nr_rejected=2)
        self.r2 = healthy("h1", 2, b + INTERVAL, 3000000, 9500000, {"select_cpu_fallback": 5, "bypass_dispatch": 1},
                          [([0, 1], 200000, 50, 100000, 20), ([2, 3], 500, 5, 500, 5)],
                          [("schedio_rq_swtch", 1000, 50000)],
                          schedulers=[{"ops": "fifo", "enable_seq": 6, "first_ms": b + 10000,
                                       "last_ms": b + 12000, "partial": False},
                                      {"ops": "broken", "enable_seq": 7, "first_ms": b + 13000,
                                       "last_ms": b + 15000, "partial": True}],
                          exits=[{"ops": "fifo", "t_ms": b + 12500, "kind": "unreg",
                                  "reason": "unregistered from user space", "message": ""},
                                 {"ops": "broken", "t_ms": b + 15500, "kind": "error_stall",
                                  "reason": "runnable task stall",
                                  "message": "kworker/0:1[42] failed to run for 2.004s"}],
                          nr_rejected=1)

    def test_both_routes_answer_exactly_what_was_posted(self):
        b = self.base
        with Server("--open-ingest") as s:
            for rep in (self.r1, self.r2):
                r = post(s, rep)
                self.assertEqual(r.status, 200, r.body)
            # An older agent's report on the same host: a point with its interval only.
            old = report("h1", 3, start_ms=b + 2 * INTERVAL, interval_ms=INTERVAL, cgroups=1, disks=0)
            self.assertEqual(post(s, old).status, 200)
            # A second host with only the agent's cost, a third with nothing new.
            h2 = report("h2", 1, start_ms=b, interval_ms=INTERVAL, cgroups=1, disks=0)
            h2["agent"].update({"cpu_ns": 5000000, "rss_bytes": 30000000})
            self.assertEqual(post(s, h2).status, 200)
            self.assertEqual(post(s, report("h3", 1, start_ms=b, interval_ms=INTERVAL, cgroups=1,
                                            disks=0)).status, 200)

            frm, to = b - 60000, b + 60000
            got = s.get_json(f"/api/v1/hosts/h1/health?from={frm}&to={to}")
            want_points = []
            for rep in (self.r1, self.r2):
                a = rep["agent"]
                want_points.append({
                    "start_ms": rep["interval"]["start_ms"], "end_ms": rep["interval"]["end_ms"], "reports": 1,
                    "events": rep["sched_ext"]["events"], "nr_rejected": rep["sched_ext"]["nr_rejected"],
                    "l3": rep["runqlat"]["l3_domains"],
                    "agent": {"cpu_ns": a["cpu_ns"], "rss_bytes": a["rss_bytes"],
                              "bpf_run_time_ns": sum(p["run_time_ns"] for p in a["bpf"]["programs"]),
                              "bpf_run_cnt": sum(p["run_cnt"] for p in a["bpf"]["programs"])}})
            want_points.append({"start_ms": b + 2 * INTERVAL, "end_ms": b + 3 * INTERVAL, "reports": 1})
            # 2 min at the default ~200 points: 1 s steps, so one report per point.
            self.assertEqual(got["points"], want_points)
            self.assertEqual((got["host_id"], got["from"], got["to"], got["step_ms"]), ("h1", frm, to, 1000))
            # fifo (enable_seq 6) seen in both reports: one entry from its first to its last sighting.
            self.assertEqual(got["schedulers"], [
                {"ops": "fifo", "enable_seq": 6, "first_ms": b - 5000, "last_ms": b + 12000, "partial": False},
                {"ops": "broken", "enable_seq": 7, "first_ms": b + 13000, "last_ms": b + 15000, "partial": True}])
            self.assertEqual(got["exits"], self.r2["sched_ext"]["exits"])
            self.assertEqual(got["bpf_programs"], [
                {"name": "schedio_rq_swtch", "run_cnt": 12345 + 1000, "run_time_ns": 678901 + 50000},
                {"name": "schedio_wakeup", "run_cnt": 100, "run_time_ns": 2000}])
            # The default range (the last hour) holds them too; a range without them is empty.
            self.assertEqual(sum(p["reports"] for p in s.get_json("/api/v1/hosts/h1/health")["points"]), 3)
            empty = s.get_json(f"/api/v1/hosts/h1/health?from={b - 7200000}&to={b - 3600000}")
            self.assertEqual((empty["points"], empty["exits"], empty["schedulers"], empty["bpf_programs"]),
                             ([], [], [], []))

            fleet = s.get_json(f"/api/v1/fleet/health?from={frm}&to={to}")
            hosts = {h["host_id"]: h for h in fleet["hosts"]}
            self.assertEqual(sorted(hosts), ["h1", "h2", "h3"])
            # h1: cpu over the two reports that carried it (20 s of wall time), the latest RSS, BPF likewise.
            h1_cpu = (2000000 + 3000000) / (2 * INTERVAL * 1e6)
            h1_bpf = (678901 + 2000 + 50000) / (2 * INTERVAL * 1e6)
            self.assertEqual(hosts["h1"], {
                "host_id": "h1", "hostname": "h1", "ejections": 1,
                "last_exit": {"ops": "broken", "t_ms": b + 15500, "kind": "error_stall",
                              "reason": "runnable task stall"},
                "agent_cpu_share": h1_cpu, "agent_rss_bytes": 9500000, "bpf_cpu_share": h1_bpf})
            self.assertEqual(hosts["h2"], {
                "host_id": "h2", "hostname": "h2", "ejections": 0, "last_exit": None,
                "agent_cpu_share": 5000000 / (INTERVAL * 1e6), "agent_rss_bytes": 30000000,
                "bpf_cpu_share": None})
            self.assertEqual(hosts["h3"], {
                "host_id": "h3", "hostname": "h3", "ejections": 0, "last_exit": None,
                "agent_cpu_share": None, "agent_rss_bytes": None, "bpf_cpu_share": None})
            self.assertAlmostEqual(fleet["totals"]["agent_cpu_cores"], h1_cpu + 5000000 / (INTERVAL * 1e6),
                                   places=15)
            self.assertEqual(fleet["totals"]["agent_rss_bytes"], 9500000 + 30000000)
            self.assertAlmostEqual(fleet["totals"]["bpf_cpu_cores"], h1_bpf, places=15)
            self.assertEqual(fleet["totals"]["hosts"], 3)
            self.assertEqual(fleet["budgets"], {"agent_cpu_share": 0.001, "agent_rss_bytes": 20971520})
            self.assertEqual((fleet["from"], fleet["to"]), (frm, to))
            # The exit alone falls in this range (its report started before it): still an ejection of h1.
            late = s.get_json(f"/api/v1/fleet/health?from={b + 15000}&to={b + 16000}")
            self.assertEqual([(h["host_id"], h["ejections"]) for h in late["hosts"]], [("h1", 1)])

    def test_points_are_step_buckets_with_exact_sums(self):
        step = 30000
        b0 = now_ms() - 30 * 60000
        b0 -= b0 % 60000
        reps = []
        for i in range(14):
            if i == 7:
                continue  # a report lost: its point holds two
            start = b0 + i * INTERVAL
            if i == 4:  # an older agent's report: its interval and nothing else
                reps.append(report("hb", i + 1, start_ms=start, interval_ms=INTERVAL, cgroups=1, disks=0))
                continue
            l3 = [([0, 1], 1000 * i + 7, 10 + i, 100 * i, i), ([2, 3], 500 + i, 5, i, 1)]
            if i % 4 == 1:
                l3.append(([4, 5], 777, 3, 77, 1))  # a domain only some reports of a point have
            progs = [("schedio_rq_swtch", 100 + i, 5000 + 13 * i)] + ([("schedio_wakeup", i, 3 * i)] if i % 2 else [])
            rep = healthy("hb", i + 1, start, 1000000 + 12345 * i, 9000000 + (i * 7) % 5 * 4096,
                          {"select_cpu_fallback": 3 * i, f"ev{i % 3}": i + 1}, l3, progs, nr_rejected=i % 3)
            if i == 11:  # 3 s late: the point ends after its step does
                rep["interval"] = {"start_ms": start + 3000, "end_ms": start + 3000 + INTERVAL}
            if i == 12:  # without the agent's cost
                del rep["agent"]["cpu_ns"], rep["agent"]["rss_bytes"], rep["agent"]["bpf"]
            reps.append(rep)

        # The expected points, bucketed here from the posted reports.
        frm, to = b0 - 5000, b0 + 15 * INTERVAL
        aligned = frm - frm % step
        want, rss_at, rss_max = {}, {}, {}
        for r in reps:
            st, en = r["interval"]["start_ms"], r["interval"]["end_ms"]
            k = (st - aligned) // step
            p = want.setdefault(k, {"start_ms": st, "end_ms": en, "reports": 0})
            p["start_ms"], p["end_ms"], p["reports"] = min(p["start_ms"], st), max(p["end_ms"], en), p["reports"] + 1
            scx = r["sched_ext"]
            for name, v in scx.get("events", {}).items():
                p.setdefault("events", {})[name] = p.get("events", {}).get(name, 0) + v
            if "nr_rejected" in scx:
                p["nr_rejected"] = p.get("nr_rejected", 0) + scx["nr_rejected"]
            for d in r["runqlat"].get("l3_domains", []):
                doms = p.setdefault("l3", [])
                e = next((x for x in doms if x["cpus"] == d["cpus"]), None)
                if e is None:
                    doms.append(dict(d))
                else:
                    for f in ("wait_ns", "waits", "idle_sibling_wait_ns", "idle_sibling_waits"):
                        e[f] += d[f]
            a = r["agent"]
            if "cpu_ns" in a:
                ag = p.setdefault("agent", {})
                ag["cpu_ns"] = ag.get("cpu_ns", 0) + a["cpu_ns"]
            if "rss_bytes" in a:
                rss_max[k] = max(rss_max.get(k, 0), a["rss_bytes"])
                if st >= rss_at.get(k, -1):
                    p.setdefault("agent", {})["rss_bytes"], rss_at[k] = a["rss_bytes"], st
            if "bpf" in a:
                ag = p.setdefault("agent", {})
                ag["bpf_run_time_ns"] = ag.get("bpf_run_time_ns", 0) + sum(x["run_time_ns"] for x in a["bpf"]["programs"])
                ag["bpf_run_cnt"] = ag.get("bpf_run_cnt", 0) + sum(x["run_cnt"] for x in a["bpf"]["programs"])
        want_points = [want[k] for k in sorted(want)]
        # The reports chosen make the test tell "latest" from "max" and see a point of two reports.
        self.assertTrue(any(want[k]["agent"]["rss_bytes"] != rss_max[k] for k in rss_max))
        self.assertIn(2, [p["reports"] for p in want_points])

        with Server("--open-ingest") as s:
            for r in reps:
                self.assertEqual(post(s, r).status, 200)
            got = s.get_json(f"/api/v1/hosts/hb/health?from={frm}&to={to}&step={step}")
            self.assertEqual((got["from"], got["to"], got["step_ms"]), (aligned, to, step))
            self.assertEqual(len(got["points"]), 5)
            self.assertEqual(got["points"], want_points)
            # Coarser points sum to the same totals as the finest ones.
            fine = s.get_json(f"/api/v1/hosts/hb/health?from={frm}&to={to}&step=1000")["points"]
            self.assertEqual(len(fine), len(reps))
            self.assertEqual(sum(p["agent"]["cpu_ns"] for p in got["points"] if "cpu_ns" in p.get("agent", {})),
                             sum(r["agent"].get("cpu_ns", 0) for r in reps))
            self.assertEqual(sum(p.get("nr_rejected", 0) for p in fine), sum(p.get("nr_rejected", 0) for p in got["points"]))

    def test_default_step_keeps_a_day_small(self):
        day, n = 86400000, 1200
        end = now_ms() - 60000
        end -= end % 1000
        gap = day // n  # 72 s between reports
        with Server("--open-ingest") as s:
            for i in range(n):
                rep = report("day", i + 1, start_ms=end - day + i * gap, interval_ms=INTERVAL, cgroups=1, cpus=1,
                             disks=0)
                rep["agent"].update({"cpu_ns": 1000 + i, "rss_bytes": 8000000 + i})
                self.assertEqual(post(s, rep).status, 200)
            path = f"/api/v1/hosts/day/health?from={end - day}&to={end}"
            r = s.request("GET", path)
            got = r.json()
            # 24 h / 200 points = 432 s: the next nice step is 10 min, 144 points.
            self.assertEqual(got["step_ms"], 600000)
            self.assertLessEqual(len(got["points"]), 300)
            self.assertEqual(sum(p["reports"] for p in got["points"]), n)
            self.assertEqual(sum(p["agent"]["cpu_ns"] for p in got["points"]), sum(1000 + i for i in range(n)))
            self.assertEqual(got["points"][-1]["agent"]["rss_bytes"], 8000000 + n - 1)
            # A step finer than the reports: one point each, and several times the bytes.
            fine = s.request("GET", path + "&step=60000")
            self.assertEqual(len(fine.json()["points"]), n)
            self.assertGreater(len(fine.body), 4 * len(r.body), (len(fine.body), len(r.body)))

    def test_reports_match_the_documented_schema(self):
        import jsonschema  # python3-jsonschema, installed by deploy/install-deps.sh

        with open(os.path.join(SOURCE, "schema", "report.schema.json")) as f:
            schema = json.load(f)
        for rep in (self.r1, self.r2):
            jsonschema.validate(rep, schema, cls=jsonschema.Draft202012Validator)
        bad = copy.deepcopy(self.r2)
        bad["sched_ext"]["exits"][0]["kind"] = "crashed"
        with self.assertRaises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)

    def test_errors_bad_range_and_unknown_host(self):
        with Server("--open-ingest") as s:
            self.assertEqual(post(s, self.r1).status, 200)
            hour_ago = now_ms() - 3600000
            for path in ("/api/v1/hosts/h1/health?from=abc", "/api/v1/hosts/h1/health?from=10&to=5",
                         "/api/v1/hosts/h1/health?step=abc", "/api/v1/hosts/h1/health?step=-5",
                         f"/api/v1/hosts/h1/health?from={hour_ago}&step=1",  # 3.6 million points
                         "/api/v1/fleet/health?to=x", "/api/v1/fleet/health?from=10&to=5"):
                r = s.request("GET", path)
                self.assertEqual(r.status, 400, path)
                self.assertIn("error", r.json())
            self.assertEqual(s.request("GET", "/api/v1/hosts/nope/health").status, 404)
            self.assertEqual(s.request("POST", "/api/v1/fleet/health").status, 405)

    def test_metrics_are_counters_that_grow_and_count_a_resend_once(self):
        with Server("--open-ingest") as s:
            self.assertEqual(post(s, report("plain", 1, cgroups=1, disks=0)).status, 200)
            _, types, text = metrics(s)
            self.assertNotIn("schedio_scx_", text)
            self.assertNotIn("schedio_l3_", text)
            self.assertNotIn("schedio_agent_cpu_seconds_total", text)
            self.assertEqual(post(s, self.r1).status, 200)
            m1, types, _ = metrics(s)
            self.assertEqual(post(s, self.r2).status, 200)
            self.assertTrue(post(s, self.r2).json()["duplicate"])  # the ack was lost: sent again
            m2, types, _ = metrics(s)
            for fam in ("schedio_scx_events_total", "schedio_scx_rejected_total", "schedio_scx_exits_total",
                        "schedio_agent_cpu_seconds_total", "schedio_agent_bpf_run_seconds_total",
                        "schedio_agent_bpf_runs_total", "schedio_l3_wait_seconds_total",
                        "schedio_l3_idle_sibling_wait_seconds_total"):
                self.assertEqual(types.get(fam), "counter", fam)
            self.assertEqual(types.get("schedio_agent_rss_bytes"), "gauge")

            def v(m, name, **labels):
                return m.get((name, frozenset(dict(host_id="h1", **labels).items())))

            # Expected: sums over the posted reports, each stored once.
            self.assertEqual(v(m1, "schedio_scx_events_total", event="select_cpu_fallback"), 3)
            self.assertEqual(v(m2, "schedio_scx_events_total", event="select_cpu_fallback"), 8)
            self.assertEqual(v(m2, "schedio_scx_events_total", event="dispatch_keep_last"), 0)
            self.assertEqual(v(m2, "schedio_scx_events_total", event="bypass_dispatch"), 1)
            self.assertEqual((v(m1, "schedio_scx_rejected_total"), v(m2, "schedio_scx_rejected_total")), (2, 3))
            self.assertIsNone(v(m1, "schedio_scx_exits_total", kind="error_stall"))
            self.assertEqual(v(m2, "schedio_scx_exits_total", kind="error_stall"), 1)
            self.assertEqual(v(m2, "schedio_scx_exits_total", kind="unreg"), 1)
            self.assertAlmostEqual(v(m1, "schedio_agent_cpu_seconds_total"), 0.002, places=9)
            self.assertAlmostEqual(v(m2, "schedio_agent_cpu_seconds_total"), 0.005, places=9)
            self.assertEqual((v(m1, "schedio_agent_rss_bytes"), v(m2, "schedio_agent_rss_bytes")),
                             (9000000, 9500000))
            self.assertAlmostEqual(v(m2, "schedio_agent_bpf_run_seconds_total", program="schedio_rq_swtch"),
                                   (678901 + 50000) / 1e9, places=9)
            self.assertEqual(v(m2, "schedio_agent_bpf_runs_total", program="schedio_rq_swtch"), 13345)
            self.assertEqual(v(m2, "schedio_agent_bpf_runs_total", program="schedio_wakeup"), 100)
            self.assertAlmostEqual(v(m2, "schedio_l3_wait_seconds_total", domain="0"), 323456 / 1e9, places=9)
            self.assertAlmostEqual(v(m2, "schedio_l3_idle_sibling_wait_seconds_total", domain="0"),
                                   102345 / 1e9, places=9)
            self.assertAlmostEqual(v(m2, "schedio_l3_idle_sibling_wait_seconds_total", domain="1"),
                                   500 / 1e9, places=9)
            # Counters never go down from one scrape to the next.
            for key, val in m1.items():
                if key[0] in types and types[key[0]] == "counter" and key[0].startswith(("schedio_scx",
                                                                                        "schedio_l3",
                                                                                        "schedio_agent_cpu",
                                                                                        "schedio_agent_bpf")):
                    self.assertGreaterEqual(m2[key], val, key)

    def test_malformed_fields_are_refused_and_nothing_is_stored(self):
        def scx(rep, **kw):
            rep["sched_ext"].update(kw)

        def l3(rep, i, **kw):
            rep["runqlat"]["l3_domains"][i].update(kw)

        def agent(rep, **kw):
            rep["agent"].update(kw)

        too_many = {f"ev{i}": 1 for i in range(65)}
        sched = {"ops": "x", "first_ms": 1, "last_ms": 2}
        exit_ = {"ops": "x", "t_ms": 1, "kind": "error", "reason": "", "message": ""}
        prog = {"name": "p", "run_cnt": 1, "run_time_ns": 1}
        cases = [
            (lambda r: scx(r, enable_seq="7"), "sched_ext.enable_seq must be an integer"),
            (lambda r: scx(r, nr_rejected=-1), "sched_ext.nr_rejected is out of range"),
            (lambda r: scx(r, events=[1]), "sched_ext.events must be an object"),
            (lambda r: scx(r, events={"Select_CPU": 1}), "sched_ext.events names must be"),
            (lambda r: scx(r, events={"x" * 65: 1}), "sched_ext.events names must be"),
            (lambda r: scx(r, events={"a": -3}), "sched_ext.events.a must be an integer >= 0"),
            (lambda r: scx(r, events={"a": 1.5}), "sched_ext.events.a must be an integer >= 0"),
            (lambda r: scx(r, events=too_many), "sched_ext.events has more than the limit of 64"),
            (lambda r: scx(r, schedulers=[sched] * 65), "sched_ext.schedulers has more than the limit of 64"),
            (lambda r: scx(r, schedulers=[dict(sched, last_ms=0)]), "sched_ext.schedulers[0].last_ms is before"),
            (lambda r: scx(r, schedulers=[dict(sched, partial="no")]),
             "sched_ext.schedulers[0].partial must be true or false"),
            (lambda r: scx(r, schedulers=[{"first_ms": 1, "last_ms": 2}]),
             "missing required field sched_ext.schedulers[0].ops"),
            (lambda r: scx(r, exits=[dict(exit_, kind="crashed")]), "sched_ext.exits[0].kind 'crashed' is not"),
            (lambda r: scx(r, exits=[dict(exit_, reason="r" * 257)]),
             "sched_ext.exits[0].reason is longer than the limit of 256 bytes"),
            (lambda r: scx(r, exits=[dict(exit_, message="m" * 1025)]),
             "sched_ext.exits[0].message is longer than the limit of 1024 bytes"),
            (lambda r: scx(r, exits=[exit_] * 65), "sched_ext.exits has more than the limit of 64"),
            (lambda r: scx(r, exits=exit_), "sched_ext.exits must be an array"),
            (lambda r: l3(r, 0, idle_sibling_wait_ns=200001),
             "runqlat.l3_domains[0].idle_sibling_wait_ns (200001) is more than wait_ns (200000)"),
            (lambda r: l3(r, 1, idle_sibling_waits=11), "runqlat.l3_domains[1].idle_sibling_waits (11) is more"),
            (lambda r: l3(r, 0, waits=-1), "runqlat.l3_domains[0].waits is out of range"),
            (lambda r: l3(r, 0, cpus=["0"]), "runqlat.l3_domains[0].cpus must hold CPU numbers"),
            (lambda r: r["runqlat"].update(l3_domains=[r["runqlat"]["l3_domains"][0]] * 4097),
             "runqlat.l3_domains has more than the limit of 4096"),
            (lambda r: agent(r, cpu_ns=-5), "agent.cpu_ns is out of range"),
            (lambda r: agent(r, rss_bytes="9M"), "agent.rss_bytes must be an integer"),
            (lambda r: agent(r, bpf=[]), "agent.bpf must be an object"),
            (lambda r: agent(r, bpf={"programs": [dict(prog, name="bad name")]}),
             "agent.bpf.programs[0].name must be 1..64 characters"),
            (lambda r: agent(r, bpf={"programs": [prog] * 65}), "agent.bpf.programs has more than the limit of 64"),
            (lambda r: agent(r, bpf={"programs": [dict(prog, run_time_ns=-1)]}),
             "agent.bpf.programs[0].run_time_ns is out of range"),
        ]
        with Server("--open-ingest") as s:
            for i, (mutate, msg) in enumerate(cases):
                rep = copy.deepcopy(self.r2)
                rep["host"]["id"] = rep["host"]["hostname"] = "bad"
                mutate(rep)
                r = post(s, rep)
                self.assertEqual(r.status, 400, (i, msg, r.body))
                self.assertIn(msg, r.json()["error"], i)
            # Nothing of them was stored or counted.
            self.assertEqual(s.request("GET", "/api/v1/hosts/bad/health").status, 404)
            self.assertEqual(s.get_json("/api/v1/fleet/health")["hosts"], [])
            self.assertNotIn("schedio_scx_", metrics(s)[2])
            self.assertEqual(s.metric("schedio_reports_rejected_total{reason=\"invalid\"}"), len(cases))
            # The same report without the mistakes is taken.
            self.assertEqual(post(s, self.r1).status, 200)

    def test_health_expires_with_raw_reports_and_exits_with_minutes(self):
        hour = 3600000
        per_report = len(self.r2["sched_ext"]["exits"])
        with Server("--open-ingest", "--retain-raw", "1h", "--retain-minute", "3h") as s:
            # Two reports already past the raw retention (one also past the minute level's) and one
            # recent: the expiry pass may run at any moment after the posts, so only its end is checked.
            for seq, age in ((1, 5 * hour), (2, 2 * hour), (3, hour // 6)):
                rep = copy.deepcopy(self.r2)
                rep["seq"] = seq
                start = now_ms() - age
                rep["interval"] = {"start_ms": start, "end_ms": start + INTERVAL}
                for i, x in enumerate(rep["sched_ext"]["exits"]):
                    x["t_ms"] = start + 1000 + i
                self.assertEqual(post(s, rep).status, 200)
            q = f"/api/v1/hosts/h1/health?from={now_ms() - 6 * hour}&to={now_ms()}&step=60000"
            # Past raw retention the points go (the recent one stays); exits stay for the minute level's 3 h.
            wait_for(lambda: len(s.get_json(q)["points"]) == 1 and len(s.get_json(q)["exits"]) == 2 * per_report,
                     what="raw expiry")
            got = s.get_json(q)
            self.assertLess(now_ms() - got["points"][0]["start_ms"], hour, got["points"])
            self.assertTrue(all(now_ms() - x["t_ms"] < 3 * hour for x in got["exits"]), got["exits"])

    def test_a_database_from_before_0012_keeps_working(self):
        b = self.base
        with Server("--open-ingest") as s:
            old = report("h1", 1, start_ms=b - INTERVAL, interval_ms=INTERVAL, cgroups=1, disks=0)
            self.assertEqual(post(s, old).status, 200)
            s.stop()
            # Back to schema 11, as a server before this change left it.
            undo_schema_after_16(s.db)
            query(s.db, "DROP TABLE scx_exits")
            query(s.db, "ALTER TABLE reports DROP COLUMN health")
            query(s.db, "DELETE FROM schema_version WHERE version > 11" if is_pg(s.db) else "PRAGMA user_version = 11")
            s.start()
            self.assertEqual(post(s, self.r2).status, 200)
            got = s.get_json(f"/api/v1/hosts/h1/health?from={b - 60000}&to={b + 60000}")
            self.assertEqual([sorted(p) for p in got["points"]],
                             [["end_ms", "reports", "start_ms"],
                              ["agent", "end_ms", "events", "l3", "nr_rejected", "reports", "start_ms"]])
            self.assertEqual(len(got["exits"]), 2)
            self.assertEqual([x["seq"] for x in s.get_json("/api/v1/hosts/h1/reports?from=0")["reports"]], [1, 2])


if __name__ == "__main__":
    main()
