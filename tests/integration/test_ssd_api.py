"""test_ssd_api.py - the SSD model database over real HTTP: every shared
resctl-bench file imports and reads back with the fields this test reads
from the JSON itself; duplicates, downloads, the per-model median
recommendation, io.cost lines with fallback, the hwdb file compiled by
systemd-hwdb; and bad input refused with a clear 4xx and nothing stored."""
import glob
import gzip
import hashlib
import json
import math
import os
import shutil
import subprocess
import tempfile
import unittest

import harness

RB = os.path.join(harness.DATA, "resctl-bench")
FILES = sorted(glob.glob(os.path.join(RB, "*", "*", "*.json.gz")))
MODEL_KEYS = ["rbps", "rseqiops", "rrandiops", "wbps", "wseqiops", "wrandiops"]
QOS_KEYS = ["rpct", "rlat", "wpct", "wlat", "min", "max"]


def expected_fields(raw):
    """The fields of a result as this test reads them, independently of the server."""
    jobs = json.loads(raw)
    rep = si = None
    for j in jobs:
        r = (j.get("sysinfo") or {}).get("sysreqs_report") or {}
        if "scr_dev_model" in r:
            rep, si = r, j["sysinfo"]
            break
    kinds = [j["spec"]["kind"] for j in jobs]
    params = None
    for j in jobs:
        if j["spec"]["kind"] == "iocost-params" and j.get("record"):
            params = {"model": j["record"]["model"], "qos": j["record"]["qos"]}
    sols = {}
    for j in jobs:
        if j["spec"]["kind"] == "iocost-tune" and j.get("result"):
            sols = {}
            for name, s in j["result"]["solutions"].items():
                e = {"model": s["model"], "qos": s["qos"]}
                for src, dst in (("mem_offload_factor", "MOF"), ("adjusted_mem_offload_factor", "aMOF"), ("isol", "isol")):
                    if isinstance(s.get(src), (int, float)):
                        e[dst] = s[src]
                sols[name] = e
    return {
        "id": hashlib.md5(raw).hexdigest(),
        "model": rep["scr_dev_model"].strip(),
        "fwrev": rep["scr_dev_fwrev"].strip(),
        "size_bytes": rep["scr_dev_size"],
        "kernel": rep["kernel_version"],
        "bench_version": si["bench_version"].split()[0],
        "merged": "merge-info" in kinds,
        "params": params,
        "solutions": sols,
    }


def same(a, b):
    """Deep equality where floats may differ in the last bit (cJSON prints 15 significant
    digits when they read back within an epsilon, as its print_number does)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-14, abs_tol=0)
    return a == b


def round_half_up(x, nd=0):
    """The server rounds halves away from zero (C's round()), not to even as Python does."""
    f = 10 ** nd
    return math.floor(x * f + 0.5) / f if nd else math.floor(x + 0.5)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def gz(obj):
    return gzip.compress(json.dumps(obj).encode())


def minimal_result(model="Test SSD 1TB", fwrev="FW1", bench="2.2.3 x86_64", sols=None, params=True):
    """A small well-formed result, for the bad-input variations."""
    sysinfo = {"bench_version": bench, "sysreqs_report": {
        "scr_dev_model": model, "scr_dev_fwrev": fwrev, "scr_dev_size": 1000, "kernel_version": "6.1.0"}}
    m = {"rbps": 1000, "rseqiops": 10, "rrandiops": 20, "wbps": 500, "wseqiops": 5, "wrandiops": 6}
    q = {"rpct": 95.0, "rlat": 1000, "wpct": 95.0, "wlat": 2000, "min": 60.0, "max": 100.0}
    jobs = []
    if params:
        jobs.append({"spec": {"kind": "iocost-params"}, "sysinfo": sysinfo, "record": {"model": m, "qos": q}})
    jobs.append({"spec": {"kind": "iocost-tune"}, "sysinfo": sysinfo,
                 "result": {"solutions": sols if sols is not None else {"naive": {"model": m, "qos": q}}}})
    return jobs


class SsdApi(unittest.TestCase):
    maxDiff = None
    @classmethod
    def setUpClass(cls):
        if not FILES:
            raise unittest.SkipTest(f"no resctl-bench results in {RB} (shared data folder absent)")
        cls.srv = harness.Server().start()
        cls.auth = {"Authorization": "Bearer " + cls.srv.add_token("t", "submit")}
        cls.raw = {f: gzip.open(f).read() for f in FILES}
        cls.ids = {}
        for f in FILES:
            r = cls.srv.request("POST", "/api/v1/ssd/results", open(f, "rb").read(), cls.auth, timeout=60)
            assert r.status == 201, (f, r.status, r.body[:300])
            cls.ids[f] = r.json()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def test_every_shared_file_imports_with_fields_matching_the_json(self):
        for f in FILES:
            exp = expected_fields(self.raw[f])
            ans = self.ids[f]
            self.assertEqual(ans["id"], exp["id"], f)
            self.assertEqual(ans["model"], exp["model"])
            self.assertEqual(ans["fwrev"], exp["fwrev"])
            self.assertEqual(ans["bench_version"], exp["bench_version"])
            self.assertEqual(ans["solutions"], sorted(exp["solutions"]))
            self.assertFalse(ans["duplicate"])
            got = self.srv.get_json(f"/api/v1/ssd/results/{exp['id']}")
            for k in ("model", "fwrev", "size_bytes", "kernel", "bench_version", "merged", "params", "solutions"):
                self.assertTrue(same(got[k], exp[k]), f"{f}: {k}: {got[k]} != {exp[k]}")

    def test_fwrev_is_trimmed(self):
        intel = [f for f in FILES if "INTEL_SSDPEKKA256G7" in f][0]
        self.assertEqual(self.ids[intel]["fwrev"], "PSF119D")

    def test_same_content_again_is_a_duplicate_and_the_original_downloads(self):
        f = FILES[0]
        r = self.srv.request("POST", "/api/v1/ssd/results", open(f, "rb").read(), self.auth)
        self.assertEqual(r.status, 200)
        self.assertTrue(r.json()["duplicate"])
        # the same JSON uncompressed is the same content (md5 of the JSON)
        r = self.srv.request("POST", "/api/v1/ssd/results", self.raw[f], self.auth)
        self.assertEqual((r.status, r.json()["duplicate"]), (200, True))
        for f in FILES:
            r = self.srv.request("GET", f"/api/v1/ssd/results/{self.ids[f]['id']}/file")
            self.assertEqual(r.status, 200)
            self.assertEqual(r.header("content-type"), "application/gzip")
            self.assertEqual(gzip.decompress(r.body), self.raw[f])

    def test_models_list_and_query(self):
        models = {m["id"]: m for m in self.srv.get_json("/api/v1/ssd/models")["models"]}
        want = {}
        for f in FILES:
            exp = expected_fields(self.raw[f])
            want.setdefault(exp["model"].replace(" ", "_"), []).append(exp)
        self.assertEqual(sorted(models), sorted(want))
        for mid, exps in want.items():
            self.assertEqual(models[mid]["submissions"], len(exps))
            self.assertEqual(models[mid]["fwrevs"], sorted({e["fwrev"] for e in exps}))
            self.assertEqual(models[mid]["solutions"], sorted({s for e in exps for s in e["solutions"]}))
        got = self.srv.get_json("/api/v1/ssd/models?q=samsung%20SSD")["models"]
        self.assertEqual([m["id"] for m in got], ["Samsung_SSD_970_EVO_500GB"])
        self.assertEqual(self.srv.get_json("/api/v1/ssd/models?q=%25%27%22")["models"], [])

    def test_recommendation_is_the_median_of_raw_results(self):
        sam = [expected_fields(self.raw[f]) for f in FILES if "Samsung" in f]
        self.assertEqual(len(sam), 2)
        doc = self.srv.get_json("/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB")
        self.assertEqual((doc["model"], doc["submissions"], doc["fwrevs"]), ("Samsung SSD 970 EVO 500GB", 2, ["2B2QEXE7"]))
        for name in sam[0]["solutions"]:
            rec = doc["recommended"][name]
            self.assertEqual(rec["submissions"], 2)
            for k in MODEL_KEYS:
                vals = [e["solutions"][name]["model"][k] for e in sam]
                self.assertEqual(rec["model"][k], round_half_up(median(vals)), (name, k))
                self.assertEqual(rec["spread"][k], [min(vals), max(vals)])
            for k in QOS_KEYS:
                vals = [e["solutions"][name]["qos"][k] for e in sam]
                want = round_half_up(median(vals), 0 if k in ("rlat", "wlat") else 2)
                self.assertAlmostEqual(rec["qos"][k], want, places=6, msg=(name, k))
        # every submission is listed, with what a download link needs
        self.assertEqual(sorted(r["id"] for r in doc["results"]), sorted(e["id"] for e in sam))
        for r in doc["results"]:
            self.assertEqual((r["fwrev"], r["merged"]), ("2B2QEXE7", False))
            self.assertEqual(self.srv.request("GET", f"/api/v1/ssd/results/{r['id']}/file").status, 200)
        # name with spaces works as well as the id
        self.assertEqual(self.srv.get_json("/api/v1/ssd/models/Samsung%20SSD%20970%20EVO%20500GB")["recommended"],
                         doc["recommended"])

    def test_merged_files_count_only_without_raw_results(self):
        doc = self.srv.get_json("/api/v1/ssd/models/SKhynix_Phoenix")
        raw = expected_fields(self.raw[[f for f in FILES if "SKhynix" in f and "result-" in f][0]])
        self.assertEqual(doc["source"], "raw")
        self.assertEqual(doc["recommended"]["naive"]["submissions"], 1)
        self.assertEqual(doc["recommended"]["naive"]["model"], raw["solutions"]["naive"]["model"])
        tosh = self.srv.get_json("/api/v1/ssd/models/KXG6AZNV512G_TOSHIBA")
        self.assertEqual(tosh["source"], "merged")
        self.assertEqual(len(tosh["recommended"]), 8)
        self.assertEqual(self.srv.get_json("/api/v1/ssd/models/SKhynix_Phoenix?fwrev=80004E00")["submissions"], 2)
        self.assertEqual(self.srv.request("GET", "/api/v1/ssd/models/SKhynix_Phoenix?fwrev=NOPE").status, 404)

    def test_config_lines_and_fallback(self):
        doc = self.srv.get_json("/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB")["recommended"]
        r = self.srv.request("GET", "/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB/config?solution=naive&dev=259:0")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("content-type").startswith("text/plain"))
        self.assertEqual(r.header("x-schedio-solution"), "naive")
        m, q = doc["naive"]["model"], doc["naive"]["qos"]
        self.assertEqual(r.body.decode(),
                         "259:0 ctrl=user model=linear " + " ".join(f"{k}={m[k]}" for k in MODEL_KEYS) + "\n" +
                         f"259:0 enable=1 ctrl=user rpct={q['rpct']:.2f} rlat={q['rlat']} wpct={q['wpct']:.2f} "
                         f"wlat={q['wlat']} min={q['min']:.2f} max={q['max']:.2f}\n")
        r = self.srv.request("GET", "/api/v1/ssd/models/Samsung_SSD_970_EVO_500GB/config?solution=nope")
        self.assertEqual(r.header("x-schedio-solution"), "isolated-bandwidth")
        self.assertTrue(r.body.startswith(b"MAJ:MIN ctrl=user model=linear rbps="))
        r = self.srv.request("GET", "/api/v1/ssd/models/INTEL_SSDPEKKA256G7/config?solution=isolation&dev=8:16")
        self.assertEqual((r.status, r.header("x-schedio-solution")), (200, "naive"))
        for bad in ("8", "8:", ":1", "a:b", "8:0;rm", "99999999:0", "8:0%0A1:1"):
            r = self.srv.request("GET", f"/api/v1/ssd/models/INTEL_SSDPEKKA256G7/config?dev={bad}")
            self.assertEqual(r.status, 400, bad)
        self.assertEqual(self.srv.request("GET", "/api/v1/ssd/models/Nope/config").status, 404)

    def test_hwdb_compiles_with_systemd_hwdb(self):
        tool = shutil.which("systemd-hwdb")
        if not tool:
            self.skipTest("systemd-hwdb is not installed")
        r = self.srv.request("GET", "/api/v1/ssd/hwdb")
        self.assertEqual(r.status, 200)
        root = tempfile.mkdtemp(prefix="schedio-hwdb-")
        try:
            os.makedirs(os.path.join(root, "etc/udev/hwdb.d"))
            with open(os.path.join(root, "etc/udev/hwdb.d/90-schedio-iocost.hwdb"), "wb") as fh:
                fh.write(r.body)
            # systemd 252's --strict still exits 0 on a bad line, so stderr must be empty too
            p = harness.run([tool, "--root", root, "update", "--strict"])
            self.assertEqual((p.returncode, p.stderr), (0, ""))
            self.assertTrue(os.path.exists(os.path.join(root, "etc/udev/hwdb.bin")))
            for f in FILES:
                exp = expected_fields(self.raw[f])
                p = harness.run([tool, "--root", root, "query",
                                 f"block:devpath:/x:name:{exp['model']}:fwrev:{exp['fwrev']}:"])
                props = dict(l.split("=", 1) for l in p.stdout.splitlines())
                sols = props["IOCOST_SOLUTIONS"].split()
                self.assertEqual(sorted(sols), sorted(exp["solutions"]), f)
                for s in sols:
                    self.assertRegex(props["IOCOST_MODEL_" + s.upper()], r"^rbps=\d+ rseqiops=\d+ rrandiops=\d+ wbps=\d+ wseqiops=\d+ wrandiops=\d+$")
                    self.assertRegex(props["IOCOST_QOS_" + s.upper()], r"^rpct=[\d.]+ rlat=\d+ wpct=[\d.]+ wlat=\d+ min=[\d.]+ max=[\d.]+$")
        finally:
            shutil.rmtree(root)

    def test_unknown_ids_are_404(self):
        for path in ("/api/v1/ssd/results/00000000000000000000000000000000", "/api/v1/ssd/results/xyz",
                     "/api/v1/ssd/results/../../etc/passwd", "/api/v1/ssd/results/0000/file",
                     "/api/v1/ssd/models/nope", "/api/v1/ssd/models/a%2Fb", "/api/v1/ssd/models/" + "A" * 300):
            self.assertEqual(self.srv.request("GET", path).status, 404, path)
        self.assertEqual(self.srv.request("DELETE", "/api/v1/ssd/results").status, 405)


class SsdBadInput(unittest.TestCase):
    """Each bad submission: a clear 4xx with a reason, and nothing stored."""

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server("--max-inflated", str(1 << 20)).start()
        cls.auth = {"Authorization": "Bearer " + cls.srv.add_token("t", "submit")}
        cls.ingest = {"Authorization": "Bearer " + cls.srv.add_token("i", "ingest")}

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def rows(self):
        return [harness.query(self.srv.db, f"SELECT count(*) FROM {t}")[0][0]
                for t in ("ssd_results", "ssd_files", "ssd_models")]

    def refused(self, body, status, words):
        before = self.rows()
        r = self.srv.request("POST", "/api/v1/ssd/results", body, self.auth)
        self.assertEqual(r.status, status, r.body[:300])
        self.assertIn(words, r.json()["error"])
        self.assertEqual(self.rows(), before)
        self.assertNotIn(b"Test SSD", self.srv.request("GET", "/api/v1/ssd/models").body)

    def test_not_gzip_not_json(self):
        self.refused(b"hello, this is not a result", 400, "neither gzip nor valid JSON")
        self.refused(b"", 400, "empty body")
        self.refused(b"\x1f", 400, "neither gzip nor valid JSON")

    def test_truncated_gzip(self):
        data = gzip.compress(json.dumps(minimal_result()).encode())
        for cut in (10, len(data) // 2, len(data) - 4):
            self.refused(data[:cut], 400, "truncated or corrupt")

    def test_gzip_bomb_is_413(self):
        bomb = gzip.compress(b"[" + b" " * (8 << 20) + b"]", 9)
        self.assertLess(len(bomb), 64 << 10)
        self.refused(bomb, 413, "inflates to more than")

    def test_wrong_shapes(self):
        for doc in ({}, [], [1, 2], "str", [{"spec": {}}], [{"spec": {"kind": 3}}], None, 42):
            self.refused(json.dumps(doc), 422, "wrong shape")
        bad = minimal_result()
        bad[0]["record"]["model"]["rbps"] = "fast"
        self.refused(gz(bad), 422, "rbps")
        bad = minimal_result()
        bad[1]["result"]["solutions"]["naive"]["qos"]["rpct"] = 1e9
        self.refused(gz(bad), 422, "rpct")
        bad = minimal_result()
        bad[1]["result"] = [1]
        self.refused(gz(bad), 422, "not an object")
        self.refused(gz(minimal_result(bench="two point two")), 422, "bench_version")

    def test_no_sysreqs_report(self):
        doc = minimal_result()
        for j in doc:
            j["sysinfo"].pop("sysreqs_report", None)
        self.refused(gz(doc), 422, "sysreqs_report")
        doc = minimal_result()
        for j in doc:
            j["sysinfo"]["sysreqs_report"].pop("scr_dev_model", None)
        self.refused(gz(doc), 422, "no device model")
        self.refused(gz(minimal_result(model="   ")), 422, "no device model")
        self.refused(gz(minimal_result(sols={}, params=False)), 422, "no iocost data")

    def test_huge_or_hostile_names(self):
        for name in ("X" * 100000, "../../etc/passwd", "a\nb", "evil*glob", "<script>", "caf\u00e9", "a:b",
                     "quote\"s", "[x]"):
            self.refused(gz(minimal_result(model=name)), 422, "scr_dev_model")
        self.refused(gz(minimal_result(model="nul\u0000byte")), 422, "NUL")
        self.refused(gz(minimal_result(fwrev="x" * 1000)), 422, "scr_dev_fwrev")
        self.refused(gz(minimal_result(sols={"Bad Name!": minimal_result()[1]["result"]["solutions"]["naive"]})),
                     422, "solution name")

    def test_tokens(self):
        body = gz(minimal_result(model="Token Test"))
        before = self.rows()
        self.assertEqual(self.srv.request("POST", "/api/v1/ssd/results", body).status, 401)
        self.assertEqual(self.srv.request("POST", "/api/v1/ssd/results", body, {"Authorization": "Bearer nope"}).status, 401)
        self.assertEqual(self.srv.request("POST", "/api/v1/ssd/results", body, self.ingest).status, 401)
        self.assertEqual(self.rows(), before)
        self.assertNotIn(b"Token Test", self.srv.request("GET", "/api/v1/ssd/models").body)
        r = self.srv.request("POST", "/api/v1/ssd/results", body, self.auth)
        self.assertEqual(r.status, 201)
        self.assertEqual(self.srv.get_json("/api/v1/ssd/models?q=token")["models"][0]["model"], "Token Test")


class SsdOpenSubmissions(unittest.TestCase):
    def test_open_submissions_are_rate_limited_per_address(self):
        with harness.Server("--open-submissions") as srv:
            r = srv.request("POST", "/api/v1/ssd/results", gz(minimal_result()))
            self.assertEqual(r.status, 201)
            statuses = [srv.request("POST", "/api/v1/ssd/results", b"junk").status for _ in range(29)]
            self.assertEqual(set(statuses), {400})
            r = srv.request("POST", "/api/v1/ssd/results", b"junk")
            self.assertEqual(r.status, 429)
            self.assertGreaterEqual(int(r.header("retry-after")), 1)
            self.assertIn("too many submissions", r.json()["error"])
            # reads are not limited
            self.assertEqual(srv.request("GET", "/api/v1/ssd/models").status, 200)


if __name__ == "__main__":
    harness.main()
