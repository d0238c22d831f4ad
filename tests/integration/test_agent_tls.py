"""test_agent_tls.py - reports cross TLS with verification on. A throwaway
CA and server certificate are made with openssl for each run, plus a second,
unrelated CA. schedio-server serves HTTPS with --tls-cert/--tls-key and is
verified against the CA; the agent, given the wrong CA, logs one clear line
per attempt, keeps its reports and keeps running; a SIGHUP with the right CA
delivers them all, each once.

Agent-to-ingest delivery goes to delivery.ReportReceiver over TLS, which
STANDS IN FOR THE REAL SERVER's ingest until issue 5 lands; against the real
schedio-server the test checks the agent's TLS handshake and verification."""
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import unittest
import urllib.request

import harness
from delivery import Agent, ReportReceiver, free_port, host_id, wait_for


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=schedio test {name}", cwd=d)


def make_server_cert(d, ca):
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key",
            "-out", "server.csr", "-subj", "/CN=127.0.0.1", cwd=d)
    with open(os.path.join(d, "ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "ext", cwd=d)


class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = tempfile.mkdtemp(prefix="schedio-tls-")
        make_ca(cls.d, "ca")
        make_ca(cls.d, "other-ca")
        make_server_cert(cls.d, "ca")
        cls.ca = os.path.join(cls.d, "ca.pem")
        cls.other_ca = os.path.join(cls.d, "other-ca.pem")
        cls.cert = os.path.join(cls.d, "server.pem")
        cls.key = os.path.join(cls.d, "server.key")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d, ignore_errors=True)

    def https_server(self, port=0):
        srv = harness.Server("--tls-cert", self.cert, "--tls-key", self.key, "--listen", f"127.0.0.1:{port}")
        # harness.Server reads an http:// line; a TLS server prints https://.
        srv.start = lambda timeout=20, srv=srv: start_https(srv, timeout)
        return srv

    def test_server_serves_https_verified_by_its_ca(self):
        with self.https_server() as srv:
            ctx = ssl.create_default_context(cafile=self.ca)
            with urllib.request.urlopen(srv.url + "/healthz", context=ctx, timeout=10) as r:
                self.assertEqual(r.status, 200)
            # Not trusted without the CA: verification is real.
            with self.assertRaises(urllib.error.URLError) as e:
                urllib.request.urlopen(srv.url + "/healthz", context=ssl.create_default_context(), timeout=10)
            self.assertIn("CERTIFICATE_VERIFY_FAILED", str(e.exception))
            # Plain HTTP to the HTTPS port gets no HTTP answer.
            port = int(srv.url.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                s.settimeout(10)
                try:
                    data = s.recv(100)
                except (ConnectionResetError, socket.timeout):
                    data = b""
                self.assertFalse(data.startswith(b"HTTP/1.1 200"))

    def test_server_tls_misconfiguration_is_one_clear_line(self):
        srv = harness.binary("schedio-server")
        db = os.path.join(self.d, "x.db")
        r = harness.run([srv, "--listen", "127.0.0.1:0", "--db", db, "--tls-cert", self.cert])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--tls-cert and --tls-key go together", r.stderr)
        r = harness.run([srv, "--listen", "127.0.0.1:0", "--db", db, "--tls-cert", "/nonexistent.pem",
                         "--tls-key", self.key])
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read --tls-cert /nonexistent.pem", r.stderr)
        r = harness.run([srv, "--listen", "127.0.0.1:0", "--db", db, "--tls-cert", self.cert, "--tls-key",
                         os.path.join(self.d, "other-ca.key")], timeout=20)
        self.assertEqual(r.returncode, 1)
        self.assertIn("is --tls-key the key of --tls-cert?", r.stderr)

    def test_agent_verifies_the_real_server(self):
        # The real server has no ingest yet (issue 5): a 404 proves the TLS session was verified and
        # an HTTP answer came back; the wrong CA never gets that far.
        with self.https_server() as srv:
            for ca, expect in ((self.other_ca, "is not trusted"), (self.ca, "answered 404")):
                agent = Agent("--server", srv.url, "--interval", "1", "--ca-file", ca).start()
                try:
                    wait_for(lambda: expect in agent.log(), 15, expect + ": " + agent.log())
                    self.assertTrue(agent.alive())
                    self.assertEqual(agent.stop()[0], 0)
                finally:
                    agent.cleanup()

    def test_agent_wrong_ca_retries_then_reload_delivers_everything(self):
        rcv = ReportReceiver(certfile=self.cert, keyfile=self.key).start()
        conf = os.path.join(self.d, "agent.conf")

        def write_conf(ca):
            with open(conf, "w") as f:
                f.write(f"server = {rcv.url}\nca_file = {ca}\ninterval = 1\nbackoff_max = 2\n")

        write_conf(self.other_ca)
        agent = Agent()
        agent.start("--config", conf)
        try:
            hid = host_id()
            wait_for(lambda: agent.log().count("is not trusted") >= 2, 20, "two failed attempts: " + agent.log())
            self.assertIn(f"not trusted by {self.other_ca} (wrong ca_file?)", agent.log())
            self.assertTrue(agent.alive())
            self.assertEqual(rcv.seqs(hid), [])
            wait_for(lambda: len(agent.spooled()) >= 3, 10, "reports kept in the spool")
            self.assertTrue(agent.alive())
            write_conf(self.ca)
            agent.send(signal.SIGHUP)
            wait_for(lambda: len(rcv.seqs(hid)) >= 5 and not agent.spooled(), 30, "delivery: " + agent.log()[-2000:])
            agent.stop()
            agent.start("--config", conf, "--interval", "60")
            wait_for(lambda: not agent.spooled(), 20, "the flushed interval")
            agent.stop()
            seqs = rcv.seqs(hid)
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)))
            self.assertEqual(rcv.resent_after_ack, 0)
        finally:
            rcv.stop()
            agent.cleanup()


def start_https(srv, timeout):
    import re
    srv.stderr = open(srv.stderr_path, "w")
    srv.proc = subprocess.Popen(
        [harness.binary("schedio-server"), "--listen", "127.0.0.1:0", "--db", srv.db, *srv.args],
        stdout=subprocess.PIPE, stderr=srv.stderr, text=True)
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = srv.proc.stdout.readline()
        if not line:
            break
        m = re.match(r"schedio-server listening on (https://\S+?)/?$", line.strip())
        if m:
            srv.url = m.group(1)
            return srv
    srv.proc.kill()
    raise RuntimeError("server did not start: " + open(srv.stderr_path).read())


if __name__ == "__main__":
    harness.main()
