"""test_report_schema.py - schema/report.schema.json against what really
happens: the agent's real report (one --once interval on this machine,
every collector it can run) is valid under JSON Schema 2020-12 and stored by
the server; and over the report parser's fuzz corpus
(tests/fuzz/corpus/fuzz_server_report/) the schema and a real server give
the same verdict on every file: valid and stored (2xx), or invalid and
refused (4xx). The README's contract is the judge of which side to mend.

The agent part needs root, BPF and BTF; it skips with the reason elsewhere.
The validator is Debian's python3-jsonschema (Draft202012Validator)."""
import json
import os
import subprocess
import unittest

import jsonschema

from harness import SOURCE, Server, binary, main

CORPUS = os.path.join(SOURCE, "tests", "fuzz", "corpus", "fuzz_server_report")
SCHEMA = os.path.join(SOURCE, "schema", "report.schema.json")


def load_schema():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


# Refusals JSON Schema cannot express (a rule between two fields), each
# stated in the schema's prose: file -> (the server's message, the schema's words).
CROSS_FIELD = {
    "health_idle_over_total.json": ("idle_sibling_wait_ns (123457) is more than wait_ns",
                                    "Refused with 400 when idle_sibling_wait_ns > wait_ns"),
    "interval_backwards.json": ("interval.end_ms is before interval.start_ms",
                                "refused with 400 when end_ms < start_ms"),
}


def unique_names(pairs):
    """object_pairs_hook: an object naming a member twice is no instance at all (I-JSON)."""
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("an object names a member twice: " + ", ".join(sorted({k for k in names
                                                                                  if names.count(k) > 1})))
    return dict(pairs)


def schema_verdict(validator, data):
    """(valid, why) of raw bytes as a report: not UTF-8 JSON with unique names is invalid."""
    try:
        doc = json.loads(data.decode("utf-8"), object_pairs_hook=unique_names)
    except (UnicodeDecodeError, ValueError) as e:
        return False, f"not UTF-8 I-JSON ({str(e)[:80]})"
    errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errs:
        e = errs[0]
        return False, f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:120]}"
    return True, "valid"


def why_no_agent():
    if os.geteuid() != 0:
        return "needs root (the agent's BPF programs)"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "kernel has no BTF (/sys/kernel/btf/vmlinux)"
    if not os.path.exists(binary("schedio-agent")):
        return "agent not built"
    return None


class ReportSchema(unittest.TestCase):
    def test_schema_and_server_agree_on_the_fuzz_corpus(self):
        validator = load_schema()
        names = sorted(os.listdir(CORPUS))
        self.assertGreaterEqual(len(names), 20, "the corpus is smaller than expected")
        rows, disagree, cross = [], [], 0
        with open(SCHEMA) as f:
            schema_text = f.read()
        with Server("--open-ingest") as s:
            for name in names:
                with open(os.path.join(CORPUS, name), "rb") as f:
                    data = f.read()
                valid, why = schema_verdict(validator, data)
                r = s.request("POST", "/api/v1/reports", data, {"Content-Type": "application/json"})
                self.assertLess(r.status, 500, f"{name}: the server failed: {r.status} {r.body[:200]!r}")
                accepted = 200 <= r.status < 300
                said = "stored" if accepted else f"{r.status} {r.json().get('error', '')[:100]}"
                rows.append((name, valid, accepted))
                if name in CROSS_FIELD:
                    message, words = CROSS_FIELD[name]
                    self.assertTrue(valid, f"{name}: {why}")
                    self.assertEqual(r.status, 400, f"{name}: {said}")
                    self.assertIn(message, r.json()["error"])
                    self.assertIn(words, schema_text)
                    cross += 1
                elif valid != accepted:
                    disagree.append(f"{name}: schema says {why}; server says {said}")
        both_ok = sum(1 for _, v, a in rows if v and a)
        both_bad = sum(1 for _, v, a in rows if not v and not a)
        print(f"\n  {len(rows)} corpus files: {both_ok} valid and stored, {both_bad} invalid and refused, "
              f"{cross} valid but refused by a rule between two fields the schema states in prose, "
              f"{len(disagree)} disagreements")
        for d in disagree:
            print("  DISAGREE " + d)
        self.assertEqual(disagree, [])
        self.assertGreater(both_ok, 0, "no valid report in the corpus: the test shows nothing")
        self.assertGreater(both_bad, 0, "no invalid report in the corpus: the test shows nothing")

    @unittest.skipIf(why_no_agent(), why_no_agent() or "")
    def test_agent_real_report_is_valid_and_stored(self):
        validator = load_schema()
        r = subprocess.run([binary("schedio-agent"), "--once", "--duration", "2", "--stdout"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        report = json.loads(r.stdout)
        errs = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(report)]
        self.assertEqual(errs, [], "the agent's real report breaks schema/report.schema.json")
        sections = sorted(k for k in report if k in ("runqlat", "iocost", "sched_ext", "agent"))
        print(f"\n  agent report: {len(r.stdout)} bytes, sections {sections}, valid under 2020-12")
        self.assertIn("runqlat", report)
        # The validator is not blind: the same report with one field broken is refused.
        bad = json.loads(r.stdout)
        bad["interval"]["start_ms"] = "yesterday"
        self.assertFalse(validator.is_valid(bad))
        with Server("--open-ingest") as s:
            got = s.request("POST", "/api/v1/reports", r.stdout, {"Content-Type": "application/json"})
            self.assertEqual(got.status, 200, got.body[:300])


if __name__ == "__main__":
    main()
