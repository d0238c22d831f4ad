"""delivery.py - what the agent delivery tests share: a schedio-agent
process in daemon mode with its own state folder; the REAL schedio-server
(harness.Server) with an ingest token, whose stored reports are read only
through GET /api/v1/hosts/{id}/reports; and ReportReceiver, a stand-in.

ReportReceiver is used only where a test needs what the real server cannot be
made to show: answering 503 on demand, and which connection and encoding
each report came with. It is a real HTTP server on
loopback (python's http.server, HTTP/1.1 keep-alive) that gunzips each report
and stores it once per (host.id, seq) like the real ingest."""
import gzip
import http.server
import json
import os
import signal
import socket
import subprocess
import threading
import time
import unittest

import harness


class ReportReceiver:
    def __init__(self, port=None):
        self.port = port or harness.free_port()
        self.fail_status = None
        self.retry_after = None   # Retry-After sent with fail_status, when set
        self.lock = threading.Lock()
        self.stored = {}          # (host_id, seq) -> report
        self.posts = []           # (seq, status) per POST, in arrival order
        self.post_times = []      # time.monotonic() per POST, the same order
        self.resent_after_ack = 0 # POSTs for a (host, seq) that had already had a 2xx
        self.client_ports = []    # the agent's source port per POST: keep-alive reuses one
        self.plain_bodies = 0     # POSTs not gzip'd
        self.httpd = None
        self.conns = set()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def _handler(rcv):
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the agent expects

            def log_message(self, *a):
                pass

            def setup(self):
                super().setup()
                with rcv.lock:
                    rcv.conns.add(self.connection)

            def finish(self):
                with rcv.lock:
                    rcv.conns.discard(self.connection)
                super().finish()

            def reply(self, status, doc, headers=()):
                body = json.dumps(doc).encode()
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/api/v1/reports":
                    return self.reply(404, {"error": "no such path"})
                with rcv.lock:
                    rcv.client_ports.append(self.client_address[1])
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                else:
                    with rcv.lock:
                        rcv.plain_bodies += 1
                rep = json.loads(body)
                key = (rep["host"]["id"], rep["seq"])
                status = rcv.fail_status or 200
                with rcv.lock:
                    rcv.posts.append((rep["seq"], status))
                    rcv.post_times.append(time.monotonic())
                    if status == 200:
                        if key in rcv.stored:
                            rcv.resent_after_ack += 1
                        else:
                            rcv.stored[key] = rep
                if status != 200:
                    extra = [("Retry-After", str(rcv.retry_after))] if rcv.retry_after is not None else []
                    return self.reply(status, {"error": "stand-in told to fail"}, extra)
                self.reply(200, {"stored": True})

        return Handler

    def start(self):
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        httpd.daemon_threads = True
        self.httpd = httpd
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        """An outage: the listener closes and every kept-alive connection is cut."""
        if not self.httpd:
            return
        self.httpd.shutdown()
        self.httpd.server_close()
        with self.lock:
            for c in list(self.conns):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.httpd = None

    def reports(self, host_id):
        with self.lock:
            return sorted((r for (h, _), r in self.stored.items() if h == host_id), key=lambda r: r["seq"])

    def seqs(self, host_id):
        return [r["seq"] for r in self.reports(host_id)]


FAR_FUTURE_MS = 4102444800000  # 2100-01-01: "to" that takes every report


def ingest_server(*args, **kw):
    """The real schedio-server (not started) with an ingest token in .token."""
    srv = harness.Server(*args, **kw)
    srv.token = srv.add_token("agent-test")
    return srv


def stored(srv, hid):
    """Every report of host hid the real server stored ({seq, start_ms, end_ms,
    dropped}, by seq), as GET /api/v1/hosts/{id}/reports lists it."""
    r = srv.request("GET", f"/api/v1/hosts/{hid}/reports?from=0&to={FAR_FUTURE_MS}")
    if r.status == 404:  # the host has not reported yet
        return []
    if r.status != 200:
        raise AssertionError(f"reports list: {r.status} {r.body[:300]!r}")
    return r.json()["reports"]


def stored_seqs(srv, hid):
    return [r["seq"] for r in stored(srv, hid)]


def host_id():
    for p in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        if os.path.exists(p):
            with open(p) as f:
                return f.read().strip()
    raise RuntimeError("no machine id")


class Agent:
    """schedio-agent in daemon mode; state (seq, spool) in its own folder that outlives restarts."""

    def __init__(self, *args, state_dir=None):
        self.state_dir = state_dir or harness.temp_dir("schedio-agent-test-")
        self.args = list(args)
        self.proc = None
        self.log_path = os.path.join(self.state_dir, "agent.log")

    @property
    def spool_dir(self):
        return os.path.join(self.state_dir, "spool")

    def start(self, *extra):
        self.logf = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [harness.binary("schedio-agent"), "--config", os.devnull, "--state-dir", self.state_dir,
             *self.args, *extra], stdout=subprocess.DEVNULL, stderr=self.logf)
        return self

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def spooled(self):
        return sorted(f for f in os.listdir(self.spool_dir) if f.endswith(".rep")) \
            if os.path.isdir(self.spool_dir) else []

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def send(self, sig):
        self.proc.send_signal(sig)

    def stop(self, sig=signal.SIGTERM):
        """Stops the agent; returns (exit status, seconds it took)."""
        t0 = time.monotonic()
        rc = harness.stop_process(self.proc, sig)
        took = time.monotonic() - t0
        self.proc = None
        self.logf.close()
        return rc, took

    def cleanup(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.logf.close()
        subprocess.run(["rm", "-rf", self.state_dir])


class AgentServerTest(unittest.TestCase):
    """A test case with a started ingest server (self.srv), this host's id
    (self.hid) and room for one agent (self.agent), all cleaned up after."""

    def setUp(self):
        self.hid = host_id()
        self.srv = ingest_server()
        self.srv.start()
        self.agent = None

    def tearDown(self):
        if self.agent:
            self.agent.cleanup()
        self.srv.cleanup()


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)
