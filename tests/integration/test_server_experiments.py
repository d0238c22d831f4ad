"""test_server_experiments.py - saved experiments (issue 15) on a real server
over real HTTP (SQLite, and PostgreSQL from the pg list): the test posts a
fleet whose latency it knows (test_server_compare.py's Fleet: 7 scx_fifo
hosts at 1.5x, 7 EEVDF hosts at 1x), then checks
- POST /api/v1/experiments needs an admin token: none or a wrong one is 401,
  a valid ingest token 403, and nothing is stored; admin is 201 with the
  definition as stored (canonical selectors, defaults filled in);
- the list carries each experiment's verdict now, its ratio equal to the
  median over hosts of the p99s the test computed from what it posted;
- GET /api/v1/experiments/{id} is exactly GET /api/v1/compare's answer for
  the same query, plus the definition; "the last N hours" moves with time;
- a second experiment of a name is 409; DELETE (admin) is 204, then 404;
- bad bodies (malformed JSON, wrong types, unknown or repeated fields, bad
  selectors, metrics, thresholds, cgroups and windows, huge bodies, hostile
  names) are 4xx naming the field, and leave the experiments table as it was;
  names that are odd but valid (quotes, SQL, markup, non-ASCII) come back
  byte for byte."""
import json
import socket
import statistics
import unittest
import urllib.parse

import contract
import test_server_compare as tc
from harness import Server, main, query, wait_for
from report_factory import now_ms

JSON = {"Content-Type": "application/json"}


def median_p99(fleet, window, hosts, part):
    """The arm's value as the test computes it: the median over hosts of each host's merged p99."""
    return statistics.median(tc.metric_of(fleet.truth[(window, h)][part], "p99") for h in hosts)


class Experiments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server("--open-ingest").start()
        cls.admin = cls.srv.add_token("exp-admin", "admin")
        cls.ingest = cls.srv.add_token("exp-ingest", "ingest")
        f = cls.fleet = tc.Fleet(cls.srv)
        t0 = cls.t0 = (now_ms() - 40 * tc.MIN) // tc.MIN * tc.MIN
        for k in range(3):
            for i in range(7):
                lv = 1 + i / 20
                f.post("ab", f"fifo-{i}", t0 + k * 10000, "6.12.0-amd64", tc.SCX, 60000 * lv)
                f.post("ab", f"kern-{i}", t0 + k * 10000, "6.12.0-kern", tc.OFF, 40000 * lv)
                f.post("after", f"kern-{i}", t0 + 10 * tc.MIN + k * 10000, "6.12.0-kern", tc.OFF, 28000 * lv)
        cls.win = {"from": t0 - 30000, "to": t0 + 90000}
        cls.after = {"from": t0 + 10 * tc.MIN - 30000, "to": t0 + 10 * tc.MIN + 90000}
        # the reports are late for a new database: wait until the compare API reads all of them
        q = "/api/v1/compare?" + urllib.parse.urlencode({"a": "kernel=6", "b": "kernel=6", **cls.win})
        q2 = "/api/v1/compare?" + urllib.parse.urlencode({"a": "kernel=6", "b": "kernel=6", **cls.after})
        wait_for(lambda: cls.srv.get_json(q)["a"]["samples"] == f.samples("ab") and
                 cls.srv.get_json(q2)["a"]["samples"] == f.samples("after"),
                 timeout=180, what="the minute rollups of the late reports")

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def post(self, doc, token="admin", raw=None, headers=None):
        h = dict(JSON, **(headers or {}))
        if token:
            h["Authorization"] = "Bearer " + (getattr(self, token) if token in ("admin", "ingest") else token)
        return self.srv.request("POST", "/api/v1/experiments", raw if raw is not None else json.dumps(doc).encode(),
                                h)

    def create(self, **doc):
        r = self.post(doc)
        self.assertEqual(r.status, 201, r.body)
        return r.json()

    def stored(self):
        return query(self.srv.db, "SELECT count(*) FROM experiments")[0][0]

    def listed(self):
        return {e["name"]: e for e in self.srv.get_json("/api/v1/experiments")["experiments"]}

    def test_create_needs_an_admin_token(self):
        doc = {"name": "auth check", "a": "sched=scx_fifo", "b": "sched=eevdf", "window": {"last_hours": 1}}
        before = self.stored()
        for token, status in [(None, 401), ("ingest", 403), ("not-a-token", 401)]:
            r = self.post(doc, token=token)
            self.assertEqual(r.status, status, (token, r.body))
            self.assertIn("error", r.json())
        r = self.post(doc, headers={"Authorization": "Basic eDp5"}, token=None)
        self.assertEqual(r.status, 401)
        self.assertEqual(self.stored(), before, "a refused POST stores nothing")
        self.assertNotIn("auth check", self.listed())
        got = self.create(**doc)
        self.assertEqual(self.stored(), before + 1)
        self.assertIsInstance(got["id"], int)
        self.assertAlmostEqual(got["created_ms"], now_ms(), delta=60000)
        # the definition as stored: canonical selectors, defaults filled in
        self.assertEqual({k: got[k] for k in ("name", "a", "b", "metric", "threshold", "cgroup", "window")},
                         {"name": "auth check", "a": "sched=scx_fifo", "b": "sched=eevdf", "metric": "p99",
                          "threshold": 0.05, "cgroup": None, "window": {"last_hours": 1}})

    def test_list_carries_the_verdicts_now(self):
        fifo = [f"fifo-{i}" for i in range(7)]
        kern = [f"kern-{i}" for i in range(7)]
        worse = self.create(name="fifo vs eevdf", a=" sched = scx_fifo ", b="sched=eevdf", metric="p99",
                            threshold=0.05, cgroup=None, window=self.win)
        self.assertEqual(worse["a"], "sched=scx_fifo")
        self.create(name="eevdf vs fifo", a="sched=eevdf", b="sched=scx_fifo", window=self.win)
        self.create(name="fifo vs eevdf, last day", a="sched=scx_fifo", b="sched=eevdf", window={"last_hours": 24})
        self.create(name="nothing vs eevdf", a="sched=scx_nothing", b="sched=eevdf", window=self.win)
        self.create(name="after vs before", a="kernel=6.12.0-kern", b="kernel=6.12.0-kern",
                    window={"a_from": self.after["from"], "a_to": self.after["to"],
                            "b_from": self.win["from"], "b_to": self.win["to"]})
        got = self.listed()
        # fifo's p99 is 1.5x: the ratio is the median of the test's own per-host p99s, A over B
        want = median_p99(self.fleet, "ab", fifo, "scx_fifo") / median_p99(self.fleet, "ab", kern, "eevdf")
        self.assertGreater(want, 1.3)
        e = got["fifo vs eevdf"]
        self.assertEqual(e["verdict"], "worse", e["summary"])
        self.assertAlmostEqual(e["ratio"], want, delta=1e-9 * want)
        self.assertTrue(e["ci"][0] > 1.05 and e["ci"][0] <= e["ratio"] <= e["ci"][1], e["ci"])
        self.assertIn("higher", e["summary"])
        self.assertEqual(set(e), {"id", "name", "a", "b", "metric", "threshold", "cgroup", "window", "created_ms",
                                  "verdict", "ratio", "ci", "summary"})
        self.assertEqual(e["id"], worse["id"])
        e = got["eevdf vs fifo"]
        self.assertEqual(e["verdict"], "better", e["summary"])
        self.assertAlmostEqual(e["ratio"], 1 / want, delta=1e-9 / want)
        # the last day holds both windows: B's hosts ran EEVDF in each
        e = got["fifo vs eevdf, last day"]
        self.assertEqual((e["verdict"], e["window"]), ("worse", {"last_hours": 24}))
        day = [tc.metric_of(tc.add(self.fleet.truth[("ab", h)]["eevdf"], self.fleet.truth[("after", h)]["eevdf"]),
                            "p99") for h in kern]
        want_day = median_p99(self.fleet, "ab", fifo, "scx_fifo") / statistics.median(day)
        self.assertAlmostEqual(e["ratio"], want_day, delta=1e-9 * want_day)
        e = got["nothing vs eevdf"]
        self.assertEqual((e["verdict"], e["ratio"], e["ci"]), ("inconclusive", None, None))
        # before/after on the same hosts: 28000 against 40000, paired, better
        e = got["after vs before"]
        self.assertEqual(e["verdict"], "better", e["summary"])
        ratios = [tc.metric_of(self.fleet.truth[("after", h)]["host"], "p99") /
                  tc.metric_of(self.fleet.truth[("ab", h)]["host"], "p99") for h in kern]
        self.assertAlmostEqual(e["ratio"], statistics.median(ratios), delta=1e-9)
        self.assertLess(abs(e["ratio"] - 0.7), 0.07, "the true ratio is 0.7, within a bucket")

    def compare(self, **params):
        return self.srv.get_json("/api/v1/compare?" + urllib.parse.urlencode(params))

    def test_get_one_is_the_compare_answer(self):
        made = self.create(name="one: fifo vs eevdf p90", a="sched=scx_fifo", b="sched=eevdf", metric="p90",
                           threshold=0.1, cgroup="/workload.slice/", window=self.win)
        self.assertEqual(made["cgroup"], "/workload.slice")
        doc = self.srv.get_json(f"/api/v1/experiments/{made['id']}")
        self.assertEqual(doc.pop("experiment"), made)
        want = self.compare(a="sched=scx_fifo", b="sched=eevdf", metric="p90", threshold=0.1,
                            cgroup="/workload.slice", **self.win)
        self.assertEqual(doc, want, "the experiment answers exactly as compare does")
        self.assertEqual(doc["verdict"], "worse")
        self.assertEqual(doc["a"]["hosts"], 7)
        # per-arm windows: compare's a_from ... b_to
        made = self.create(name="one: before/after", a="kernel=6.12.0-kern", b="kernel=6.12.0-kern",
                           window={"a_from": self.after["from"], "a_to": self.after["to"],
                                   "b_from": self.win["from"], "b_to": self.win["to"]})
        doc = self.srv.get_json(f"/api/v1/experiments/{made['id']}")
        self.assertEqual(doc.pop("experiment"), made)
        self.assertEqual(doc, self.compare(a="kernel=6.12.0-kern", b="kernel=6.12.0-kern", a_from=self.after["from"],
                                           a_to=self.after["to"], b_from=self.win["from"], b_to=self.win["to"]))
        self.assertTrue(doc["paired"])
        # the last N hours: the window ends now
        made = self.create(name="one: last 2 hours", a="sched=scx_fifo", b="sched=eevdf", window={"last_hours": 2})
        doc = self.srv.get_json(f"/api/v1/experiments/{made['id']}")
        self.assertAlmostEqual(doc["a"]["to"], now_ms(), delta=60000)
        self.assertEqual(doc["a"]["to"] - doc["a"]["from"], 2 * tc.HOUR)
        self.assertEqual((doc["b"]["from"], doc["b"]["to"]), (doc["a"]["from"], doc["a"]["to"]))
        self.assertEqual(doc["verdict"], "worse")
        # ids that are not there, or not ids
        for path, status in [("/api/v1/experiments/999999", 404), ("/api/v1/experiments/abc", 400),
                             ("/api/v1/experiments/0", 400), ("/api/v1/experiments/-1", 400),
                             ("/api/v1/experiments/99999999999999999999999", 400)]:
            r = self.srv.request("GET", path)
            self.assertEqual(r.status, status, (path, r.body))

    def test_a_taken_name_is_409(self):
        doc = {"name": "twice", "a": "sched=scx_fifo", "b": "sched=eevdf", "window": {"last_hours": 1}}
        first = self.create(**doc)
        n = self.stored()
        r = self.post(dict(doc, a="sched=eevdf"))
        self.assertEqual(r.status, 409, r.body)
        self.assertIn("twice", r.json()["error"])
        self.assertEqual(self.stored(), n)
        self.assertEqual(self.listed()["twice"]["a"], first["a"], "the first definition stays")

    def test_delete_needs_admin_then_404(self):
        made = self.create(name="to delete", a="sched=scx_fifo", b="sched=eevdf", window={"last_hours": 1})
        path = f"/api/v1/experiments/{made['id']}"
        for h, status in [({}, 401), ({"Authorization": "Bearer " + self.ingest}, 403)]:
            r = self.srv.request("DELETE", path, headers=h)
            self.assertEqual(r.status, status, r.body)
        self.assertEqual(self.srv.get_json(path)["experiment"]["name"], "to delete")
        admin = {"Authorization": "Bearer " + self.admin}
        r = self.srv.request("DELETE", path, headers=admin)
        self.assertEqual((r.status, r.body), (204, b""))
        self.assertEqual(self.srv.request("GET", path).status, 404)
        self.assertNotIn("to delete", self.listed())
        self.assertEqual(self.srv.request("DELETE", path, headers=admin).status, 404)
        self.assertEqual(self.srv.request("DELETE", "/api/v1/experiments/x", headers=admin).status, 400)
        # an id is never given again: a new experiment of the same name gets a new one
        again = self.create(name="to delete", a="sched=scx_fifo", b="sched=eevdf", window={"last_hours": 1})
        self.assertGreater(again["id"], made["id"])
        r = self.srv.request("PUT", "/api/v1/experiments", b"{}", admin)
        self.assertEqual(r.status, 405)

    def test_bad_bodies_are_4xx_naming_the_field_and_store_nothing(self):
        ok = {"name": "bad body", "a": "sched=scx_fifo", "b": "sched=eevdf", "window": {"last_hours": 1}}
        before = self.stored()
        cases = [
            (b"", "not valid JSON"),
            (b"{", "not valid JSON"),
            (b'{"name": "x",}', "not valid JSON"),
            (b'{"name": "a\\u0000b", "a": "sched=x", "b": "sched=y", "window": {"last_hours": 1}}', "not valid JSON"),
            (b'{"name": "\xff\xfe", "a": "sched=x", "b": "sched=y", "window": {"last_hours": 1}}', "not valid JSON"),
            (b"[" * 100000 + b"]" * 100000, None),  # deeper than JSON_MAX_DEPTH, and over the body limit
            (b"[" * 1000 + b"]" * 1000, "not valid JSON"),
            (b"[]", "must be a JSON object"),
            (b'"x"', "must be a JSON object"),
            (json.dumps(dict(ok, extra=1)).encode(), "unknown field 'extra'"),
            (json.dumps(dict(ok, id=5)).encode(), "unknown field 'id'"),
            (b'{"name": "x", "name": "y", "a": "sched=x", "b": "sched=y", "window": {"last_hours": 1}}',
             "name is given twice"),
        ]
        fields = [
            ({"name": None}, "name must be a string"),
            ({"name": 5}, "name must be a string"),
            ({"name": ["x"]}, "name must be a string"),
            ({"name": ""}, "name must have 1 to 128 bytes"),
            ({"name": "x" * 129}, "name must have 1 to 128 bytes"),
            ({"name": "   "}, "name must not be blank"),
            ({"name": "bell\u0007"}, "name has a control character"),
            ({"name": "line\nbreak"}, "name has a control character"),
            ({"a": None}, "a must be a string"),
            ({"b": 7}, "b must be a string"),
            ({"a": ""}, "a: the selector is empty"),
            ({"a": "schd=x"}, "a: unknown term 'schd'"),
            ({"b": "label.Role=web"}, "b: label key 'Role'"),
            ({"a": "sched=" + "x" * 5000}, "a is longer than the limit"),
            ({"metric": "p98"}, "metric must be p50, p90, p99, p999 or mean"),
            ({"metric": 99}, "metric must be"),
            ({"threshold": 0}, "threshold must be"),
            ({"threshold": 1}, "threshold must be"),
            ({"threshold": "0.05"}, "threshold must be"),
            ({"cgroup": "system.slice"}, "cgroup must be a cgroup path"),
            ({"cgroup": 5}, "cgroup must be a string"),
            ({"cgroup": "/a\u0001b"}, "cgroup has a control character"),
            ({"window": None}, "window must be an object"),
            ({"window": [1, 2]}, "window must be an object"),
            ({"window": {}}, "window must be one of"),
            ({"window": {"last_hours": 0}}, "window.last_hours must be a whole number"),
            ({"window": {"last_hours": 1.5}}, "window.last_hours must be a whole number"),
            ({"window": {"last_hours": 10000}}, "window.last_hours must be a whole number"),
            ({"window": {"last_hours": "24"}}, "window.last_hours must be a whole number"),
            ({"window": {"last_hours": 2, "from": 1, "to": 5}}, "not a mix"),
            ({"window": {"from": 5}}, "window.to is required"),
            ({"window": {"from": 5, "to": 5}}, "window: to must be after from"),
            ({"window": {"from": 9, "to": 5}}, "window: to must be after from"),
            ({"window": {"from": -1, "to": 5}}, "window.from must be a non-negative integer"),
            ({"window": {"from": 1.5, "to": 5}}, "window.from must be a non-negative integer"),
            ({"window": {"from": 1e300, "to": 5}}, "window.from must be a non-negative integer"),
            ({"window": {"a_from": 1, "a_to": 5, "b_from": 1}}, "window.b_to is required"),
            ({"window": {"a_from": 1, "a_to": 5, "b_from": 8, "b_to": 6}}, "window: b_to must be after b_from"),
            ({"window": {"since": 5}}, "window: unknown field 'since'"),
        ]
        cases += [(json.dumps(dict(ok, **change)).encode(), want) for change, want in fields]
        for missing in ("name", "a", "b", "window"):
            cases.append((json.dumps({k: v for k, v in ok.items() if k != missing}).encode(), missing + " is required"))
        for raw, want in cases:
            r = self.post(None, raw=raw)
            self.assertIn(r.status, (400, 413) if want is None else (400,), (raw[:80], r.body))
            if want:
                self.assertIn(want, r.json()["error"], raw[:200])
        # huge bodies: over the definition's limit, and over the server's
        r = self.post(dict(ok, name="huge", a="sched=x," + ",".join(f"label.k{i}=v" for i in range(9000))))
        self.assertEqual(r.status, 413, r.body[:200])
        self.assertIn("65536", r.json()["error"])
        self.assertEqual(self.announced_only(5 << 20), 413)
        self.assertEqual(self.stored(), before, "no refused body stored anything")
        self.assertNotIn("bad body", self.listed())

    def announced_only(self, length):
        """Status of a POST that announces length bytes (past the server's cap) and sends a few: the server
        answers from the headers, before reading the body or the token."""
        u = urllib.parse.urlsplit(self.srv.url)
        with socket.create_connection((u.hostname, u.port), timeout=10) as sock:
            sock.sendall(b"POST /api/v1/experiments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Authorization: Bearer " + self.admin.encode() +
                         b"\r\nContent-Length: %d\r\n\r\n{\"name\": \"" % length)
            data = contract.read_answer(sock)
        contract.check_raw("POST", "/api/v1/experiments", data)
        return int(data.split(b" ")[1])

    def test_odd_but_valid_names_come_back_byte_for_byte(self):
        names = ["x'); DROP TABLE experiments; --", '<script>alert("x")</script>', "naïve ✓ 調度器",
                 "back\\slash \"quoted\"", "n" * 128, "%s%n%x"]
        made = {n: self.create(name=n, a="sched=scx_fifo", b="sched=eevdf", window={"last_hours": 1}) for n in names}
        got = self.listed()
        for n in names:
            self.assertEqual(got[n]["id"], made[n]["id"], n)
            self.assertEqual(self.srv.get_json(f"/api/v1/experiments/{made[n]['id']}")["experiment"]["name"], n)
        self.assertGreaterEqual(query(self.srv.db, "SELECT count(*) FROM experiments")[0][0], len(names))

    def test_experiments_survive_a_restart(self):
        made = self.create(name="kept", a="sched=scx_fifo", b="sched=eevdf", window=self.win)
        before = self.srv.get_json(f"/api/v1/experiments/{made['id']}")
        self.srv.stop()
        self.srv.restart()
        after = self.srv.get_json(f"/api/v1/experiments/{made['id']}")
        self.assertEqual(after, before)


if __name__ == "__main__":
    main()
