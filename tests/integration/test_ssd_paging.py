"""test_ssd_paging.py - GET /api/v1/ssd/models in pages over real HTTP: paging
by limit and next_offset covers every model exactly once in id order with
the right total, the search (q) matches name, id or firmware as a literal,
case-insensitive substring, hostile search text (LIKE wildcards, quotes,
backslashes, unicode, malformed UTF-8) neither breaks the query nor matches
what it should not, bad limit/offset answer 400, and a page of the largest
rows the parser accepts stays under 1 MiB."""
import concurrent.futures
import gzip
import json
import string
import unittest
import urllib.parse

import harness

MIB = 1 << 20
NMODELS = 430  # more than two default pages (200)


def result(model, fwrev, sols=("naive",), tag=""):
    """A small well-formed resctl-bench result; tag makes its content (and so its id) unique."""
    m = {"rbps": 1000, "rseqiops": 10, "rrandiops": 20, "wbps": 500, "wseqiops": 5, "wrandiops": 6}
    q = {"rpct": 95.0, "rlat": 1000, "wpct": 95.0, "wlat": 2000, "min": 60.0, "max": 100.0}
    si = {"bench_version": "2.2.3", "sysreqs_report": {"scr_dev_model": model, "scr_dev_fwrev": fwrev,
                                                       "scr_dev_size": 1000, "kernel_version": "6.1.0 " + tag}}
    return gzip.compress(json.dumps([{"spec": {"kind": "iocost-tune"}, "sysinfo": si, "result": {
        "solutions": {s: {"model": m, "qos": q} for s in sols}}}]).encode(), 1)


# Names and firmwares with LIKE's wildcards in them (quotes and backslashes are
# refused in both, so searching for them must match nothing).
SPECIAL = [("Disk 100% Fast", "FW-1"), ("Disk_Under score", "FW+2"), ("DISK 50%_OFF", "fw%3"),
           ("Plain Disk A", "X_Y"), ("Plain Disk B", "XAY")]


def models():
    out = [(f"Synth {'ABCDEFGH'[i % 8]}{i:04d} NVMe", f"R{i % 7}") for i in range(NMODELS - len(SPECIAL))]
    return out + SPECIAL


def matches(q, name, fwrevs):
    q = q.lower()
    return q in name.lower() or q in name.replace(" ", "_").lower() or any(q in f.lower() for f in fwrevs)


class SsdPaging(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.srv = harness.Server().start()
        cls.auth = {"Authorization": "Bearer " + cls.srv.add_token("t", "submit")}
        cls.models = models()
        with concurrent.futures.ThreadPoolExecutor(4) as ex:
            st = list(ex.map(lambda m: cls.srv.request("POST", "/api/v1/ssd/results", result(*m), cls.auth).status,
                             cls.models))
        assert set(st) == {201}, set(st)
        cls.ids = sorted(m[0].replace(" ", "_") for m in cls.models)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.srv.cleanup()

    def get(self, path, **params):
        r = self.srv.request("GET", path + ("?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote) if params else ""))
        self.assertEqual(r.status, 200, r.body[:300])
        self.assertLess(len(r.body), MIB)
        return r.json()

    def walk(self, limit=None, q=None):
        """Every page from offset 0 following next_offset; the ids in order, the totals seen."""
        ids, totals, offset, pages = [], set(), 0, 0
        while offset is not None:
            params = {"offset": offset}
            if limit is not None:
                params["limit"] = limit
            if q is not None:
                params["q"] = q
            doc = self.get("/api/v1/ssd/models", **params)
            self.assertLessEqual(len(doc["models"]), limit or 200)
            ids += [m["id"] for m in doc["models"]]
            totals.add(doc["total"])
            nxt = doc["next_offset"]
            self.assertTrue(nxt is None or nxt == offset + len(doc["models"]), (offset, nxt))
            offset = nxt
            pages += 1
            self.assertLess(pages, 2000)
        return ids, totals, pages

    def test_pages_cover_every_model_once_in_order(self):
        for limit in (None, 1000, 97, 1):
            ids, totals, pages = self.walk(limit)
            self.assertEqual(ids, self.ids, f"limit {limit}")
            self.assertEqual(totals, {NMODELS})
            self.assertEqual(pages, -(-NMODELS // (limit or 200)))

    def test_first_page_keeps_the_old_shape(self):
        doc = self.get("/api/v1/ssd/models")
        self.assertEqual(len(doc["models"]), 200)
        self.assertEqual((doc["total"], doc["next_offset"]), (NMODELS, 200))
        m = doc["models"][0]
        self.assertEqual(sorted(m), ["fwrevs", "id", "model", "solutions", "submissions"])
        self.assertEqual((m["submissions"], m["solutions"]), (1, ["naive"]))

    def test_past_the_end_is_an_empty_last_page(self):
        doc = self.get("/api/v1/ssd/models", offset=NMODELS)
        self.assertEqual((doc["models"], doc["total"], doc["next_offset"]), ([], NMODELS, None))
        doc = self.get("/api/v1/ssd/models", offset=10 ** 9, q="synth")
        self.assertEqual((doc["models"], doc["total"], doc["next_offset"]), ([], NMODELS - len(SPECIAL), None))

    def test_search_is_a_literal_case_insensitive_substring(self):
        cases = ["synth a", "SYNTH_B00", "nvme", "%", "_", "100%", "0%_", "k_u", "disk_under", "'", '"', "fw-1",
                 'FW+', "\\", "%%", "x_y", "X%Y", "r3", "é", "ディスク", "\U0001F4BE", "a' OR '1'='1", "); DROP TABLE x;--",
                 "[a-z]", "*", "?", " ", "zzz-none"]
        for q in cases:
            want = sorted(m[0].replace(" ", "_") for m in self.models if matches(q, m[0], [m[1]]))
            ids, totals, _ = self.walk(150, q)
            self.assertEqual(ids, want, repr(q))
            self.assertEqual(totals, {len(want)}, repr(q))
        # wildcards are literal: "x_y" is not "XAY", "%" only the names with a percent sign
        self.assertEqual(self.walk(q="x_y")[0], ["Plain_Disk_A"])
        self.assertEqual(self.walk(q="%")[0], ["DISK_50%_OFF", "Disk_100%_Fast"])
        # the store is intact after all that
        self.assertEqual(self.get("/api/v1/ssd/models", limit=1)["total"], NMODELS)

    def test_bad_parameters_answer_400(self):
        bad = ["limit=0", "limit=1001", "limit=-1", "limit=abc", "limit=1.5", "limit=", "limit=1e3", "limit=%2B5",
               "limit=99999999999999999999", "offset=-1", "offset=x", "offset=", "offset=1000000001",
               "offset=18446744073709551617", "q=" + "a" * 257, "q=%FF", "q=%C3%28", "q=%ED%A0%80", "q=a%0Ab",
               "q=%7F", "q=%C0%AF"]
        for query in bad:
            r = self.srv.request("GET", "/api/v1/ssd/models?" + query)
            self.assertEqual(r.status, 400, query)
            self.assertIn("error", r.json(), query)
        for query in ("limit=1000", "limit=1", "offset=0", "offset=1000000000", "q=" + "a" * 256, "q=%C3%A9"):
            self.assertEqual(self.srv.request("GET", "/api/v1/ssd/models?" + query).status, 200, query)

    def test_hwdb_narrowed_to_one_model(self):
        r = self.srv.request("GET", "/api/v1/ssd/hwdb?model=Plain_Disk_A")
        self.assertEqual(r.status, 200)
        text = r.body.decode()
        self.assertIn("Plain Disk A", text)
        self.assertNotIn("Plain Disk B", text)
        self.assertNotIn("Synth", text)
        self.assertEqual(self.srv.request("GET", "/api/v1/ssd/hwdb?model=a%2Fb").status, 400)


class SsdPageBudget(unittest.TestCase):
    """Rows as large as the parser allows (a 128-character name, 16 solutions of 48
    characters, long firmware lists): limit=1000 would pass 1 MiB, so the page stops short
    and next_offset goes on from there; walking the pages still sees every model once."""

    def test_large_rows_stay_under_1_mib(self):
        sols = [f"{c}" * 40 + f"{i:08d}" for i, c in zip(range(16), string.ascii_lowercase)]
        n = 1100
        with harness.Server() as srv:
            auth = {"Authorization": "Bearer " + srv.add_token("t", "submit")}
            names = [f"Big {i:05d} " + "M" * 118 for i in range(n)]
            with concurrent.futures.ThreadPoolExecutor(4) as ex:
                st = list(ex.map(lambda nm: srv.request("POST", "/api/v1/ssd/results", result(nm, "F" * 64, sols),
                                                        auth).status, names))
            self.assertEqual(set(st), {201})
            # a few models with many firmwares on top
            for k in range(40):
                self.assertEqual(srv.request("POST", "/api/v1/ssd/results",
                                             result(names[0], f"{k:02d}" + "F" * 62, sols, str(k)), auth).status, 201)
            seen, offset, sizes, counts = [], 0, [], []
            while offset is not None:
                r = srv.request("GET", f"/api/v1/ssd/models?limit=1000&offset={offset}")
                self.assertEqual(r.status, 200)
                sizes.append(len(r.body))
                doc = r.json()
                self.assertEqual(doc["total"], n)
                counts.append(len(doc["models"]))
                self.assertGreater(counts[-1], 0)
                seen += [m["id"] for m in doc["models"]]
                offset = doc["next_offset"]
            self.assertEqual(seen, sorted(nm.replace(" ", "_") for nm in names))
            self.assertLess(max(sizes), MIB, sizes)
            self.assertLess(counts[0], 1000, f"the budget, not the limit, ended the first page: {counts} {sizes}")
            self.assertGreater(sizes[0], 900_000, sizes)


if __name__ == "__main__":
    harness.main()  # also fails on an answer schema/openapi.yaml does not document
