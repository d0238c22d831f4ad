"""test_metrics_prometheus.py - /metrics judged by Prometheus's own tools, on
a real server over real HTTP:

- `promtool check metrics` (Debian's prometheus package) finds nothing to
  say about /metrics, with and without --metrics-per-host, once reports with
  every optional part (labels, sched_ext health and exits, the agent's cost,
  L3 waits, a scheduler split) were stored.
- Every sample of a family typed counter or histogram only grows from one
  scrape to the next while reports come in, even when a host's latest report
  has fewer samples than the one before (which the old "latest report"
  histogram showed as a drop); the fleet histogram's _count is the number of
  samples posted, and a resent report adds nothing.
- The real `prometheus` binary scrapes the server every second while the test
  posts two phases of reports from three hosts with known histograms (phase
  A: a p99 near 150 us; phase B: a tail that puts the p99 near 1.4 ms, made by
  one host's few slow samples, so only the merge has it).
  histogram_quantile(0.99, sum by (le) (rate(schedio_fleet_runqlat_seconds_bucket[W])))
  over a window W covering phase B only agrees with the API's fleet p99 over
  phase B's reports within one of the exported buckets (the API's figure is
  itself checked against the p99 computed here from what was posted). The
  window is the same set of reports on both sides: Prometheus sees them by
  when they arrived, the API by their interval, which the test puts in an
  interval of its own for phase B.

Prometheus runs from /usr/bin with a temporary config and storage directory
on a free loopback port, and is stopped at the end; nothing of the machine's
own prometheus service is used (deploy/install-deps.sh keeps it off)."""
import bisect
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

from harness import SOURCE, Server, free_port, main, stop_process, wait_for
from report_factory import body, merge, now_ms, quantile, report
from test_server_health import healthy

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
# The exported bounds (server/ingest/runqlat_counters.c), seconds; +Inf follows.
LE = [1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3,
      2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 1e-1, 2.5e-1, 5e-1, 1, 2.5]
AGENT_REPORT = os.path.join(SOURCE, "tests", "fuzz", "corpus", "fuzz_server_report", "agent_report.json")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$")


def tool(name):
    path = shutil.which(name) or os.path.join("/usr/bin", name)
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{name} is missing (Debian package prometheus; deploy/install-deps.sh installs it)")
    return path


def hist_index(v, g=4, n=36):
    """Bucket index of v ns in the shared layout (bpf/hist.h)."""
    if v < (1 << (g + 1)):
        return v
    if v >= (1 << n):
        return ((n - g + 1) << g) - 1
    h = v.bit_length() - 1
    return ((h - g + 1) << g) + ((v >> (h - g)) - (1 << g))


def le_index(seconds):
    """The exported bucket a value in seconds falls in (len(LE) for +Inf)."""
    return bisect.bisect_left(LE, seconds)


def samples(text):
    """({name+labels: value}, {family: type}) of a Prometheus text exposition."""
    values, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, fam, typ = line.split(" ", 3)
            types[fam] = typ
        elif line and not line.startswith("#"):
            m = SAMPLE.match(line)
            assert m, f"not a sample line: {line!r}"
            values[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return values, types


def family_type(name, types):
    if name in types:
        return types[name]
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and types.get(name[: -len(suffix)]) == "histogram":
            return "histogram"
    return None


def runqlat_report(host, seq, start_ms, interval_ms, values_counts):
    """A report whose one CPU (and cgroup "/") holds count samples of each value_ns."""
    buckets = merge([[hist_index(v), c] for v, c in values_counts])
    h = {"count": sum(buckets.values()), "sum_ns": sum(v * c for v, c in values_counts),
         "max_ns": max(v for v, _ in values_counts), "buckets": sorted([i, c] for i, c in buckets.items())}
    return {
        "schema": "schedio.report.v1", "seq": seq, "agent": {"version": "0.1.0"},
        "interval": {"start_ms": start_ms, "end_ms": start_ms + interval_ms},
        "host": {"id": host, "hostname": host + ".example", "kernel": "6.12.0-amd64", "arch": "x86_64", "cpus": 1},
        "sched_ext": {"state": "disabled", "ops": None},
        "runqlat": {"layout": {"grouping_power": 4, "max_value_power": 36},
                    "cgroups": [dict(path="/", **h)], "cpus": [dict(cpu=0, **h)]},
    }, buckets


# Per round, one report of each host: 1000 samples. Phase A's 990th is among
# pm-2's 120-200 us; in phase B pm-3's 20 samples move to 1.1-1.8 ms and the
# 990th is its 10th (1.4 ms), which no host's own p99 shows.
PHASE_A = {"pm-1": [(16000, 300), (20000, 300), (25000, 200), (30000, 100)],
           "pm-2": [(120000, 30), (160000, 30), (200000, 20)],
           "pm-3": [(30000, 20)]}
PHASE_B = dict(PHASE_A, **{"pm-3": [(1100000, 8), (1400000, 7), (1800000, 5)]})


class Promtool(unittest.TestCase):
    def post(self, s, rep):
        r = s.request("POST", "/api/v1/reports", body(rep), GZ)
        self.assertEqual(r.status, 200, r.body)
        return r

    def post_every_part(self, s):
        """Reports with every optional part /metrics shows."""
        t = now_ms() - 60000
        with open(AGENT_REPORT) as f:
            real = json.load(f)
        length = real["interval"]["end_ms"] - real["interval"]["start_ms"]
        real["interval"] = {"start_ms": t, "end_ms": t + length}
        real["host"]["labels"] = {"role": "web", "rack": "r1"}
        self.post(s, real)
        self.post(s, healthy("hh", 1, t, 2000000, 9000000, {"select_cpu_fallback": 3},
                             [([0, 1], 123456, 100, 2345, 7)], [("schedio_rq_swtch", 12345, 678901)],
                             exits=[{"ops": "fifo", "t_ms": t + 500, "kind": "error_stall", "reason": "stall",
                                     "message": "a \"quoted\" message\nover two lines"}], nr_rejected=2))
        rep = report("split", 1, start_ms=t, cgroups=2, sched={"state": "enabled", "ops": "scx_fifo"})
        rep["host"]["hostname"] = 'odd "name" \\ here'
        self.post(s, rep)

    def promtool_check(self, text):
        r = subprocess.run([tool("promtool"), "check", "metrics"], input=text, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""), "promtool check metrics complains")

    def test_promtool_check_metrics_passes(self):
        for args in ((), ("--metrics-per-host",)):
            with self.subTest(args=args), Server("--open-ingest", *args) as s:
                self.promtool_check(s.request("GET", "/metrics").body.decode())  # nothing stored yet
                self.post_every_part(s)
                text = s.request("GET", "/metrics").body.decode()
                for fam in ("schedio_fleet_runqlat_seconds", "schedio_scx_exits_total", "schedio_host_labels",
                            "schedio_l3_wait_seconds_total", "schedio_agent_bpf_runs_total"):
                    self.assertIn(f"# TYPE {fam} ", text)
                self.assertEqual("# TYPE schedio_runqlat_seconds histogram" in text, bool(args))
                self.assertEqual('schedio_runqlat_seconds_count{host="odd \\"name\\" \\\\ here",id="split"}' in text,
                                 bool(args))
                self.promtool_check(text)
                print(f"promtool check metrics {' '.join(args) or '(fleet only)'}: "
                      f"{len(text.splitlines())} lines, no complaint")

    def test_counters_and_histograms_only_grow(self):
        with Server("--open-ingest", "--metrics-per-host") as s:
            t = now_ms() - 120000
            before, _ = samples(s.request("GET", "/metrics").body.decode())
            posted = 0
            checked = set()
            for seq in range(1, 7):
                # big, small, big, ... : a latest-report histogram would drop every other scrape
                n = 400 if seq % 2 else 7
                rep, b = runqlat_report("grow", seq, t + seq * 1000, 1000, [(50000, n), (3000000, 3)])
                self.post(s, rep)
                h = healthy("grow-h", seq, t + seq * 1000, 1000 * seq, 100 + (seq % 2),
                            {"select_cpu_fallback": seq % 2}, [([0, 1], 10 * seq, 1, 5, 1)],
                            [("schedio_rq_swtch", seq % 2, seq % 2)])
                self.post(s, h)
                posted += sum(b.values()) + sum(c for x in h["runqlat"]["cpus"] for _, c in x["buckets"])
                after, types = samples(s.request("GET", "/metrics").body.decode())
                for key, v in after.items():
                    name = key.split("{", 1)[0]
                    if family_type(name, types) in ("counter", "histogram") and key in before:
                        checked.add(key)
                        self.assertGreaterEqual(v, before[key], f"{key} went down after report {seq}")
                before = after
            self.assertEqual(before["schedio_fleet_runqlat_seconds_count"], posted)
            self.assertEqual(before['schedio_fleet_runqlat_seconds_bucket{le="+Inf"}'], posted)
            self.assertEqual(before['schedio_runqlat_seconds_count{host="grow.example",id="grow"}'],
                             3 * 400 + 3 * 7 + 6 * 3)
            # the writer's commits: one histogram sample a batch, sequential posts are a batch each
            self.assertEqual(before["schedio_ingest_commit_seconds_count"], before["schedio_ingest_batches_total"])
            self.assertEqual(before["schedio_ingest_commit_seconds_count"], 12)
            self.assertEqual(before['schedio_ingest_commit_seconds_bucket{le="+Inf"}'], 12)
            self.assertGreater(before["schedio_ingest_commit_seconds_sum"], 0)
            self.assertEqual(before["schedio_ingest_latency_seconds_count"], 12)
            # a resent report is a duplicate and adds nothing
            rep, _ = runqlat_report("grow", 6, t + 6000, 1000, [(50000, 7), (3000000, 3)])
            self.assertTrue(self.post(s, rep).json()["duplicate"])
            self.assertEqual(s.metric("schedio_fleet_runqlat_seconds_count"), posted)
            print(f"{len(checked)} counter and histogram samples checked over 6 scrapes; "
                  f"fleet count {posted:.0f} = samples posted")
            self.assertGreater(len(checked), 50)


class PrometheusScrape(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="schedio-prom-")
        self.prom = None

    def tearDown(self):
        if self.prom:
            stop_process(self.prom)
            self.prom_log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start_prometheus(self, target_port):
        port = free_port()
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: schedio\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{target_port}']\n")
        self.log = os.path.join(self.dir, "prometheus.log")
        self.prom_log = open(self.log, "w")
        self.prom = subprocess.Popen(
            [tool("prometheus"), f"--config.file={cfg}", f"--storage.tsdb.path={os.path.join(self.dir, 'data')}",
             f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=1h"],
            stdout=subprocess.DEVNULL, stderr=self.prom_log)
        self.prom_url = f"http://127.0.0.1:{port}"

        def ready():
            if self.prom.poll() is not None:
                raise AssertionError("prometheus exited: " + open(self.log).read()[-3000:])
            try:
                with urllib.request.urlopen(self.prom_url + "/-/ready", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False
        wait_for(ready, timeout=60, what="prometheus to be ready")
        wait_for(lambda: self.instant("up") == 1.0, timeout=60, what="prometheus's first scrape of the server")

    def instant(self, q, at=None):
        """The value of an instant query's one result; None when it has none."""
        args = {"query": q}
        if at is not None:
            args["time"] = f"{at:.3f}"
        with urllib.request.urlopen(self.prom_url + "/api/v1/query?" + urllib.parse.urlencode(args),
                                    timeout=10) as r:
            doc = json.load(r)
        self.assertEqual(doc["status"], "success", doc)
        res = doc["data"]["result"]
        return float(res[0]["value"][1]) if res else None

    def post_round(self, s, phase, seq, start_ms, want):
        for host, vc in phase.items():
            rep, b = runqlat_report(host, seq, start_ms, 100, vc)
            r = s.request("POST", "/api/v1/reports", body(rep), GZ)
            self.assertEqual(r.status, 200, r.body)
            for i, c in b.items():
                want[i] = want.get(i, 0) + c

    def test_histogram_quantile_over_rate_matches_the_api_p99(self):
        with Server("--open-ingest") as s:
            self.start_prometheus(s.port)
            # Report intervals: phase A in [F - S, F), phase B in [F, F + S): the API's one point of step S.
            S = 40000
            F = (now_ms() - 600000) // S * S
            seq, a_sent, b_sent = 0, {}, {}
            for k in range(24):  # about 6 s of phase A
                seq += 1
                self.post_round(s, PHASE_A, seq, F - S + k * 100, a_sent)
                time.sleep(0.25)
            tb0 = time.time()
            for k in range(40):  # about 10 s of phase B
                seq += 1
                self.post_round(s, PHASE_B, seq, F + k * 100, b_sent)
                time.sleep(0.25)
            total = sum(a_sent.values()) + sum(b_sent.values())
            # once a scrape has everything, evaluate at that moment
            wait_for(lambda: self.instant("schedio_fleet_runqlat_seconds_count") == total, timeout=30,
                     what="prometheus to scrape every posted sample")
            t_eval = time.time()
            window_ms = int((t_eval - (tb0 + 1.0)) * 1000)
            q = (f"histogram_quantile(0.99, sum by (le) (rate(schedio_fleet_runqlat_seconds_bucket"
                 f"[{window_ms}ms])))")
            prom_p99 = self.instant(q, at=t_eval)
            self.assertIsNotNone(prom_p99, "no answer to " + q)

            doc = s.get_json(f"/api/v1/fleet/runqlat?from={F}&to={F + S}&step={S}&group_by=none")
            (g,) = doc["groups"]
            (pt,) = g["series"]
            api_p99 = pt["p99_ns"] / 1e9
            self.assertEqual(pt["count"], sum(b_sent.values()))
            self.assertEqual(pt["p99_ns"], quantile(b_sent, 0.99))  # the API against what was posted
            a_p99 = quantile(a_sent, 0.99) / 1e9

            i_api, i_prom, i_a = le_index(api_p99), le_index(prom_p99), le_index(a_p99)
            print(f"fleet p99 over phase B: API {api_p99 * 1e3:.4f} ms (bucket le={LE[i_api]}), "
                  f"Prometheus histogram_quantile over rate[{window_ms}ms] {prom_p99 * 1e3:.4f} ms "
                  f"(bucket le={LE[i_prom] if i_prom < len(LE) else '+Inf'}): {abs(i_api - i_prom)} bucket(s) "
                  f"apart, ratio {prom_p99 / api_p99:.3f}; phase A's p99 {a_p99 * 1e3:.4f} ms "
                  f"(bucket le={LE[i_a]})")
            self.assertGreaterEqual(abs(i_api - i_a), 2, "the phases must be told apart by the check")
            self.assertLessEqual(abs(i_api - i_prom), 1)
            # per-host series are off by default: only the fleet's
            self.assertIsNone(self.instant("count(schedio_runqlat_seconds_bucket)"))
            self.assertTrue(math.isfinite(prom_p99))


if __name__ == "__main__":
    main()
