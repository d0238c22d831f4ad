"""test_report_mutants.py - the server refuses what schema/report.schema.json
refuses, judged on systematic mutants rather than a hand-picked corpus.

Two base reports: the agent's real report from the fuzz corpus
(tests/fuzz/corpus/fuzz_server_report/agent_report.json) and a synthetic one
with every optional section (iocost, sched_ext events/schedulers/exits,
runqlat.l3_domains and by_scheduler, agent cost, labels). A seeded,
deterministic generator walks the schema along each base report and makes,
for every property path the report holds, one mutant per keyword that applies
there: wrong type, below minimum / above maximum, bad enum or const, bad
pattern, too short / too long string, too many items or properties, a missing
required property, a bad or badly typed additional property name or value,
null, and an unknown member (which both must accept). Each mutant is judged by
Debian's python3-jsonschema (Draft202012Validator) and by a real server over
real HTTP (2xx stored, 4xx refused); every verdict must agree. A refusal must
name the mutated member in the server's message.

Rules between two fields (by_scheduler sums, idle_sibling_* <= wait*,
end_ms >= start_ms, last_ms >= first_ms) are stated in the schema's prose;
the generator does not make mutants that only break those."""
import copy
import json
import os
import random
import unittest

import jsonschema

from harness import SOURCE, Server, main

CORPUS = os.path.join(SOURCE, "tests", "fuzz", "corpus", "fuzz_server_report")
SCHEMA = os.path.join(SOURCE, "schema", "report.schema.json")
SEED = 19


def hist(rng, lo, n):
    buckets = [[lo + i, rng.randrange(1, 20)] for i in range(n)]
    count = sum(c for _, c in buckets)
    return {"count": count, "sum_ns": count * 5000, "max_ns": 90000, "buckets": buckets,
            "p50_ns": 3000, "p90_ns": 6000, "p99_ns": 9000, "p999_ns": 9500}


def synthetic(rng):
    """A report with every section and every optional field the schema names."""
    cpus = [dict(cpu=c, **hist(rng, 60 + c, 4)) for c in range(2)]
    fair = {k: v for k, v in cpus[0].items() if k != "cpu"}
    scx = {k: v for k, v in cpus[1].items() if k != "cpu"}
    return {
        "schema": "schedio.report.v1",
        "seq": 1,
        "agent": {"version": "0.3.0", "incarnation": "0123456789abcdef0123456789abcdef", "cpu_ns": 123456,
                  "rss_bytes": 9000000,
                  "bpf": {"sampled_ns": 1000000, "programs": [{"name": "schedio_rq", "run_cnt": 5,
                                                               "run_time_ns": 700}]}},
        "delivery": {"dropped": 0},
        "interval": {"start_ms": 1700000000000, "end_ms": 1700000010000},
        "host": {"id": "mutant-host", "hostname": "mutant.example", "kernel": "6.12.0", "arch": "x86_64",
                 "cpus": 2, "labels": {"role": "web", "zone": "eu-1"},
                 "l3_domains": [{"cpus": [0, 1], "size_kb": 32768}]},
        "runqlat": {
            "layout": {"grouping_power": 4, "max_value_power": 36},
            "attach": "tp_btf",
            "cgroups": [dict(path="/", **copy.deepcopy(fair))],
            "cpus": cpus,
            # the split must add up to the cpus: one entry per CPU's samples
            "by_scheduler": [dict(ops=None, **fair), dict(ops="scx_mutant", **scx)],
            "l3_domains": [{"cpus": [0, 1], "wait_ns": 5000, "waits": 10, "idle_sibling_wait_ns": 100,
                            "idle_sibling_waits": 2}],
        },
        "iocost": {
            "source": "tracepoints", "io_controller": True, "parse_warnings": 0,
            "disks": [{"dev": "259:0", "name": "nvme0n1", "model": "Disk 9000", "fwrev": "1.0",
                       "size_bytes": 500107862016, "rotational": False, "enabled": True,
                       "cost_model": {"ctrl": "auto", "rbps": 100}, "qos": {"enable": 1}, "vrate_pct": 99.5}],
            "cgroups": [{"path": "/system.slice", "dev": "259:0", "weight": 100, "usage_pct": 3.5,
                         "hweight_active_pct": 50.0, "hweight_inuse_pct": 40.0, "active_pct": 80.0,
                         "hweight_source": "tracepoints", "rbytes": 4096, "wbytes": 8192, "rios": 1, "wios": 2,
                         "wait_us": 10, "indebt_us": 0, "indelay_us": 0}],
        },
        "sched_ext": {
            "state": "enabled", "ops": "scx_mutant", "enable_seq": 3, "nr_rejected": 0,
            "transitions": [{"t_ms": 1700000001000, "state": "enabled", "ops": "scx_mutant"}],
            "events": {"select_cpu_fallback": 1, "dispatch_keep_last": 0},
            "schedulers": [{"ops": "scx_mutant", "enable_seq": 3, "first_ms": 1700000001000,
                            "last_ms": 1700000009000, "partial": False}],
            "exits": [{"ops": "scx_old", "t_ms": 1700000000500, "kind": "unreg", "reason": "bye", "message": ""}],
        },
    }


class Walker:
    """Follows the schema along an instance and yields (path, kind, mutate)
    where mutate(doc) changes a copy at path."""

    def __init__(self, schema, rng):
        self.root = schema
        self.rng = rng

    def resolve(self, s):
        """One flat schema: $ref followed, allOf merged (properties and required united)."""
        while "$ref" in s:
            ref = s["$ref"]
            node = self.root
            for part in ref.lstrip("#/").split("/"):
                node = node[part]
            s = {**{k: v for k, v in s.items() if k != "$ref"}, **node}
        if "allOf" in s:
            out = {k: v for k, v in s.items() if k != "allOf"}
            for sub in s["allOf"]:
                sub = self.resolve(sub)
                for k, v in sub.items():
                    if k == "properties":
                        out.setdefault("properties", {}).update(v)
                    elif k == "required":
                        out["required"] = out.get("required", []) + v
                    else:
                        out.setdefault(k, v)
            s = out
        return s

    def branch(self, s, value):
        """The anyOf branch that fits value's JSON type."""
        if "anyOf" not in s:
            return s
        for sub in s["anyOf"]:
            sub = self.resolve(sub)
            t = sub.get("type")
            if (t == "array" and isinstance(value, list)) or (t == "object" and isinstance(value, dict)):
                return sub
        return self.resolve(s["anyOf"][0])

    def walk(self, s, value, path):
        s = self.branch(self.resolve(s), value)
        yield from self.value_mutants(s, value, path)
        if isinstance(value, dict):
            props = s.get("properties", {})
            for key in s.get("required", []):
                if key in value:
                    yield path + [key], "required", ("delete",)
            for key, sub in value.items():
                if key in props:
                    yield from self.walk(props[key], sub, path + [key])
                elif isinstance(s.get("additionalProperties"), dict):
                    yield from self.walk(s["additionalProperties"], sub, path + [key])
            if "propertyNames" in s and value:
                yield path + ["BAD KEY!"], "propertyNames", ("set", next(iter(value.values())))
            if isinstance(s.get("additionalProperties"), dict):
                yield path + ["extra_member"], "additionalProperties", ("set", [1])
            if "maxProperties" in s and value:
                v = next(iter(value.values()))
                many = {f"k{i:03d}": v for i in range(s["maxProperties"] + 1)}
                yield path, "maxProperties", ("set", many)
            if s.get("type") == "object" and "additionalProperties" not in s:
                yield path + ["zz_unknown_member"], "unknown member (allowed)", ("set", {"any": [1, "x"]})
        elif isinstance(value, list):
            items = s.get("items")
            prefix = s.get("prefixItems")
            for i, item in enumerate(value[:2]):  # the first two items stand for the rest
                if prefix and i < len(prefix):
                    yield from self.walk(prefix[i], item, path + [i])
                elif items:
                    yield from self.walk(items, item, path + [i])
            if "maxItems" in s and value:
                yield path, "maxItems", ("set", [value[0]] * (s["maxItems"] + 1))
            if "minItems" in s:
                yield path, "minItems", ("set", value[:max(0, s["minItems"] - 1)])

    def value_mutants(self, s, value, path):
        if not path:
            return
        types = s.get("type")
        types = [types] if isinstance(types, str) else list(types or [])
        wrong = {"integer": "12", "number": "1.5", "string": 5, "boolean": 1, "object": [], "array": {},
                 "null": False}
        for t in types:
            yield path, f"type {t}", ("set", wrong[t])
        if "integer" in types:
            yield path, "type integer (fraction)", ("set", 1.5)
        if "null" not in types and None not in s.get("enum", []):
            yield path, "null", ("set", None)
        if "const" in s:
            yield path, "const", ("set", s["const"] + 1 if isinstance(s["const"], int) else "schedio.report.v0")
            yield path, "const (type)", ("set", [s["const"]])
        if "enum" in s:
            yield path, "enum", ("set", "no_such_" + str(self.rng.randrange(1000)))
            yield path, "enum (type)", ("set", 5)
        if "minimum" in s:
            yield path, "minimum", ("set", s["minimum"] - 1)
        if "maximum" in s:
            yield path, "maximum", ("set", s["maximum"] + 1)
        if "pattern" in s:
            yield path, "pattern", ("set", "\x01not matching" if s["pattern"] != "^/" else "relative/path")
        if "maxLength" in s:
            yield path, "maxLength", ("set", "a" * (s["maxLength"] + 1))
        if "minLength" in s and s["minLength"] > 0:
            yield path, "minLength", ("set", "")


def apply(doc, path, op):
    doc = copy.deepcopy(doc)
    node = doc
    for p in path[:-1]:
        node = node[p]
    if op[0] == "delete":
        del node[path[-1]]
    else:
        node[path[-1]] = copy.deepcopy(op[1])
    return doc


def dotted(path):
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + p)
    return out


def mutants(schema):
    """Every mutant of both base reports: (base name, path, kind, document), in a fixed order."""
    rng = random.Random(SEED)
    with open(os.path.join(CORPUS, "agent_report.json")) as f:
        bases = [("agent", json.load(f)), ("synthetic", synthetic(rng))]
    walker = Walker(schema, rng)
    out = []
    for name, base in bases:
        out.append((name, [], "unchanged", base))
        for path, kind, op in walker.walk(schema, base, []):
            out.append((name, path, kind, apply(base, path, op)))
    return out


class ReportMutants(unittest.TestCase):
    def test_schema_and_server_agree_on_every_mutant(self):
        with open(SCHEMA) as f:
            schema = json.load(f)
        validator = jsonschema.Draft202012Validator(schema)
        all_mutants = mutants(schema)
        self.assertGreater(len(all_mutants), 300, "the generator makes fewer mutants than expected")
        agreed, disagree, unnamed, kinds = 0, [], [], {}
        with Server("--open-ingest") as s:
            for seq, (base, path, kind, doc) in enumerate(all_mutants, start=1):
                if path[:1] != ["seq"] and isinstance(doc.get("seq"), int):
                    doc["seq"] = seq  # every mutant a new report, not a resend
                valid = validator.is_valid(doc)
                body = json.dumps(doc).encode()
                r = s.request("POST", "/api/v1/reports", body, {"Content-Type": "application/json"})
                self.assertLess(r.status, 500, f"{base} {dotted(path)} {kind}: {r.status} {r.body[:200]!r}")
                stored = 200 <= r.status < 300
                kinds.setdefault(kind, [0, 0])[0] += 1
                if valid == stored:
                    agreed += 1
                    kinds[kind][1] += 1
                    if not stored and path:
                        last = [p for p in path if isinstance(p, str)][-1]
                        msg = r.json().get("error", "")
                        if last not in msg and kind not in ("maxItems", "minItems", "maxProperties"):
                            unnamed.append(f"{base} {dotted(path)} ({kind}): {msg[:120]}")
                else:
                    why = "valid" if valid else next(iter(validator.iter_errors(doc))).message[:80]
                    said = "stored" if stored else f"{r.status} {r.json().get('error', '')[:100]}"
                    disagree.append(f"{base} {dotted(path)} ({kind}): schema says {why}; server says {said}")
        print(f"\n  {len(all_mutants)} mutants (seed {SEED}), {agreed} agreed, {len(disagree)} disagreements, "
              f"{len(unnamed)} refusals not naming the member")
        for k in sorted(kinds):
            print(f"    {k:32s} {kinds[k][1]:4d}/{kinds[k][0]:<4d} agreed")
        for d in disagree:
            print("  DISAGREE " + d)
        for u in unnamed:
            print("  UNNAMED " + u)
        self.assertEqual(disagree, [])
        self.assertEqual(unnamed, [])


if __name__ == "__main__":
    main()
