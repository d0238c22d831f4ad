"""test_server_labels.py - host labels (issue 15) on the real server over real
HTTP: labelled reports are taken, a host relabelled mid-way shows its new
labels in the hosts list and detail while its older reports keep the old ones
(the stored runs of reports, read from the database, start exactly at the
report that changed them), hosts without labels have no "labels" field,
?label.K=V filters (repeatable, all must hold), /metrics carries
schedio_host_labels only for labelled hosts, and bad labels or filters are a
400 naming the label with nothing stored. The real agent's labels, from its
configuration file and flags, reach the server the same way."""
import json
import os
import re
import tempfile
import unittest

from harness import Server, binary, main, query, run
from report_factory import body, now_ms, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
INTERVAL = 10000


def post(s, rep):
    return s.request("POST", "/api/v1/reports", body(rep, True), GZ)


def labelled(host, seq, start, labels):
    rep = report(host, seq, start_ms=start, interval_ms=INTERVAL, cgroups=1, cpus=1, disks=0)
    if labels is not None:
        rep["host"]["labels"] = labels
    return rep


def hosts(s, qs=""):
    return {h["id"]: h for h in s.get_json("/api/v1/hosts" + qs)["hosts"]}


def label_samples(s):
    """{host_id: {label_K: V}} of every schedio_host_labels sample, and the family's TYPE line (or None)."""
    text = s.request("GET", "/metrics").body.decode()
    out = {}
    for m in re.finditer(r"^schedio_host_labels\{(.*)\} (\S+)$", text, re.M):
        pairs = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        assert m.group(2) == "1", m.group(0)
        out[pairs.pop("host_id")] = pairs
    t = re.search(r"^# TYPE schedio_host_labels (\S+)$", text, re.M)
    return out, t.group(1) if t else None


class ServerLabels(unittest.TestCase):
    def setUp(self):
        self.base = now_ms() - 30 * 60000

    def test_relabelled_host_keeps_old_labels_on_old_reports(self):
        b = self.base
        web = {"role": "web", "dc": "a"}
        db = {"dc": "a", "role": "db"}
        with Server("--open-ingest") as s:
            for i in range(10):  # h1: web for its first 5 reports, db from its 6th
                self.assertEqual(post(s, labelled("h1", i + 1, b + i * INTERVAL, web if i < 5 else db)).status, 200)
                self.assertEqual(post(s, labelled("h2", i + 1, b + i * INTERVAL, {"role": "web"})).status, 200)
                self.assertEqual(post(s, labelled("h3", i + 1, b + i * INTERVAL, None)).status, 200)
            # a resent report (old labels) is a duplicate and changes nothing
            r = post(s, labelled("h1", 2, b + INTERVAL, web))
            self.assertEqual((r.status, r.json().get("duplicate")), (200, True))

            got = hosts(s)
            self.assertEqual(got["h1"]["labels"], {"dc": "a", "role": "db"})
            self.assertEqual(got["h2"]["labels"], {"role": "web"})
            self.assertNotIn("labels", got["h3"])
            self.assertEqual(s.get_json("/api/v1/hosts/h1")["labels"], {"dc": "a", "role": "db"})
            self.assertNotIn("labels", s.get_json("/api/v1/hosts/h3"))

            # The stored runs: h1's reports 1..5 carried web, 6..10 db; h2 one run; h3 none.
            rows = query(s.db, "SELECT h.machine_id, l.first_ms, l.last_ms, l.labels FROM label_spans l "
                               "JOIN hosts h ON h.id = l.host_id ORDER BY h.machine_id, l.first_ms")
            self.assertEqual([tuple(r) for r in rows], [
                ("h1", b, b + 4 * INTERVAL, "dc=a,role=web"),
                ("h1", b + 5 * INTERVAL, b + 9 * INTERVAL, "dc=a,role=db"),
                ("h2", b, b + 9 * INTERVAL, "role=web"),
            ])

            # The filter: every term must hold, on the latest labels.
            self.assertEqual(sorted(hosts(s, "?label.role=web")), ["h2"])
            self.assertEqual(sorted(hosts(s, "?label.role=db")), ["h1"])
            self.assertEqual(sorted(hosts(s, "?label.dc=a&label.role=db")), ["h1"])
            self.assertEqual(sorted(hosts(s, "?label.dc=a&label.role=web")), [])
            self.assertEqual(sorted(hosts(s, "?label.role=db&label.role=web")), [])
            self.assertEqual(sorted(hosts(s, "?label.role=we")), [])  # whole values only
            self.assertEqual(sorted(hosts(s, "?label.role=web&q=h2")), ["h2"])
            self.assertEqual(sorted(hosts(s, "?label.role=web&q=h1")), [])
            self.assertEqual(sorted(hosts(s, "?label.zone=x")), [])
            self.assertEqual(sorted(hosts(s)), ["h1", "h2", "h3"])
            for qs, msg in (("?label.Role=web", "label.Role"), ("?label.role=", "label role: the value must be"),
                            ("?label.role=a%2Cb", "label role: the value may hold"), ("?label.=x", "label key ''")):
                r = s.request("GET", "/api/v1/hosts" + qs)
                self.assertEqual(r.status, 400, qs)
                self.assertIn(msg, r.json()["error"], qs)

            # /metrics: one info sample per labelled host, none for h3.
            samples, typ = label_samples(s)
            self.assertEqual(samples, {"h1": {"label_dc": "a", "label_role": "db"},
                                       "h2": {"label_role": "web"}})
            self.assertEqual(typ, "gauge")

            # h1's labels removed: its next report has none, and so has the host from then on.
            self.assertEqual(post(s, labelled("h1", 11, b + 10 * INTERVAL, None)).status, 200)
            self.assertNotIn("labels", hosts(s)["h1"])
            self.assertEqual(sorted(hosts(s, "?label.role=db")), [])
            self.assertEqual(label_samples(s)[0], {"h2": {"label_role": "web"}})

    def test_bad_labels_are_400_naming_the_label_and_store_nothing(self):
        b = self.base
        many = {f"k{i}": "v" for i in range(33)}
        cases = (({"Role": "web"}, "host.labels: label key 'Role' must be a lowercase letter"),
                 ({"role": "a,b"}, "host.labels: label role: the value may hold printable ASCII"),
                 ({"role": ""}, "host.labels: label role: the value must be 1..128 bytes, not 0"),
                 ({"role": "x" * 129}, "not 129"),
                 ({"k" * 64: "x"}, "(63 bytes at most)"),
                 ({"role": 1}, "host.labels.role must be a string"),
                 (["role"], "host.labels must be an object"),
                 (many, "host.labels has more than the limit of 32 labels"))
        with Server("--open-ingest") as s:
            for labels, msg in cases:
                r = post(s, labelled("bad", 1, b, labels))
                self.assertEqual(r.status, 400, labels)
                self.assertIn(msg, r.json()["error"], labels)
            self.assertEqual(hosts(s), {})
            # the limits themselves are taken
            edge = {f"k{i:062d}": "v" * 128 for i in range(32)}
            self.assertEqual(post(s, labelled("edge", 1, b, edge)).status, 200)
            self.assertEqual(hosts(s)["edge"]["labels"], edge)

    def test_schema_documents_what_the_server_takes(self):
        # schema/report.schema.json's host.labels accepts and refuses what the server does.
        import jsonschema  # python3-jsonschema, installed by deploy/install-deps.sh

        from harness import SOURCE
        with open(os.path.join(SOURCE, "schema", "report.schema.json")) as f:
            schema = json.load(f)
        check = jsonschema.validators.validator_for(schema)(schema)
        cases = [{"role": "web", "zone": "eu west-1:a"}, {f"k{i:062d}": "v" * 128 for i in range(32)},
                 {"Role": "web"}, {"role": "a,b"}, {"role": "a=b"}, {"role": ""}, {"role": "x" * 129},
                 {f"k{i}": "v" for i in range(33)}, {"role": 1}]
        with Server("--open-ingest") as s:
            for i, labels in enumerate(cases):
                rep = labelled(f"s{i}", 1, self.base, labels)
                del rep["host"]["l3_domains"]  # the factory's bare-list form, taken but not documented
                self.assertEqual(check.is_valid(rep), post(s, rep).status == 200, labels)

    def test_no_labels_anywhere_leaves_answers_as_before(self):
        with Server("--open-ingest") as s:
            self.assertEqual(post(s, labelled("plain", 1, self.base, None)).status, 200)
            self.assertEqual(post(s, labelled("plain", 2, self.base + INTERVAL, {})).status, 200)
            self.assertNotIn("labels", hosts(s)["plain"])
            self.assertNotIn("labels", s.get_json("/api/v1/hosts/plain"))
            self.assertEqual(label_samples(s), ({}, None))
            self.assertEqual(query(s.db, "SELECT count(*) FROM label_spans"), [(0,)])

    def test_real_agent_labels_from_file_and_flags_reach_the_server(self):
        d = tempfile.mkdtemp(prefix="schedio-labels-")
        try:
            conf = os.path.join(d, "agent.conf")
            with open(conf, "w") as f:
                f.write("label.role = web\nlabel.canary = 1\n[agent]\nlabel.zone = eu west-1:a\n")
            agent = [binary("schedio-agent"), "--config", conf, "--once", "--duration", "1",
                     "--disable", "runqlat,iocost,sched_ext,topology,agent_cost"]
            # --stdout: the report as the agent makes it; a flag wins over the file.
            r = run(agent + ["--stdout", "--label.role=db", "--label", "tier=2"], timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["host"]["labels"],
                             {"role": "db", "canary": "1", "zone": "eu west-1:a", "tier": "2"})
            r = run(agent + ["--check-config", "--server", "http://127.0.0.1:9", "--label.tier", "3"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("label.role = web\nlabel.canary = 1\nlabel.zone = eu west-1:a\nlabel.tier = 3\n", r.stdout)
            # Bad labels: in the file, the file and line; as flags, a usage error naming the flag.
            with open(conf, "a") as f:
                f.write("label.Zone = x\n")
            r = run(agent + ["--stdout"], timeout=60)
            self.assertEqual(r.returncode, 1)
            self.assertIn("agent.conf:5: label key 'Zone' must be a lowercase letter", r.stderr)
            r = run([binary("schedio-agent"), "--config", os.devnull, "--check-config", "--label.role=a,b"])
            self.assertEqual(r.returncode, 2)
            self.assertIn("--label.role: label role: the value may hold", r.stderr)
            r = run([binary("schedio-agent"), "--config", os.devnull, "--check-config", "--label", "role"])
            self.assertEqual(r.returncode, 2)
            self.assertIn("--label wants KEY=VALUE", r.stderr)
            # Sent to a real server, the report's labels are the host's.
            with open(conf, "w") as f:
                f.write("label.role = web\nlabel.canary = 1\n")
            with Server("--open-ingest") as s:
                r = run(agent + ["--server", s.url], timeout=60)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open("/etc/machine-id") as f:
                    mine = f.read().strip()
                self.assertEqual(hosts(s)[mine]["labels"], {"role": "web", "canary": "1"})
                self.assertEqual(sorted(hosts(s, "?label.canary=1")), [mine])
        finally:
            run(["rm", "-rf", d])


if __name__ == "__main__":
    main()
