"""test_ssd_quick.py - schedio bench results (schedio.ssdbench.v1, "quick"
benches) in the SSD database over real HTTP (issue 16): a realistic result
imports and reads back with its phases and warnings, is listed under its
model with its kind; a model with quick benches only gets a model line whose
values are the medians of its results (computed here from the submitted
JSON) and no QoS, in config, on the model page and in the hwdb; a model with
a full resctl-bench result keeps exactly the recommendation it had; the
fleet view compares a host's disk with a quick-only model; duplicates are
found by content; every malformed or hostile result gets a 4xx naming the
field, and the database's rows are the same before and after."""
import copy
import gzip
import hashlib
import json
import os
import shutil
import tempfile
import time
import unittest
import urllib.parse

import harness

FIXTURE = os.path.join(harness.SOURCE, "tests", "fixtures", "ssdbench", "quick-result.json")
SCHEMA = os.path.join(harness.SOURCE, "schema", "ssdbench.schema.json")
KEYS = ["rbps", "rseqiops", "rrandiops", "wbps", "wseqiops", "wrandiops"]
POST = "/api/v1/ssd/results"


def fixture():
    with open(FIXTURE) as f:
        return json.load(f)


def bench(model, fwrev="FW1", scale=1.0, **over):
    """The fixture for another device, its six parameters scaled (and rounded as the CLI would)."""
    doc = fixture()
    doc["device"]["model"] = model
    doc["device"]["fwrev"] = fwrev
    doc["model"] = {k: round(v * scale) for k, v in doc["model"].items()}
    doc.update(over)
    return doc


def body(doc):
    return json.dumps(doc).encode()


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def round_half_up(x):
    """The server rounds halves away from zero (C's round()), not to even as Python does."""
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)


def full_result(model, fwrev="FW1", rbps=1000):
    """A small well-formed resctl-bench result (a full run), as test_ssd_api writes them."""
    sysinfo = {"bench_version": "2.2.3 x86_64", "sysreqs_report": {
        "scr_dev_model": model, "scr_dev_fwrev": fwrev, "scr_dev_size": 1000, "kernel_version": "6.1.0"}}
    m = {"rbps": rbps, "rseqiops": 10, "rrandiops": 20, "wbps": 500, "wseqiops": 5, "wrandiops": 6}
    q = {"rpct": 95.0, "rlat": 1000, "wpct": 95.0, "wlat": 2000, "min": 60.0, "max": 100.0}
    return [{"spec": {"kind": "iocost-params"}, "sysinfo": sysinfo, "record": {"model": m, "qos": q}},
            {"spec": {"kind": "iocost-tune"}, "sysinfo": sysinfo,
             "result": {"solutions": {"naive": {"model": m, "qos": q}, "isolation": {"model": m, "qos": q}}}}]


def report(host, seq, disks):
    now = int(time.time() * 1000)
    return {"schema": "schedio.report.v1", "seq": seq,
            "host": {"id": host, "hostname": host, "kernel": "6.1.0", "cpus": 2},
            "interval": {"start_ms": now - 10000, "end_ms": now},
            "iocost": {"source": "tracepoints", "disks": disks, "cgroups": []}}


class SsdQuick(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server().start()
        cls.auth = {"Authorization": "Bearer " + cls.srv.add_token("t", "submit")}
        cls.ingest = {"Authorization": "Bearer " + cls.srv.add_token("i", "ingest")}

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def submit(self, data, status=201):
        r = self.srv.request("POST", POST, data, self.auth)
        self.assertEqual(r.status, status, r.body[:300])
        return r.json()

    def model_page(self, model_id):
        return self.srv.get_json("/api/v1/ssd/models/" + urllib.parse.quote(model_id))

    def test_fixture_follows_the_published_schema(self):
        import jsonschema
        with open(SCHEMA) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(fixture())

    def test_realistic_result_imports_and_reads_back_with_phases_and_warnings(self):
        with open(FIXTURE, "rb") as f:
            raw = f.read()
        doc = json.loads(raw)
        sub = self.submit(raw)
        self.assertEqual(sub["id"], hashlib.md5(raw).hexdigest())
        self.assertEqual((sub["kind"], sub["model"], sub["model_id"], sub["fwrev"], sub["bench_version"],
                          sub["solutions"], sub["duplicate"]),
                         ("quick", doc["device"]["model"], doc["device"]["model"].replace(" ", "_"),
                          doc["device"]["fwrev"], doc["tool"]["version"], [], False))
        got = self.srv.get_json(f"/api/v1/ssd/results/{sub['id']}")
        self.assertEqual(got["kind"], "quick")
        self.assertEqual(got["params"], {"model": doc["model"], "qos": None})
        self.assertEqual(got["solutions"], {})
        self.assertEqual((got["size_bytes"], got["kernel"], got["merged"]),
                         (doc["device"]["size_bytes"], doc["kernel"], False))
        b = got["bench"]
        self.assertEqual((b["started_ms"], b["duration_s"], b["target"], b["rotational"], b["nphases"], b["nwarnings"]),
                         (doc["started_ms"], doc["duration_s"], "block", False, 6, 2))
        self.assertEqual(b["phases"], doc["phases"])  # every field the format has, as sent
        self.assertEqual(b["warnings"], doc["warnings"])
        # the original file, kept as submitted (compressed)
        f = self.srv.request("GET", f"/api/v1/ssd/results/{sub['id']}/file")
        self.assertEqual(gzip.decompress(f.body), raw)
        # listed under its model with its kind
        models = self.srv.get_json("/api/v1/ssd/models?q=MZVL21T0")["models"]
        self.assertEqual([(m["model"], m["submissions"], m["kinds"], m["solutions"]) for m in models],
                         [(doc["device"]["model"], 1, {"full": 0, "quick": 1}, [])])
        page = self.model_page(sub["model_id"])
        self.assertEqual(page["kinds"], {"full": 0, "quick": 1})
        self.assertEqual([(r["id"], r["kind"]) for r in page["results"]], [(sub["id"], "quick")])
        self.assertEqual(page["results"][0]["params"], {"model": doc["model"], "qos": None})
        self.assertEqual(page["results"][0]["bench"]["phases"], doc["phases"])
        self.assertEqual(page["results"][0]["bench"]["warnings"], doc["warnings"])
        self.assertEqual(page["basis"], "quick")

    def test_quick_only_model_gets_the_median_model_line_and_no_qos(self):
        model = "Quick Only SSD 2TB"
        scales = [1.0, 0.93, 1.12, 0.97]  # an even count: the median is the mean of the middle two
        docs = [bench(model, "QF1", s) for s in scales]
        docs[2]["model"]["wrandiops"] = 17  # one broken run must not drag the median
        for d in docs:
            self.assertEqual(self.submit(gzip.compress(body(d)))["kind"], "quick")
        want = {k: round_half_up(median([d["model"][k] for d in docs])) for k in KEYS}
        lo = {k: min(d["model"][k] for d in docs) for k in KEYS}
        hi = {k: max(d["model"][k] for d in docs) for k in KEYS}
        page = self.model_page(model.replace(" ", "_"))
        self.assertEqual((page["basis"], page["kinds"], page["submissions"]), ("quick", {"full": 0, "quick": 4}, 4))
        self.assertIn("no QoS", page["note"])
        self.assertEqual(page["bench_version"], "0.7")
        self.assertEqual(list(page["recommended"]), ["quick"])
        rec = page["recommended"]["quick"]
        self.assertEqual(rec["model"], want)
        self.assertIsNone(rec["qos"])
        self.assertEqual(rec["submissions"], 4)
        self.assertEqual(rec["spread"], {k: [lo[k], hi[k]] for k in KEYS})

        r = self.srv.request("GET", "/api/v1/ssd/models/" + model.replace(" ", "_") + "/config?dev=259:3")
        self.assertEqual(r.status, 200, r.body)
        line = "259:3 ctrl=user model=linear " + " ".join(f"{k}={want[k]}" for k in KEYS) + "\n"
        self.assertEqual(r.body.decode(), line)  # the model line alone: no io.cost.qos line
        self.assertEqual((r.headers.get("x-schedio-basis"), r.headers.get("x-schedio-solution")), ("quick", "quick"))
        r = self.srv.request("GET", "/api/v1/ssd/models/" + model.replace(" ", "_") + "/config?solution=naive")
        self.assertTrue(r.body.decode().startswith("MAJ:MIN ctrl=user model=linear rbps="), r.body)
        self.assertNotIn(b"enable=1", r.body)

        hwdb = self.srv.request("GET", "/api/v1/ssd/hwdb?model=" + model.replace(" ", "_")).body.decode()
        self.assertIn(f"block:*:name:{model}:fwrev:QF1:\n IOCOST_SOLUTIONS=quick\n IOCOST_MODEL_QUICK=" +
                      line.split("model=linear ")[1], hwdb)
        self.assertNotIn("IOCOST_QOS", hwdb)
        self.assertIn("quick benches (schedio bench) only, 4 submission(s): io.cost model without QoS", hwdb)

    def test_quick_only_hwdb_entry_compiles_and_has_no_qos(self):
        tool = shutil.which("systemd-hwdb")
        if not tool:
            self.skipTest("systemd-hwdb is not installed")
        model = "Hwdb Quick SSD"
        docs = [bench(model, "HQ1", s) for s in (1.0, 1.2, 0.8)]
        for d in docs:
            self.submit(body(d))
        want = " ".join(f"{k}={round_half_up(median([d['model'][k] for d in docs]))}" for k in KEYS)
        r = self.srv.request("GET", "/api/v1/ssd/hwdb")
        root = tempfile.mkdtemp(prefix="schedio-hwdb-")
        try:
            os.makedirs(os.path.join(root, "etc/udev/hwdb.d"))
            with open(os.path.join(root, "etc/udev/hwdb.d/90-schedio-iocost.hwdb"), "wb") as fh:
                fh.write(r.body)
            p = harness.run([tool, "--root", root, "update", "--strict"])
            self.assertEqual((p.returncode, p.stderr), (0, ""))
            p = harness.run([tool, "--root", root, "query", f"block:devpath:/x:name:{model}:fwrev:HQ1:"])
            props = dict(line.split("=", 1) for line in p.stdout.splitlines())
            self.assertEqual(props, {"IOCOST_SOLUTIONS": "quick", "IOCOST_MODEL_QUICK": want})
        finally:
            shutil.rmtree(root)

    def test_model_with_a_full_result_keeps_its_recommendation(self):
        model = "Mixed Kinds SSD"
        mid = model.replace(" ", "_")
        full = self.submit(gzip.compress(body(full_result(model))))
        self.assertEqual(full["kind"], "full")
        before = self.model_page(mid)
        self.assertNotIn("kinds", before)  # as before quick benches existed
        self.assertNotIn("kind", before["results"][0])
        cfg_before = self.srv.request("GET", f"/api/v1/ssd/models/{mid}/config?dev=8:0")
        hwdb_before = self.srv.request("GET", f"/api/v1/ssd/hwdb?model={mid}").body
        # quick benches far from the full result, same model and firmware
        for s in (5.0, 6.0, 7.0):
            self.submit(body(bench(model, "FW1", s)))
        after = self.model_page(mid)
        self.assertEqual(after["recommended"], before["recommended"])
        self.assertEqual((after["bench_version"], after["source"]), (before["bench_version"], before["source"]))
        self.assertEqual((after["basis"], after["kinds"], after["submissions"]), ("full", {"full": 1, "quick": 3}, 4))
        self.assertEqual(sorted(r["kind"] for r in after["results"]), ["full", "quick", "quick", "quick"])
        cfg_after = self.srv.request("GET", f"/api/v1/ssd/models/{mid}/config?dev=8:0")
        self.assertEqual((cfg_after.status, cfg_after.body), (200, cfg_before.body))
        self.assertIn(b"enable=1", cfg_after.body)
        self.assertIsNone(cfg_after.headers.get("x-schedio-basis"))
        self.assertEqual(self.srv.request("GET", f"/api/v1/ssd/hwdb?model={mid}").body, hwdb_before)
        # a quick bench of another firmware adds no hwdb entry and moves no disk's recommendation
        self.submit(body(bench(model, "FW2", 9.0)))
        self.assertEqual(self.srv.request("GET", f"/api/v1/ssd/hwdb?model={mid}").body, hwdb_before)
        self.assertEqual(self.srv.request("GET", f"/api/v1/ssd/models/{mid}/config?dev=8:0").body, cfg_before.body)
        rec = before["recommended"]["isolation"]
        disk = {"dev": "8:0", "name": "sda", "model": model, "fwrev": "FW2", "enabled": True,
                "cost_model": {"ctrl": "user", "model": "linear", **rec["model"]},
                "qos": {"enable": 1, "ctrl": "user", **rec["qos"]}}
        r = self.srv.request("POST", "/api/v1/reports", report("mixed-host", 1, [disk]), self.ingest)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual([d["recommendation"] for d in self.srv.get_json("/api/v1/hosts/mixed-host")["disks"]],
                         ["in_use"])
        m = self.srv.get_json("/api/v1/ssd/models?q=mixed%20kinds")["models"]
        self.assertEqual([(x["submissions"], x["kinds"], x["fwrevs"], x["solutions"]) for x in m],
                         [(5, {"full": 1, "quick": 4}, ["FW1", "FW2"], ["isolation", "naive"])])

    def test_many_big_quick_benches_keep_the_model_page_under_1_mib(self):
        model = "Big Quick SSD"
        ids = []
        for i in range(8):
            doc = bench(model, "BQ1", 1 + i / 100)
            base = doc["phases"][0]
            doc["phases"] = [dict(base, series=[[round(0.5 * (k + 1), 1), 3180000000 + 997 * k + i] for k in range(600)],
                                  saturation=[[q + 1, 123456789 + q] for q in range(32)]) for _ in range(16)]
            ids.append(self.submit(body(doc))["id"])
        r = self.srv.request("GET", "/api/v1/ssd/models/Big_Quick_SSD")
        self.assertEqual(r.status, 200)
        self.assertLess(len(r.body), 1 << 20)
        results = r.json()["results"]
        with_phases = [x["id"] for x in results if "phases" in x["bench"]]
        self.assertTrue(0 < len(with_phases) < len(ids), len(with_phases))
        self.assertTrue(all(x["bench"]["nphases"] == 16 for x in results))
        missing = next(x["id"] for x in results if "phases" not in x["bench"])
        one = self.srv.get_json(f"/api/v1/ssd/results/{missing}")
        self.assertEqual((len(one["bench"]["phases"]), len(one["bench"]["phases"][0]["series"])), (16, 600))

    def test_duplicates_by_content(self):
        doc = bench("Dup Quick SSD", "D1")
        raw = body(doc)
        first = self.submit(raw)
        rows = self.rows()
        again = self.submit(raw, 200)
        self.assertEqual((again["id"], again["duplicate"], again["kind"]), (first["id"], True, "quick"))
        self.assertEqual(self.submit(gzip.compress(raw), 200)["duplicate"], True)  # id of the uncompressed JSON
        self.assertEqual(self.rows(), rows)
        self.assertEqual(self.model_page("Dup_Quick_SSD")["kinds"], {"full": 0, "quick": 1})
        other = self.submit(body(dict(doc, duration_s=99.0)))  # different bytes: another result
        self.assertNotEqual(other["id"], first["id"])

    def test_fleet_view_compares_a_disk_with_a_quick_only_model(self):
        model = "Fleet Quick SSD"
        for s in (1.0, 1.1, 0.9):
            self.submit(body(bench(model, "FQ1", s)))
        rec = self.model_page(model.replace(" ", "_"))["recommended"]["quick"]["model"]
        good = {"dev": "259:0", "name": "nvme0n1", "model": model + "   ", "fwrev": "FQ1", "enabled": True,
                "cost_model": {"ctrl": "user", "model": "linear", **rec},
                "qos": {"enable": 1, "ctrl": "auto", "rpct": 0, "rlat": 250, "wpct": 0, "wlat": 250,
                        "min": 50, "max": 150}}
        other = dict(good, dev="259:1", name="nvme1n1", cost_model=dict(good["cost_model"], wbps=rec["wbps"] + 1000))
        off = dict(good, dev="259:2", name="nvme2n1", enabled=False, qos=dict(good["qos"], enable=0))
        r = self.srv.request("POST", "/api/v1/reports", report("quick-host", 1, [good, other, off]), self.ingest)
        self.assertEqual(r.status, 200, r.body)
        want = {"nvme0n1": "in_use", "nvme1n1": "differs", "nvme2n1": "differs"}
        hosts = [h for h in self.srv.get_json("/api/v1/hosts")["hosts"] if h["id"] == "quick-host"]
        self.assertEqual({d["name"]: d["recommendation"] for d in hosts[0]["disks"]}, want)
        detail = self.srv.get_json("/api/v1/hosts/quick-host")
        self.assertEqual({d["name"]: d["recommendation"] for d in detail["disks"]}, want)

    def rows(self):
        return [harness.query(self.srv.db, f"SELECT count(*) FROM {t}")[0][0]
                for t in ("ssd_results", "ssd_files", "ssd_models")]

    def test_schedio_apply_writes_the_model_line_and_leaves_qos(self):
        model = "Apply Quick SSD"
        for s in (1.0, 1.05, 0.9):
            self.submit(body(bench(model, "AQ1", s)))
        line = self.srv.request("GET", "/api/v1/ssd/models/Apply_Quick_SSD/config?dev=259:4").body.decode()
        r = harness.run([harness.binary("schedio"), "config", "--server", self.srv.url, model, "--dev", "259:4"])
        self.assertEqual((r.returncode, r.stdout), (0, line))
        self.assertIn("solution quick (quick benches only: the io.cost.model line alone", r.stderr)
        tmp = tempfile.mkdtemp(prefix="schedio-apply-")
        try:
            for path, text in ((f"{tmp}/sys/block/nvme4n1/dev", "259:4\n"),
                               (f"{tmp}/sys/block/nvme4n1/device/model", model + "      \n"),
                               (f"{tmp}/sys/block/nvme4n1/device/firmware_rev", "AQ1\n"),
                               (f"{tmp}/cg/io.cost.model", ""), (f"{tmp}/cg/io.cost.qos", "old qos\n")):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            r = harness.run([harness.binary("schedio"), "apply", "--server", self.srv.url, "--sysfs-root",
                             f"{tmp}/sys", "--cgroup-root", f"{tmp}/cg"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(r.stdout.splitlines(), [
                f"nvme4n1 259:4 ({model}, firmware AQ1): solution quick",
                f"  writing {tmp}/cg/io.cost.model: {line.strip()}",
                f"  leaving {tmp}/cg/io.cost.qos as it is: this model has quick benches only, which measure no QoS"])
            with open(f"{tmp}/cg/io.cost.model") as f:
                self.assertEqual(f.read(), line)
            with open(f"{tmp}/cg/io.cost.qos") as f:
                self.assertEqual(f.read(), "old qos\n")
        finally:
            shutil.rmtree(tmp)

    def test_kind_is_stored_per_result(self):
        sub = self.submit(body(bench("Kind Column SSD", "K1")))
        full = self.submit(gzip.compress(body(full_result("Kind Column SSD"))))
        kinds = dict(harness.query(self.srv.db, "SELECT id, kind FROM ssd_results WHERE model_id = 'Kind_Column_SSD'"))
        self.assertEqual(kinds, {sub["id"]: "quick", full["id"]: "full"})
        self.assertEqual(harness.query(self.srv.db, "SELECT submissions, quick FROM ssd_models "
                                       "WHERE id = 'Kind_Column_SSD'"), [(2, 1)])


class SsdQuickUpgrade(unittest.TestCase):
    """A database from before migration 0017 (no kind anywhere) keeps its results as full ones."""

    def test_rows_stored_before_the_migration_are_full_runs(self):
        srv = harness.Server()
        try:
            srv.start()
            auth = {"Authorization": "Bearer " + srv.add_token("t", "submit")}
            model = "Upgrade SSD"
            r = srv.request("POST", POST, gzip.compress(body(full_result(model))), auth)
            self.assertEqual(r.status, 201, r.body)
            before = srv.get_json("/api/v1/ssd/models/Upgrade_SSD")
            srv.stop()
            # take the database back to schema 16, as a server of the last release left it
            harness.undo_schema_after_16(srv.db)
            if harness.is_pg(srv.db):
                harness.query(srv.db, "DELETE FROM schema_version WHERE version > 16")
            else:
                harness.query(srv.db, "PRAGMA user_version = 16")
            srv.restart()
            self.assertEqual(harness.query(srv.db, "SELECT kind FROM ssd_results"), [("full",)])
            self.assertEqual(srv.get_json("/api/v1/ssd/models/Upgrade_SSD"), before)
            r = srv.request("POST", POST, body(bench(model, "FW1", 3.0)), auth)
            self.assertEqual(r.status, 201, r.body)
            after = srv.get_json("/api/v1/ssd/models/Upgrade_SSD")
            self.assertEqual((after["kinds"], after["basis"], after["recommended"]),
                             ({"full": 1, "quick": 1}, "full", before["recommended"]))
            srv.stop()
        finally:
            srv.cleanup()


class SsdQuickBadInput(unittest.TestCase):
    """Each malformed or hostile bench result: a 4xx naming what is wrong, and no row added."""

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server("--max-inflated", str(1 << 20)).start()
        cls.auth = {"Authorization": "Bearer " + cls.srv.add_token("t", "submit")}

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def rows(self):
        return [harness.query(self.srv.db, f"SELECT count(*) FROM {t}")[0][0]
                for t in ("ssd_results", "ssd_files", "ssd_models")]

    def refused(self, data, status, words):
        before = self.rows()
        if not isinstance(data, bytes):
            data = body(data)
        r = self.srv.request("POST", POST, data, self.auth)
        self.assertEqual(r.status, status, (words, r.body[:300]))
        self.assertIn(words, r.json()["error"])
        self.assertEqual(self.rows(), before)

    def variant(self, path, value):
        """The fixture with the field at path (keys and indexes) set to value, or removed for DELETE."""
        doc = fixture()
        obj = doc
        for p in path[:-1]:
            obj = obj[p]
        if value is DELETE:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
        return doc

    def test_the_fixture_itself_is_accepted_here(self):
        # the control: every refusal below differs from an accepted result by one field
        r = self.srv.request("POST", POST, body(bench("Control SSD")), self.auth)
        self.assertEqual(r.status, 201, r.body)

    def test_wrong_schema(self):
        self.refused(self.variant(["schema"], "schedio.ssdbench.v2"), 422, "schema is not \"schedio.ssdbench.v1\"")
        self.refused(self.variant(["schema"], 1), 422, "schema is not")
        self.refused(self.variant(["schema"], DELETE), 422, "wrong shape")
        self.refused({}, 422, "wrong shape")

    def test_missing_negative_nan_and_huge_params(self):
        self.refused(self.variant(["model", "wrandiops"], DELETE), 422, "model.wrandiops is missing")
        self.refused(self.variant(["model", "rbps"], -5), 422, "model.rbps = -5 is outside")
        self.refused(self.variant(["model", "rseqiops"], 0), 422, "model.rseqiops must be greater than 0")
        self.refused(self.variant(["model", "wbps"], "NaN"), 422, "model.wbps is not a number")
        self.refused(self.variant(["model", "wbps"], None), 422, "model.wbps is not a number")
        self.refused(self.variant(["model", "rbps"], 1e30), 422, "model.rbps = 1e+30 is outside")
        self.refused(body(fixture()).replace(b'"rbps": 3180000000', b'"rbps": 1e999'), 422, "model.rbps = inf")
        self.refused(body(fixture()).replace(b'"rbps": 3180000000', b'"rbps": NaN'), 400, "valid JSON")
        read_only = self.variant(["model"], {k: v for k, v in fixture()["model"].items() if k[0] == "r"})
        self.refused(read_only, 422, "read-only run is not submittable")
        self.refused(self.variant(["model"], DELETE), 422, "model is missing")

    def test_wrong_types(self):
        self.refused(self.variant(["device"], "nvme0n1"), 422, "device is not an object")
        self.refused(self.variant(["device", "size_bytes"], "1TB"), 422, "device.size_bytes is not a number")
        self.refused(self.variant(["device", "size_bytes"], 0), 422, "device.size_bytes = 0 is outside")
        self.refused(self.variant(["device", "size_bytes"], 1.5), 422, "not a whole number")
        self.refused(self.variant(["device", "rotational"], "no"), 422, "device.rotational is not true or false")
        self.refused(self.variant(["device", "target"], "disk"), 422, "device.target")
        self.refused(self.variant(["device", "fwrev"], DELETE), 422, "device.fwrev is missing")
        self.refused(self.variant(["device", "model"], ""), 422, "device.model is empty")
        self.refused(self.variant(["phases"], {}), 422, "phases is not an array")
        self.refused(self.variant(["phases", 2, "param"], "rbps2"), 422, "phases[2].param")
        self.refused(self.variant(["phases", 0, "op"], "write"), 422, "phases[0].op must be \"read\"")
        self.refused(self.variant(["phases", 1, "steady"], 1), 422, "phases[1].steady")
        self.refused(self.variant(["phases", 1, "series", 7], ["a", 1]), 422, "phases[1].series[7] is not a pair")
        self.refused(self.variant(["phases", 1, "series", 7], [1, 2, 3]), 422, "phases[1].series[7] is not a pair")
        self.refused(self.variant(["phases", 1, "series", 7, 1], -1), 422, "phases[1].series[7][1] = -1")
        self.refused(self.variant(["phases", 3, "saturation", 0, 0], 0.5), 422, "phases[3].saturation[0][0]")
        self.refused(self.variant(["phases", 0, "value"], DELETE), 422, "phases[0].value is missing")
        self.refused(self.variant(["warnings"], "none"), 422, "warnings is not an array")
        self.refused(self.variant(["warnings", 0, "message"], 5), 422, "warnings[0].message is not a string")
        self.refused(self.variant(["warnings", 1], "burst"), 422, "warnings[1] is not an object")
        self.refused(self.variant(["started_ms"], "yesterday"), 422, "started_ms is not a number")
        self.refused(self.variant(["tool"], "schedio"), 422, "tool is not an object")

    def test_too_many_phases_points_and_warnings(self):
        doc = fixture()
        self.refused(self.variant(["phases"], doc["phases"] * 3), 422, "phases has more than 16")
        self.refused(self.variant(["phases", 0, "series"], [[i * 0.5, 100] for i in range(601)]), 422,
                     "phases[0].series has more than 600 points")
        self.refused(self.variant(["phases", 0, "saturation"], [[i + 1, 100] for i in range(33)]), 422,
                     "phases[0].saturation has more than 32 points")
        self.refused(self.variant(["warnings"], doc["warnings"] * 17), 422, "warnings has more than 32")
        self.refused(self.variant(["warnings", 0, "message"], "x" * 513), 422, "longer than 512")

    def test_hostile_strings(self):
        for name in ("X" * 1000, "../../etc/passwd", "a\nb", "evil*glob", "<script>alert(1)</script>", "caf\u00e9",
                     "a:b", "quote\"s", "[x]", "back`tick"):
            self.refused(self.variant(["device", "model"], name), 422, "device.model")
        self.refused(body(self.variant(["device", "model"], "nul\u0000byte")), 422, "NUL")
        self.refused(self.variant(["device", "fwrev"], "x" * 1000), 422, "device.fwrev is longer")
        self.refused(self.variant(["device", "fwrev"], "1|2"), 422, "device.fwrev contains")
        self.refused(self.variant(["warnings", 0, "message"], "bell\u0007"), 422, "warnings[0].message contains")
        self.refused(self.variant(["warnings", 0, "kind"], "<b>"), 422, "warnings[0].kind contains")
        self.refused(self.variant(["kernel"], "6.1\u001b[31m"), 422, "kernel contains")
        self.assertNotIn(b"script", self.srv.request("GET", "/api/v1/ssd/models").body)

    def test_truncated_gzip_and_huge_bodies(self):
        data = gzip.compress(body(fixture()))
        for cut in (10, len(data) // 2, len(data) - 4):
            self.refused(data[:cut], 400, "truncated or corrupt")
        huge = body(self.variant(["padding"], "x" * (2 << 20)))  # unknown fields are fine, but not past the limit
        self.refused(huge, 413, "larger than the limit")
        self.refused(gzip.compress(huge, 9), 413, "inflates to more than")


DELETE = object()

if __name__ == "__main__":
    harness.main()
