"""test_server_read_tokens.py - reads behind tokens (issue 19), on a real
server over real HTTP:
- under --require-read-token every GET route of the route table
  (server/http/route.c) and /metrics answers 401 without a token, 403 with
  an ingest or a submit token, and with a read or an admin token exactly the
  status and body an open server gave on the same database; /healthz and the
  dashboard's files stay open; writes keep their own scopes;
- on loopback, reads are open by default;
- `schedio models` and `schedio compare` read with --token or
  $SCHEDIO_TOKEN, and say what is wrong without one;
- a server listening on an address that is not loopback (192.0.2.1 in a
  network namespace of its own, made with unshare) refuses
  unauthenticated reads by default, and answers them under --open-reads
  with a warning in its log."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from harness import SOURCE, Server, binary, main, run
from report_factory import body, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
NETNS_ADDR = "192.0.2.1"  # TEST-NET-1 (RFC 5737): never routed anywhere


def get_routes():
    """The route table's GET paths, with {id} filled by a value that exists where one is at hand."""
    with open(os.path.join(SOURCE, "server", "http", "route.c")) as f:
        table = f.read()
    return re.findall(r'\{ "GET", "([^"]+)", api_\w+, (?:true|false) \}', table)


def fill(path, host_id):
    return path.replace("/hosts/{id}", f"/hosts/{host_id}").replace("{id}", "1")


def same_answer(body):
    """A body without what moves with the clock: the default window's from/to."""
    try:
        doc = json.loads(body)
    except ValueError:
        return body
    if isinstance(doc, dict):
        for k in ("from", "to", "from_ms", "to_ms"):
            doc.pop(k, None)
    return doc


def bearer(token):
    return {"Authorization": f"Bearer {token}"} if token else {}


class ReadTokens(unittest.TestCase):
    def test_reads_need_a_read_token(self):
        srv = Server()
        self.addCleanup(srv.cleanup)
        tokens = {scope: srv.add_token(f"t-{scope}", scope) for scope in ("read", "ingest", "submit", "admin")}
        srv.start()
        rep = report("host-r", seq=1)
        r = srv.request("POST", "/api/v1/reports", body(rep), {**GZ, **bearer(tokens["ingest"])})
        self.assertEqual(r.status, 200, r.body)
        paths = [fill(p, "host-r") for p in get_routes()] + ["/metrics"]
        self.assertGreater(len(paths), 15)
        # Loopback, no flag: reads are open, as before.
        open_answers = {}
        for p in paths:
            r = srv.request("GET", p)
            self.assertNotIn(r.status, (401, 403), f"GET {p} on an open server: {r.status}")
            open_answers[p] = (r.status, r.body)
        srv.stop()

        srv.args = ["--require-read-token"]
        srv.start()
        with open(srv.stderr_path) as f:
            self.assertIn("reads need a token of scope read", f.read())
        for p in paths:
            expect_open = p == "/healthz"
            r = srv.request("GET", p)
            if expect_open:
                self.assertEqual(r.status, 200, f"GET {p} must stay open")
                continue
            self.assertEqual(r.status, 401, f"GET {p} without a token: {r.status}")
            self.assertIn("token", r.json()["error"])
            self.assertEqual(srv.request("GET", p, headers=bearer("0" * 64)).status, 401, f"GET {p}, unknown token")
            for scope in ("ingest", "submit"):
                r = srv.request("GET", p, headers=bearer(tokens[scope]))
                self.assertEqual(r.status, 403, f"GET {p} with a {scope} token: {r.status}")
                self.assertIn(f"scope is {scope}", r.json()["error"])
            for scope in ("read", "admin"):
                r = srv.request("GET", p, headers=bearer(tokens[scope]))
                self.assertEqual(r.status, open_answers[p][0], f"GET {p} with a {scope} token")
                if p != "/metrics":  # it counts requests
                    self.assertEqual(same_answer(r.body), same_answer(open_answers[p][1]),
                                     f"GET {p} with a {scope} token")
        print(f"{len(paths) - 1} read routes: 401 without a token, 403 for ingest/submit, as before for read/admin")
        # The dashboard's own files stay open: it must load to ask for the token.
        for p in ("/", "/app.js", "/js/token.js"):
            r = srv.request("GET", p)
            self.assertEqual(r.status, 200, f"GET {p}")
        # Writes keep their scopes: a read token does not ingest.
        r = srv.request("POST", "/api/v1/reports", body(report("host-r", seq=2)), {**GZ, **bearer(tokens["read"])})
        self.assertIn(r.status, (401, 403), r.body)
        r = srv.request("POST", "/api/v1/reports", body(report("host-r", seq=2)), {**GZ, **bearer(tokens["ingest"])})
        self.assertEqual(r.status, 200, r.body)

        # The CLI reads with --token or $SCHEDIO_TOKEN, and says what is wrong without one.
        env = {k: v for k, v in os.environ.items() if k != "SCHEDIO_TOKEN"}
        cli = binary("schedio")
        cmp = [cli, "compare", "--server", srv.url, "--a", "host=host-r", "--b", "host=host-x", "--json"]
        r = run(cmp, env=env)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("token", r.stderr)
        r = run(cmp + ["--token", tokens["read"]], env=env)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)  # answered: one arm has no hosts
        self.assertEqual(json.loads(r.stdout)["verdict"], "inconclusive")
        r = run(cmp, env={**env, "SCHEDIO_TOKEN": tokens["read"]})
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        r = run([cli, "models", "--server", srv.url], env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("token", r.stderr)
        r = run([cli, "models", "--server", srv.url, "--token", tokens["read"]], env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = run([cli, "models", "--server", srv.url, "--token", tokens["ingest"]], env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("scope is ingest", r.stderr)
        srv.stop()

    def test_flags_contradict(self):
        r = run([binary("schedio-server"), "--require-read-token", "--open-reads", "--db", "/nonexistent/x.db"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("contradict", r.stderr)

    def test_off_loopback_reads_are_closed_by_default(self):
        if os.geteuid() != 0:
            self.skipTest("needs root: a network namespace with a non-loopback address (unshare -n)")
        for tool in ("unshare", "ip"):
            if shutil.which(tool) is None:
                self.skipTest(f"needs {tool} (util-linux, iproute2)")
        r = subprocess.run(["unshare", "--net", "--", sys.executable, os.path.abspath(__file__), "--netns-child"],
                           capture_output=True, text=True, timeout=120)
        print(r.stdout)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        seen = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(seen["default"], {"/healthz": 200, "/api/v1/hosts": 401, "/metrics": 401})
        self.assertEqual(seen["open_reads"], {"/healthz": 200, "/api/v1/hosts": 200, "/metrics": 200})
        self.assertIn("--open-reads", seen["open_reads_log"])
        self.assertIn("anyone who can reach", seen["open_reads_log"])
        self.assertIn("--open-reads opens them", seen["default_log"])


def netns_child():
    """Inside a fresh network namespace: NETNS_ADDR on its lo, a server on it twice (default,
    then --open-reads); prints what each answered as one JSON line."""
    # The address goes on the namespace's own lo (a dummy interface needs a module the machine may lack):
    # the server tells loopback by the address it listens on, 127.0.0.0/8 or ::1.
    for cmd in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", f"{NETNS_ADDR}/32", "dev", "lo"]):
        subprocess.run(cmd, check=True)
    out = {}
    for name, extra in (("default", []), ("open_reads", ["--open-reads"])):
        work = tempfile.mkdtemp(prefix="schedio-test-")
        srv = Server(*extra, workdir=work, db=os.path.join(work, "schedio.db"))  # SQLite: no PostgreSQL in here
        try:
            srv.start(listen=f"{NETNS_ADDR}:0")
            if not srv.url.startswith(f"http://{NETNS_ADDR}:"):
                raise SystemExit(f"server on {srv.url}, not {NETNS_ADDR}")
            out[name] = {p: srv.request("GET", p).status for p in ("/healthz", "/api/v1/hosts", "/metrics")}
            srv.stop()
            with open(srv.stderr_path) as f:
                out[name + "_log"] = f.read()
        finally:
            srv.cleanup()
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1:] == ["--netns-child"]:
        netns_child()
    else:
        main()
