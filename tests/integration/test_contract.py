"""test_contract.py - the OpenAPI contract check (contract.py) that
harness.request() applies to every answer: it refuses answers the
description does not document (so the other tests' passing means something),
and every operation of schema/openapi.yaml answered by a real server, on an
empty database and with one host, is as documented, errors included (404,
405 with Allow, 400, 401, 403, 413, 415)."""
import json
import re
import socket
import unittest
import urllib.parse

import contract
from harness import Server, main, request
from report_factory import body, now_ms, report

J = {"content-type": "application/json"}


class ContractRefuses(unittest.TestCase):
    """Answers that break the description, made up here: each must be refused."""

    def setUp(self):
        self.c = contract.Contract()

    def refused(self, method, path, status, headers, data, why):
        with self.assertRaises(contract.ContractError) as cm:
            self.c.check(method, path, status, headers, data)
        self.assertIn(why, str(cm.exception))

    def test_wrong_answers_are_refused(self):
        self.refused("GET", "/healthz", 200, J, b'{"status": 1}', "is not of type 'string'")
        self.refused("GET", "/api/v1/hosts/h1", 200, J, b'{"cpus": "many"}', "'hostname' is a required property")
        self.refused("GET", "/api/v1/hosts", 200, J, b"not json", "not JSON")
        self.refused("GET", "/api/v1/compare", 200, J, b'{"verdict": "better"}', "required property")
        self.refused("GET", "/metrics", 200, J, b"{}", "Content-Type 'application/json'")
        self.refused("POST", "/api/v1/reports", 418, J, b'{"error": "x"}', "status 418 is not documented")
        self.refused("GET", "/api/v1/hosts", 404, J, b'{"error": "x"}', "status 404 is not documented")
        self.refused("GET", "/api/v1/hosts", 400, J, b'{"message": "x"}', "'error' is a required property")
        self.refused("GET", "/api/v1/undocumented", 200, J, b"{}", "does not document")
        self.refused("GET", "/api/v1/reports", 405, {**J, "allow": "GET"}, b'{"error": "x"}', "Allow")
        self.refused("PUT", "/api/v1/reports", 200, J, b"{}", "PUT is not documented")
        self.refused("DELETE", "/api/v1/experiments/1", 204, {}, b"{}", "a body")
        self.refused("POST", "/api/v1/ssd/results", 429, {**J, "retry-after": "soon"}, b'{"error": "x"}',
                     "Retry-After")
        self.refused("GET", "/api/v1/ssd/results/" + "0" * 32 + "/file", 200, {"content-type": "application/gzip"},
                     b"PK", "gzip magic")

    def test_right_answers_pass(self):
        self.assertEqual(self.c.check("GET", "/healthz?x=1", 200, J, b'{"status": "ok", "version": "1"}'),
                         "getHealthz")
        self.assertEqual(self.c.check("HEAD", "/api/v1/hosts", 200, J, b""), "listHosts")
        self.assertIsNone(self.c.check("GET", "/api/v1/nowhere", 404, J, b'{"error": "no such API path"}'))
        self.assertIsNone(self.c.check("GET", "/api/v1/hosts/", 404, J, b'{"error": "no such API path"}'))
        self.assertIsNone(self.c.check("GET", "/index.html", 200, {"content-type": "text/html"}, b"<html>"))


class EveryOperation(unittest.TestCase):
    def test_every_operation_answers_as_documented(self):
        doc = contract.contract().doc
        seen = {}  # operationId -> statuses the server gave
        with Server() as s:
            ingest = s.add_token("contract-ingest", "ingest")
            admin = s.add_token("contract-admin", "admin")
            t0 = now_ms() - 120000
            r = s.request("POST", "/api/v1/reports", body(report("contract-host", 1, start_ms=t0), False),
                          {"Content-Type": "application/json", "Authorization": f"Bearer {ingest}"})
            self.assertEqual(r.status, 200, r.body)

            def ask(method, path, data=None, headers=None):
                r = request(s.url, method, path, data, headers)  # checked by contract.check in request()
                op = contract.contract().check(method, path, r.status, r.headers, r.body)
                if op:
                    seen.setdefault(op, set()).add(r.status)
                return r

            for template, item in doc["paths"].items():
                for method in ("get", "post", "delete"):
                    if method not in item:
                        continue
                    for ident in ("contract-host", "nosuch", "0" * 32, "1"):
                        path = re.sub(r"\{id\}", ident, template)
                        if method == "get":
                            ask("GET", path)
                            ask("GET", path + "?from=x&step=-1&limit=0&q=%01&model=%01")
                            ask("HEAD", path)
                        else:
                            ask(method.upper(), path)  # no token: 401 (or 400 where the route is open)
                            ask(method.upper(), path, b"{}", {"Authorization": f"Bearer {ingest}",
                                                              "Content-Type": "application/json"})
                            ask(method.upper(), path, b"{", {"Authorization": f"Bearer {admin}",
                                                             "Content-Type": "application/json"})
                    for other in ("PUT", "PATCH"):
                        r = ask(other, re.sub(r"\{id\}", "x", template))
                        self.assertEqual(r.status, 405, (other, template))
            r = ask("POST", "/api/v1/reports", b"x", {"Authorization": f"Bearer {ingest}", "Content-Encoding": "br"})
            self.assertEqual(r.status, 415)
            u = urllib.parse.urlsplit(s.url)
            with socket.create_connection((u.hostname, u.port), timeout=10) as sock:  # answered from the headers
                sock.sendall(b"GET /api/v1/hosts HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n{" % (64 << 20))
                raw = contract.read_answer(sock)
            self.assertEqual(contract.check_raw("GET", "/api/v1/hosts", raw), "listHosts")
            self.assertEqual(raw.split(b" ")[1], b"413")
            seen["listHosts"].add(413)
            r = ask("GET", "/api/v1/no/such/path")
            self.assertEqual(r.status, 404)
            r = ask("POST", "/api/v1/experiments", {"name": "c", "a": "sched=x", "b": "sched=y",
                                                    "window": {"last_hours": 1}},
                    {"Authorization": f"Bearer {ingest}"})
            self.assertEqual(r.status, 403)
            r = ask("POST", "/api/v1/experiments", {"name": "c", "a": "sched=x", "b": "sched=y",
                                                    "window": {"last_hours": 1}},
                    {"Authorization": f"Bearer {admin}"})
            self.assertEqual(r.status, 201, r.body)
            ident = r.json()["id"]
            for path in (f"/api/v1/experiments/{ident}", "/api/v1/experiments"):
                self.assertEqual(ask("GET", path).status, 200)
            self.assertEqual(ask("DELETE", f"/api/v1/experiments/{ident}", None,
                                 {"Authorization": f"Bearer {admin}"}).status, 204)
        ops = {op["operationId"] for item in doc["paths"].values() for m, op in item.items() if m in ("get", "post",
                                                                                                        "delete")}
        print("\n  " + json.dumps({op: sorted(v) for op, v in sorted(seen.items())}))
        self.assertEqual(ops - set(seen), set(), "operations never answered")
        self.assertEqual(contract.violations, [])


if __name__ == "__main__":
    main()
