"""test_server_compare.py - GET /api/v1/compare and `schedio compare` on a
real server over real HTTP (SQLite, and PostgreSQL from the pg list): the
test posts fleets of 6 to 9 hosts per arm whose latency it knows (each
host's samples drawn around its own level, times a factor per arm), computes
each host's merged histogram and metric itself, and checks the answer
against that: per host values and sample counts exactly, the arm's value as
the median over its hosts, the ratio, and the verdicts
- A/A (same host values on other hosts): never better or worse, whether
  the arms are selected by kernel, by label or by scheduler (eevdf against
  fair); with hosts that barely differ, no_difference;
- A/B by scheduler, both directions: worse / better, samples matched per
  scheduler (a host that ran both gives each arm its part; eevdf and fair
  both select the kernel's own classes);
- before/after (the same hosts in two windows): paired, better / worse,
  where the hosts differ so much from each other that unpaired it could not
  tell; the same selected by label and by scheduler;
- by label, both directions (a host counts in the arm whose label it carried
  in the window);
- one workload's cgroups (cgroup=);
- windows read from hour rollups after the raw reports expired answer as
  the raw reports did;
- 400s naming what is wrong for bad selectors, unknown metrics, bad
  thresholds, reversed or empty windows; an arm with no hosts is 200 and
  inconclusive with the reason;
- the CLI's table, --json and exit statuses (0 better/no_difference, 1
  worse, 2 inconclusive, 3 no answer, 4 usage); the table lists each arm's
  hosts low to high with their values, the median marked (the host it is, or
  the two it lies between), a big arm cut to its 5 lowest, its median and its
  5 highest, checked against the --json answer to the same query; --range
  and --cgroup ask as range and cgroup= do."""
import json
import math
import random
import re
import statistics
import unittest
import urllib.parse

from harness import Server, binary, main, query, run, wait_for
from report_factory import body, bucket_value, now_ms, quantile

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
MIN = 60000
HOUR = 3600000
G = 4
SCX = {"state": "enabled", "ops": "scx_fifo"}
OFF = {"state": "disabled", "ops": None}
Q = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999}
WORK = "/workload.slice/app.service"


def index_of(v):
    """The histogram bucket of value v (bpf/hist.h, grouping power 4)."""
    if v < (1 << (G + 1)):
        return v
    h = v.bit_length() - 1
    return ((h - G + 1) << G) + ((v >> (h - G)) & ((1 << G) - 1))


def draw(rng, level_ns, n=300, sigma=0.35):
    """{bucket: count} of n latencies drawn log-normally around level_ns."""
    out = {}
    for _ in range(n):
        i = index_of(max(1, int(rng.lognormvariate(math.log(level_ns), sigma))))
        out[i] = out.get(i, 0) + 1
    return out


def add(*parts):
    out = {}
    for p in parts:
        for i, c in p.items():
            out[i] = out.get(i, 0) + c
    return out


def tight(extra):
    """A host that barely differs from the others: the same shape (its p99 in the top bucket, which holds
    4.8%), extra more samples in the lowest bucket."""
    lo = index_of(30000)
    return add({lo + j: 100 for j in range(10)}, {lo + 10: 50}, {lo: extra})


def as_hist(counts):
    return {"count": sum(counts.values()), "sum_ns": sum(c * bucket_value(i) for i, c in counts.items()),
            "max_ns": max([bucket_value(i) for i in counts] or [0]), "buckets": sorted([i, c] for i, c in counts.items())}


def rep(host, seq, start, kernel, sched, work, other=None, split=None, labels=None):
    """A 10 s report: the workload cgroup's samples work, the system's other; CPU 0 has them all;
    split: runqlat.by_scheduler [(ops, counts)...]."""
    cgroups = [dict(path=WORK, **as_hist(work))]
    if other:
        cgroups.append(dict(path="/system.slice", **as_hist(other)))
    r = {
        "schema": "schedio.report.v1", "seq": seq,
        "host": {"id": host, "hostname": host + ".example", "kernel": kernel, "cpus": 1},
        "interval": {"start_ms": start, "end_ms": start + 10000},
        "sched_ext": sched,
        "runqlat": {"layout": {"grouping_power": 4, "max_value_power": 36}, "cgroups": cgroups,
                    "cpus": [dict(cpu=0, **as_hist(add(work, other or {})))]},
    }
    if split is not None:
        r["runqlat"]["by_scheduler"] = [dict(ops=ops, **as_hist(c)) for ops, c in split]
    if labels:
        r["host"]["labels"] = labels
    return r


def kernel_class(kernel):
    """The group of the kernel's own classes, as the server names it: eevdf from 6.6 on, else fair."""
    major, minor = (int(x) for x in kernel.split("-")[0].split(".")[:2])
    return "eevdf" if (major, minor) >= (6, 6) else "fair"


def metric_of(counts, metric):
    if metric == "mean":
        return sum(c * bucket_value(i) for i, c in counts.items()) / sum(counts.values())
    return quantile(counts, Q[metric])


class Fleet:
    """What the test posted: truth[(window, host)][part] = merged {bucket: count}, part 'host' (all samples),
    'work' (the workload cgroup), or a scheduler group."""

    def __init__(self, server):
        self.s = server
        self.truth = {}
        self.seq = {}
        self.rng = random.Random(15)

    def samples(self, window=None):
        """All samples posted in window (every window when None)."""
        return sum(sum(t["host"].values()) for (w, _), t in self.truth.items() if window in (None, w))

    def post(self, window, host, start, kernel, sched, level, parts=None, labels=None, other=True, copy_of=None):
        """One report of host at start whose samples sit around level (parts: [(group, level)...] for a
        host that ran several schedulers; copy_of: the same samples as an earlier report)."""
        self.seq[host] = self.seq.get(host, 0) + 1
        if copy_of is not None:
            work, oth, split = copy_of
        else:
            split = None
            if parts:
                split = [(ops, draw(self.rng, lv)) for ops, lv in parts]
                work, oth = add(*[c for _, c in split]), None
            else:
                work = draw(self.rng, level)
                oth = draw(self.rng, level / 3, n=30) if other else None
        r = rep(host, self.seq[host], start, kernel, sched, work, oth, split, labels)
        resp = self.s.request("POST", "/api/v1/reports", body(r), GZ)
        assert resp.status == 200, resp.body
        t = self.truth.setdefault((window, host), {})
        for key, counts in [("host", add(work, oth or {})), ("work", work)]:
            t[key] = add(t.get(key, {}), counts)
        groups = split if split is not None else [(sched["ops"] if sched["state"] == "enabled" else None,
                                                   add(work, oth or {}))]
        for ops, counts in groups:
            g = ops or kernel_class(kernel)
            t[g] = add(t.get(g, {}), counts)
        return work, oth, split


def latency_text(ns):
    """A latency as the CLI prints it."""
    if ns is None:
        return "-"
    for limit, div, fmt, unit in ((1e3, 1, "%.0f", "ns"), (1e6, 1e3, "%.1f", "us"), (1e9, 1e6, "%.2f", "ms")):
        if ns < limit:
            return f"{fmt % (ns / div)} {unit}"
    return f"{ns / 1e9:.2f} s"


def cli_per_host(out):
    """The CLI's per-host listing: {arm: (hosts, [(marked, host_id, value, vs) | ("...", skipped)])}."""
    lines = out.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("each host's "))
    arms, cur = {}, None
    for line in lines[start + 1:]:
        if not line.strip():
            break
        m = re.fullmatch(r"([AB])  (?:(\d+) hosts?|no host)", line)
        if m:
            cur = arms[m.group(1)] = (int(m.group(2) or 0), [])
            continue
        m = re.fullmatch(r"     \.\.\. (\d+) more hosts? \.\.\.", line)
        if m:
            cur[1].append(("...", int(m.group(1))))
            continue
        m = re.fullmatch(r"   ([* ]) (\S+) +(-|\d+(?:\.\d+)? (?:ns|us|ms|s))  (x\d+\.\d\d)?", line)
        assert m, f"unexpected per-host line {line!r} in:\n{out}"
        cur[1].append((m.group(1) == "*", m.group(2), m.group(3), m.group(4)))
    return arms


class Compare(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server("--open-ingest").start()
        f = cls.fleet = Fleet(cls.srv)
        t0 = (now_ms() - 50 * MIN) // MIN * MIN
        cls.t = {"ab": t0, "before": t0 + 6 * MIN, "after": t0 + 12 * MIN, "aa": t0 + 18 * MIN,
                 "aa_tight": t0 + 24 * MIN, "labels": t0 + 30 * MIN}
        rng = random.Random(7)
        # A/B by scheduler: 8 scx_fifo hosts at 1.5x, 4 EEVDF (6.12) and 4 fair (5.15) hosts at 1x, and one
        # host that ran both (its split: each arm gets its part).
        t = cls.t["ab"]
        factors = [math.exp(rng.gauss(0, 0.1)) for _ in range(8)]
        for k in range(3):
            for i in range(8):
                f.post("ab", f"fifo-{i}", t + k * 10000, "6.12.0-amd64", SCX, 60000 * factors[i])
                f.post("ab", f"kern-{i}", t + k * 10000, "6.12.0-amd64" if i < 4 else "5.15.0", OFF,
                       40000 * factors[i])
            f.post("ab", "mixed", t + k * 10000, "6.12.0-amd64", SCX, None,
                   parts=[("scx_fifo", 60000), (None, 40000)])
        # before/after: 6 hosts that differ a lot from each other (x0.5 .. x4), 30% faster after
        levels = [20000, 35000, 50000, 80000, 120000, 160000]
        for k in range(3):
            for i, lv in enumerate(levels):
                f.post("before", f"ba-{i}", cls.t["before"] + k * 10000, "6.8.0-ba", OFF, lv, labels={"exp": "ba"})
                f.post("after", f"ba-{i}", cls.t["after"] + k * 10000, "6.8.0-ba", OFF, lv * 0.7,
                       labels={"exp": "ba"})
        # A/A: the same samples on other hosts, spread x0.8 .. x1.25; and hosts that barely differ
        for k in range(3):
            for i in range(6):
                s = f.post("aa", f"aa1-{i}", cls.t["aa"] + k * 10000, "6.9.0-aa1", OFF, 30000 * (0.8 + 0.09 * i),
                           labels={"aa": "one"})
                f.post("aa", f"aa2-{i}", cls.t["aa"] + k * 10000, "6.9.0-aa2", OFF, None, copy_of=s,
                       labels={"aa": "two"})
                f.post("aa_tight", f"tight1-{i}", cls.t["aa_tight"] + k * 10000, "6.9.0-tt1", OFF, None,
                       copy_of=(tight(i), None, None))
                f.post("aa_tight", f"tight2-{i}", cls.t["aa_tight"] + k * 10000, "6.9.0-tt2", OFF, None,
                       copy_of=(tight(5 - i), None, None))
        # labels: role=web hosts at 1.5x, role=db at 1x; lab-switch was web before the window, db in it;
        # lab-none has no labels
        tl = cls.t["labels"]
        f.post("pre", "lab-switch", tl - 3 * MIN, "6.12.0-amd64", OFF, 40000, labels={"role": "web"})
        for k in range(3):
            for i in range(6):
                f.post("labels", f"lab-web-{i}", tl + k * 10000, "6.12.0-amd64", OFF, 60000 * factors[i],
                       labels={"role": "web", "zone": "b"})
                f.post("labels", f"lab-db-{i}", tl + k * 10000, "6.12.0-amd64", OFF, 40000 * factors[i],
                       labels={"role": "db"})
            f.post("labels", "lab-switch", tl + k * 10000, "6.12.0-amd64", OFF, 40000, labels={"role": "db"})
            f.post("labels", "lab-none", tl + k * 10000, "6.12.0-amd64", OFF, 40000)
        # Every report here is late for a new database (older than its rollup marks), so each minute is
        # redone from the raw reports in the background: wait until every window reads all it was sent.
        checks = [(cls.t[name] - 30000, cls.t[name] + 90000, name) for name in cls.t] + \
            [(t0 - 5 * MIN, now_ms(), None), (now_ms() - 2 * HOUR, now_ms(), None)]
        wait_for(lambda: all(cls.samples_in(frm, to) == f.samples(name) for frm, to, name in checks),
                 timeout=180, what="the minute rollups of the late reports")

    @classmethod
    def samples_in(cls, frm, to):
        """Samples of every host in [frm, to) as the compare API reads them."""
        doc = cls.srv.get_json("/api/v1/compare?" + urllib.parse.urlencode(
            {"a": "kernel=6", "b": "kernel=5", "from": frm, "to": to}))
        return doc["a"]["samples"] + doc["b"]["samples"]

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def window(self, name, lo=-30000, hi=90000):
        """A window around the reports of name, with edges off the minute (raw rows at both ends)."""
        return self.t[name] + lo, self.t[name] + hi

    def compare(self, expect=200, **params):
        path = "/api/v1/compare?" + urllib.parse.urlencode(params)
        r = self.srv.request("GET", path)
        self.assertEqual(r.status, expect, f"GET {path}: {r.body[:400]!r}")
        return r.json()

    def expect_arm(self, arm, window, hosts, part, metric="p99"):
        """Checks arm against the posted truth of hosts' part (a name, or {host: name}); returns their values."""
        per = {p["host_id"]: p for p in arm["per_host"]}
        self.assertEqual(sorted(per), sorted(hosts), "the arm's hosts")
        values = []
        for h in hosts:
            counts = self.fleet.truth[(window, h)][part if isinstance(part, str) else part[h]]
            want = metric_of(counts, metric)
            self.assertAlmostEqual(per[h]["value_ns"], want, delta=1e-9 * want, msg=f"{h}'s {metric}")
            self.assertEqual(per[h]["samples"], sum(counts.values()), f"{h}'s samples")
            self.assertEqual(per[h]["hostname"], h + ".example")
            values.append(want)
        self.assertEqual(arm["hosts"], len(hosts))
        self.assertEqual(arm["samples"], sum(p["samples"] for p in arm["per_host"]))
        self.assertIn(arm["value_ns"], {statistics.median(values), statistics.median_low(values),
                                        statistics.median_high(values)}, "the arm's value is the median over hosts")
        return values

    def test_scheduler_a_b_both_directions(self):
        frm, to = self.window("ab")
        fifo = [f"fifo-{i}" for i in range(8)] + ["mixed"]
        kern = [f"kern-{i}" for i in range(8)] + ["mixed"]
        doc = self.compare(a="sched=scx_fifo", b="sched=eevdf", metric="p99", **{"from": frm, "to": to})
        self.assertEqual(doc["verdict"], "worse", doc["summary"])
        self.expect_arm(doc["a"], "ab", fifo, "scx_fifo")
        # eevdf selects the fair hosts of 5.15 too: the kernel's own classes whatever the version
        self.expect_arm(doc["b"], "ab", kern, {h: "fair" if h in ("kern-4", "kern-5", "kern-6", "kern-7") else "eevdf"
                                               for h in kern})
        self.assertAlmostEqual(doc["ratio"], doc["a"]["value_ns"] / doc["b"]["value_ns"], places=9)
        self.assertGreater(doc["ci"][0], 1.05)
        self.assertLessEqual(doc["ci"][0], doc["ratio"])
        self.assertLessEqual(doc["ratio"], doc["ci"][1])
        self.assertEqual((doc["metric"], doc["threshold"], doc["paired"], doc["reason"]), ("p99", 0.05, False, None))
        self.assertGreaterEqual(doc["resamples"], 2000)
        self.assertEqual((doc["a"]["selector"], doc["a"]["from"], doc["a"]["to"]), ("sched=scx_fifo", frm, to))
        self.assertIn("higher", doc["summary"])
        # the other way round: better, the interval the reciprocal's
        rev = self.compare(a="sched=fair", b="sched=scx_fifo", metric="p99", **{"from": frm, "to": to})
        self.assertEqual(rev["verdict"], "better", rev["summary"])
        self.assertEqual({p["host_id"] for p in rev["a"]["per_host"]}, set(kern))
        self.assertAlmostEqual(rev["ratio"], 1 / doc["ratio"], places=9)
        self.assertLess(rev["ci"][1], 0.95)
        # the same query answers the same (seeded from the query), and spaces or order of terms do not matter
        again = self.compare(a=" sched = scx_fifo ", b="sched=eevdf", metric="p99", **{"from": frm, "to": to})
        self.assertEqual((again["ci"], again["seed"]), (doc["ci"], doc["seed"]))

    def test_mean_and_other_percentiles_per_host(self):
        frm, to = self.window("ab")
        fifo = [f"fifo-{i}" for i in range(8)] + ["mixed"]
        for metric in ("p50", "p90", "p999", "mean"):
            doc = self.compare(a="sched=scx_fifo,kernel=6.12", b="sched=scx_fifo,host=fifo-3", metric=metric,
                               **{"from": frm, "to": to})
            self.assertEqual(doc["metric"], metric)
            self.expect_arm(doc["a"], "ab", fifo, "scx_fifo", metric)
            self.assertEqual([p["host_id"] for p in doc["b"]["per_host"]], ["fifo-3"])
            # one host in B: too few for a verdict, and the answer says so
            self.assertEqual((doc["verdict"], doc["ratio"], doc["ci"]), ("inconclusive", None, None))
            self.assertEqual(doc["reason"], "arm B has 1 host with samples; at least 5 are needed")
            self.assertIn(doc["reason"], doc["summary"])

    def test_before_after_is_paired(self):
        hosts = [f"ba-{i}" for i in range(6)]
        bf, bt = self.window("before")
        af, at = self.window("after")
        doc = self.compare(a="kernel=6.8.0-ba", b="kernel=6.8.0-ba", a_from=af, a_to=at, b_from=bf, b_to=bt)
        self.assertTrue(doc["paired"])
        self.assertEqual(doc["verdict"], "better", doc["summary"])
        a = self.expect_arm(doc["a"], "after", hosts, "host")
        b = self.expect_arm(doc["b"], "before", hosts, "host")
        ratios = [x / y for x, y in zip(a, b)]
        self.assertIn(round(doc["ratio"], 9), {round(statistics.median(ratios), 9),
                                               round(statistics.median_low(ratios), 9),
                                               round(statistics.median_high(ratios), 9)})
        self.assertLess(abs(doc["ratio"] - 0.7), 0.07, "the true ratio is 0.7, within a bucket")
        self.assertTrue(doc["ci"][0] <= 0.7 <= doc["ci"][1] or abs(doc["ratio"] - 0.7) < 0.07)
        self.assertLess(doc["ci"][1], 0.95)
        self.assertEqual((doc["a"]["from"], doc["a"]["to"], doc["b"]["from"], doc["b"]["to"]), (af, at, bf, bt))
        # and the other way: worse
        rev = self.compare(a="kernel=6.8.0-ba", b="kernel=6.8.0-ba", a_from=bf, a_to=bt, b_from=af, b_to=at)
        self.assertEqual((rev["verdict"], rev["paired"]), ("worse", True), rev["summary"])
        self.assertGreater(rev["ci"][0], 1.05)
        # the same hosts selected by label, and by scheduler (6.8: the kernel's own classes), answer alike
        for sel in ("label.exp=ba", "sched=eevdf,label.exp=ba", "sched=fair,kernel=6.8.0-ba"):
            got = self.compare(a=sel, b=sel, a_from=af, a_to=at, b_from=bf, b_to=bt)
            self.assertEqual((got["verdict"], got["paired"], got["ratio"]), ("better", True, doc["ratio"]), sel)
            self.expect_arm(got["a"], "after", hosts, "host")
            got = self.compare(a=sel, b=sel, a_from=bf, a_to=bt, b_from=af, b_to=at)
            self.assertEqual((got["verdict"], got["paired"], got["ratio"]), ("worse", True, rev["ratio"]), sel)

    def test_a_a_is_never_better_or_worse(self):
        frm, to = self.window("aa")
        doc = self.compare(a="kernel=6.9.0-aa1", b="kernel=6.9.0-aa2", **{"from": frm, "to": to})
        self.assertIn(doc["verdict"], ("no_difference", "inconclusive"), doc["summary"])
        self.assertFalse(doc["paired"])
        a = self.expect_arm(doc["a"], "aa", [f"aa1-{i}" for i in range(6)], "host")
        b = self.expect_arm(doc["b"], "aa", [f"aa2-{i}" for i in range(6)], "host")
        self.assertEqual(sorted(a), sorted(b))
        self.assertEqual(doc["ratio"], 1.0)
        self.assertLessEqual(doc["ci"][0], 1.0)
        self.assertGreaterEqual(doc["ci"][1], 1.0)
        # the same arms selected by label, and by scheduler (eevdf against fair: both the kernel's classes)
        for a, b in (("label.aa=one", "label.aa=two"), ("sched=eevdf,label.aa=one", "sched=fair,label.aa=two"),
                     ("sched=fair,kernel=6.9.0-aa1", "sched=eevdf,kernel=6.9.0-aa2")):
            got = self.compare(a=a, b=b, **{"from": frm, "to": to})
            self.assertIn(got["verdict"], ("no_difference", "inconclusive"), (a, b, got["summary"]))
            self.assertEqual((got["ratio"], got["a"]["hosts"], got["b"]["hosts"]), (1.0, 6, 6), (a, b))
            self.expect_arm(got["a"], "aa", [f"aa1-{i}" for i in range(6)], "host")
        # hosts that barely differ: the whole interval inside the band
        frm, to = self.window("aa_tight")
        doc = self.compare(a="kernel=6.9.0-tt1", b="kernel=6.9.0-tt2", **{"from": frm, "to": to})
        self.assertEqual(doc["verdict"], "no_difference", doc["summary"])
        self.assertTrue(0.95 <= doc["ci"][0] <= doc["ci"][1] <= 1.05, doc["ci"])

    def test_cgroup_compares_one_workload(self):
        frm, to = self.window("ab")
        doc = self.compare(a="sched=scx_fifo", b="sched=eevdf", cgroup="/workload.slice/", **{"from": frm, "to": to})
        self.assertEqual(doc["cgroup"], "/workload.slice")
        self.assertEqual(doc["verdict"], "worse", doc["summary"])
        # mixed ran both schedulers in each report: its cgroup samples cannot be split, so it is in neither arm
        self.expect_arm(doc["a"], "ab", [f"fifo-{i}" for i in range(8)], "work")
        per_b = {p["host_id"]: p for p in doc["b"]["per_host"]}
        self.assertEqual(sorted(per_b), [f"kern-{i}" for i in range(8)])
        for h, p in per_b.items():
            work = self.fleet.truth[("ab", h)]["work"]
            self.assertEqual((p["value_ns"], p["samples"]), (quantile(work, 0.99), sum(work.values())), h)
        # a cgroup nobody has: both arms empty, still an answer
        doc = self.compare(a="sched=scx_fifo", b="sched=eevdf", cgroup="/nothing.slice", **{"from": frm, "to": to})
        self.assertEqual((doc["verdict"], doc["ratio"], doc["ci"]), ("inconclusive", None, None))
        self.assertIn("selects no host", doc["reason"])

    def test_labels_select_by_what_hosts_carried_in_the_window(self):
        frm, to = self.window("labels")
        doc = self.compare(a="label.role=web", b="label.role=db", **{"from": frm, "to": to})
        self.assertEqual(doc["verdict"], "worse", doc["summary"])
        self.expect_arm(doc["a"], "labels", [f"lab-web-{i}" for i in range(6)], "host")
        # lab-switch carried role=web only before the window; lab-none carries nothing
        self.expect_arm(doc["b"], "labels", [f"lab-db-{i}" for i in range(6)] + ["lab-switch"], "host")
        # the other way round: better, the ratio the reciprocal's
        rev = self.compare(a="label.role=db", b="label.role=web", **{"from": frm, "to": to})
        self.assertEqual((rev["verdict"], rev["paired"]), ("better", False), rev["summary"])
        self.assertAlmostEqual(rev["ratio"], 1 / doc["ratio"], places=9)
        self.assertLess(rev["ci"][1], 0.95)
        both = self.compare(a="label.zone=b,label.role=web", b="label.role=db,host=lab-switch",
                            **{"from": frm, "to": to})
        self.assertEqual(both["a"]["hosts"], 6)
        self.assertEqual([p["host_id"] for p in both["b"]["per_host"]], ["lab-switch"])

    def test_an_arm_with_no_hosts_is_inconclusive(self):
        frm, to = self.window("ab")
        doc = self.compare(a="sched=scx_nothing", b="sched=eevdf", **{"from": frm, "to": to})
        self.assertEqual((doc["verdict"], doc["ratio"], doc["ci"]), ("inconclusive", None, None))
        self.assertIn("A (sched=scx_nothing) selects no host", doc["reason"])
        self.assertEqual((doc["a"]["hosts"], doc["a"]["samples"], doc["a"]["value_ns"], doc["a"]["per_host"]),
                         (0, 0, None, []))
        self.assertEqual(doc["b"]["hosts"], 9)
        # the scheduler ran, but not in B's window
        doc = self.compare(a="sched=eevdf", b="sched=scx_fifo", b_from=self.t["aa"], b_to=self.t["aa"] + MIN,
                           **{"from": frm, "to": to})
        self.assertEqual(doc["verdict"], "inconclusive")
        self.assertIn("B (sched=scx_fifo) selects no host", doc["reason"])

    def test_bad_queries_are_400_naming_the_problem(self):
        frm, to = self.window("ab")
        w = {"from": frm, "to": to}
        cases = [
            ({"b": "sched=eevdf"}, "a is required"),
            ({"a": "sched=eevdf"}, "b is required"),
            ({"a": "", "b": "sched=eevdf"}, "a: the selector is empty"),
            ({"a": "scx_fifo", "b": "sched=eevdf"}, "a: term 'scx_fifo' has no '='"),
            ({"a": "sched=eevdf", "b": "schd=x"}, "b: unknown term 'schd'"),
            ({"a": "sched=a,,host=b", "b": "sched=eevdf"}, "empty term"),
            ({"a": "sched=a,sched=b", "b": "sched=eevdf"}, "sched= is given twice"),
            ({"a": "label.Role=web", "b": "sched=eevdf"}, "label key 'Role'"),
            ({"a": "label.role=", "b": "sched=eevdf"}, "label.role= needs a value"),
            ({"a": "sched=", "b": "sched=eevdf"}, "sched= needs a scheduler"),
            ({"a": "sched=x", "b": "sched=eevdf", "metric": "p98"}, "unknown metric 'p98'"),
            ({"a": "sched=x", "b": "sched=eevdf", "metric": ""}, "unknown metric ''"),
            ({"a": "sched=x", "b": "sched=eevdf", "threshold": "0"}, "threshold must be"),
            ({"a": "sched=x", "b": "sched=eevdf", "threshold": "1"}, "threshold must be"),
            ({"a": "sched=x", "b": "sched=eevdf", "threshold": "x"}, "threshold must be"),
            ({"a": "sched=x", "b": "sched=eevdf", "cgroup": "system.slice"}, "cgroup must be a cgroup path"),
        ]
        for params, want in cases:
            r = self.srv.request("GET", "/api/v1/compare?" + urllib.parse.urlencode({**w, **params}))
            self.assertEqual(r.status, 400, (params, r.body))
            self.assertIn(want, r.json()["error"], params)
        windows = [
            ({"from": to, "to": frm}, "A's window"),  # reversed
            ({"from": frm, "to": frm}, "to must be after from"),  # empty
            ({"from": frm, "to": to, "b_from": to, "b_to": frm}, "B's window"),
            ({"from": frm, "to": to, "a_to": frm - 1}, "A's window"),
            ({"from": "yesterday"}, "non-negative integers"),
            ({"from": frm, "to": to, "b_to": "-5"}, "B's window"),
        ]
        for params, want in windows:
            r = self.srv.request("GET", "/api/v1/compare?" + urllib.parse.urlencode(
                {"a": "sched=eevdf", "b": "sched=fair", **params}))
            self.assertEqual(r.status, 400, (params, r.body))
            self.assertIn(want, r.json()["error"], params)
        r = self.srv.request("POST", "/api/v1/compare")
        self.assertEqual(r.status, 405)

    def test_default_window_is_the_last_hour(self):
        doc = self.compare(a="sched=scx_fifo", b="sched=eevdf")
        self.assertAlmostEqual(doc["a"]["to"], now_ms(), delta=60000)
        self.assertEqual(doc["a"]["to"] - doc["a"]["from"], HOUR)
        # the A/B hosts posted 50 minutes ago are in it
        self.assertEqual(doc["a"]["hosts"], 9)
        self.assertEqual(doc["verdict"], "worse")

    def cli(self, *args):
        return run([binary("schedio"), "compare", "--server", self.srv.url, *args])

    def expect_cli_hosts(self, out, doc, name, marks):
        """Checks the CLI's listing of arm name against the --json answer doc: every host (or, past 12, the 5
        lowest, the median and the 5 highest, with the count of those left out) low to high (equal values by host
        id) with its value and its value over the median, and marks (1 or 2) hosts marked that hold or bracket
        the arm's median."""
        arm = doc[name.lower()]
        hosts, rows = cli_per_host(out)[name]
        self.assertEqual(hosts, arm["hosts"], out)
        want = sorted(arm["per_host"], key=lambda p: (p["value_ns"], p["host_id"]))
        values = {p["host_id"]: p["value_ns"] for p in want}
        shown = [r for r in rows if r[0] != "..."]
        self.assertEqual(len(shown) + sum(r[1] for r in rows if r[0] == "..."), len(want), out)
        self.assertEqual(len(set(r[1] for r in shown)), len(shown), "each host once")
        med = arm["value_ns"]
        for marked, host, value, vs in shown:
            self.assertEqual(value, latency_text(values[host]), host)
            self.assertEqual(vs, f"x{values[host] / med:.2f}", host)
        # low to high (equal values by host id), the ends are the arm's ends
        got = [r[1] for r in shown]
        self.assertEqual(got, sorted(got, key=lambda h: (values[h], h)), out)
        if len(want) > 12:
            self.assertEqual(got[:5], [p["host_id"] for p in want[:5]], "the 5 lowest first")
            self.assertEqual(got[-5:], [p["host_id"] for p in want[-5:]], "the 5 highest last")
        else:
            self.assertEqual(len(shown), len(want), "a small arm is listed whole")
        marked = [values[r[1]] for r in shown if r[0]]
        self.assertEqual(len(marked), marks, out)
        if marks == 1:
            self.assertEqual(marked[0], med, "the marked host's value is the arm's median")
        else:
            self.assertTrue(marked[0] < med < marked[1], (marked, med))
            self.assertEqual(sum(1 for v in values.values() if marked[0] < v < marked[1]), 0,
                             "the two marked are neighbours around the median")

    def test_cli_prints_a_table_and_exits_with_the_verdict(self):
        frm, to = (str(x) for x in self.window("ab"))
        r = self.cli("--a", "sched=scx_fifo", "--b", "sched=eevdf", "--from", frm, "--to", to)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("verdict    worse", r.stdout)
        self.assertRegex(r.stdout, r"A\s+sched=scx_fifo\s+.*\s9\s")
        self.assertIn("ratio A/B", r.stdout)
        table = r.stdout
        r = self.cli("--a", "sched=eevdf", "--b", "sched=scx_fifo", "--from", frm, "--to", to, "--metric", "p50")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("verdict    better", r.stdout)
        self.assertIn("P50", r.stdout)
        # --json: the server's answer as it came, and the exit status still the verdict's
        r = self.cli("--a", "sched=scx_fifo", "--b", "sched=eevdf", "--from", frm, "--to", to, "--json")
        self.assertEqual(r.returncode, 1, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual((doc["verdict"], doc["a"]["hosts"]), ("worse", 9))
        # the table's hosts are the answer's: 9 a side, each listed with its p99, the median host marked
        self.assertIn("each host's P99, low to high", table)
        self.expect_cli_hosts(table, doc, "A", marks=1)
        self.expect_cli_hosts(table, doc, "B", marks=1)
        self.assertLess(table.index("each host's"), table.index("verdict    worse"), "the hosts come before the verdict")
        # no_difference: 0; inconclusive: 2
        f2, t2 = (str(x) for x in self.window("aa_tight"))
        r = self.cli("--a", "kernel=6.9.0-tt1", "--b", "kernel=6.9.0-tt2", "--from", f2, "--to", t2)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("no_difference", r.stdout)
        r = self.cli("--a", "sched=scx_nothing", "--b", "sched=eevdf", "--from", frm, "--to", to)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("reason: A (sched=scx_nothing) selects no host", r.stdout)
        # before/after through the per-arm windows
        bf, bt = (str(x) for x in self.window("before"))
        af, at = (str(x) for x in self.window("after"))
        r = self.cli("--a", "kernel=6.8.0-ba", "--b", "kernel=6.8.0-ba", "--a-from", af, "--a-to", at,
                     "--b-from", bf, "--b-to", bt)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("paired", r.stdout)
        # 6 hosts an arm: the median lies between the middle two, both marked
        j = self.cli("--a", "kernel=6.8.0-ba", "--b", "kernel=6.8.0-ba", "--a-from", af, "--a-to", at,
                     "--b-from", bf, "--b-to", bt, "--json")
        self.assertEqual(j.returncode, 0, j.stderr)
        self.expect_cli_hosts(r.stdout, json.loads(j.stdout), "A", marks=2)
        self.expect_cli_hosts(r.stdout, json.loads(j.stdout), "B", marks=2)
        # a big arm (every 6.x host of the test, over 12) is cut to its ends and its median; an arm with no
        # host says so
        wf, wt = str(self.t["ab"] - 5 * MIN), str(self.t["labels"] + 5 * MIN)
        r = self.cli("--a", "kernel=6", "--b", "kernel=5", "--metric", "p50", "--from", wf, "--to", wt)
        j = self.cli("--a", "kernel=6", "--b", "kernel=5", "--metric", "p50", "--from", wf, "--to", wt, "--json")
        self.assertEqual(r.returncode, j.returncode, r.stderr + j.stderr)
        big = json.loads(j.stdout)
        self.assertGreater(big["a"]["hosts"], 12)
        # one host marked when the median is a host's value (several hosts can share a bucket's value), else two
        marks = {arm: 1 if big[arm]["value_ns"] in {p["value_ns"] for p in big[arm]["per_host"]} else 2
                 for arm in ("a", "b")}
        self.expect_cli_hosts(r.stdout, big, "A", marks=marks["a"])
        self.assertEqual(len([x for x in cli_per_host(r.stdout)["A"][1] if x[0] != "..."]), 10 + marks["a"])
        self.expect_cli_hosts(r.stdout, big, "B", marks=marks["b"])
        r = self.cli("--a", "sched=scx_nothing", "--b", "sched=eevdf", "--from", frm, "--to", to)
        self.assertEqual(cli_per_host(r.stdout)["A"], (0, []), r.stdout)
        # --range: the last 2 hours holds every window
        r = self.cli("--a", "sched=scx_fifo", "--b", "sched=eevdf", "--range", "2h", "--json")
        self.assertEqual(r.returncode, 1, r.stderr)
        doc = json.loads(r.stdout)
        self.assertAlmostEqual(doc["a"]["to"] - doc["a"]["from"], 2 * HOUR, delta=1)
        # --cgroup: one workload's cgroups, as cgroup= asks (the mixed host's cannot be split: in neither arm)
        r = self.cli("--a", "sched=scx_fifo", "--b", "sched=eevdf", "--from", frm, "--to", to, "--cgroup",
                     "/workload.slice", "--json")
        self.assertEqual(r.returncode, 1, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual((doc["cgroup"], doc["verdict"], doc["a"]["hosts"], doc["b"]["hosts"]),
                         ("/workload.slice", "worse", 8, 8))
        self.assertEqual(doc, self.compare(a="sched=scx_fifo", b="sched=eevdf", cgroup="/workload.slice",
                                           **{"from": frm, "to": to}))

    def test_cli_errors_are_3_and_usage_4(self):
        r = self.cli("--a", "schd=x", "--b", "sched=eevdf")
        self.assertEqual(r.returncode, 3)
        self.assertIn("unknown term 'schd'", r.stderr)
        self.assertIn("HTTP 400", r.stderr)
        r = run([binary("schedio"), "compare", "--server", "http://127.0.0.1:1", "--a", "sched=x", "--b", "host=y"])
        self.assertEqual(r.returncode, 3, r.stderr)
        for args, want in [(["--a", "sched=x"], "give both arms"),
                           (["--a", "sched=x", "--b", "host=y", "--metric", "p98"], "--metric must be"),
                           (["--a", "sched=x", "--b", "host=y", "--range", "2x"], "--range must be"),
                           (["--a", "sched=x", "--b", "host=y", "--range", "2h", "--from", "5"], "not both"),
                           (["--a", "sched=x", "--b", "host=y", "--from", "-1"], "--from must be"),
                           (["--a", "sched=x", "--b", "host=y", "--threshold", "2"], "--threshold must be"),
                           (["--a", "sched=x", "--b", "host=y", "--bogus"], "try schedio compare --help"),
                           (["--a", "sched=x", "--b", "host=y", "extra"], "unexpected argument")]:
            r = self.cli(*args)
            self.assertEqual(r.returncode, 4, (args, r.stderr))
            self.assertIn(want, r.stderr, args)
        r = self.cli("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Exit status", r.stdout)


class CompareRollups(unittest.TestCase):
    def test_hour_rollups_answer_as_the_raw_reports_did(self):
        with Server("--open-ingest", "--retain-raw", "1h") as s:
            f = Fleet(s)
            h0 = (now_ms() - 5 * HOUR) // HOUR * HOUR
            for k in range(3):
                for i in range(6):
                    f.post("h", f"new-{i}", h0 + 7 * MIN + k * 11 * MIN, "6.12.0", SCX, 60000 * (1 + i / 50))
                    f.post("h", f"old-{i}", h0 + 7 * MIN + k * 11 * MIN, "6.1.0", OFF, 40000 * (1 + i / 50))
            q = "/api/v1/compare?" + urllib.parse.urlencode({"a": "sched=scx_fifo", "b": "sched=fair",
                                                             "from": h0, "to": h0 + HOUR})
            want = {arm: sum(sum(f.truth[("h", f"{prefix}-{i}")][part].values()) for i in range(6))
                    for arm, prefix, part in (("a", "new", "scx_fifo"), ("b", "old", "fair"))}
            # the raw reports go (past 1 h), the hour rollups stay, every late report redone into them
            wait_for(lambda: query(s.db, "SELECT count(*) FROM reports")[0][0] == 0 and
                     query(s.db, "SELECT count(*) FROM rollups WHERE level = 2")[0][0] >= 12 and
                     query(s.db, "SELECT count(*) FROM rollup_dirty")[0][0] == 0 and
                     all(s.get_json(q)[arm]["samples"] == n for arm, n in want.items()),
                     timeout=180, what="the hour rollups")
            doc = s.get_json(q)
            self.assertEqual(doc["verdict"], "worse", doc["summary"])
            for arm, part in (("a", "scx_fifo"), ("b", "fair")):
                self.assertEqual(doc[arm]["hosts"], 6)
                for p in doc[arm]["per_host"]:
                    counts = f.truth[("h", p["host_id"])][part]
                    self.assertEqual((p["value_ns"], p["samples"]), (quantile(counts, 0.99), sum(counts.values())))


if __name__ == "__main__":
    main()
