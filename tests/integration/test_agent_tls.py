"""test_agent_tls.py - reports cross TLS with verification on. A throwaway
CA and server certificate are made with openssl for each run, plus a second,
unrelated CA. The real schedio-server serves HTTPS with --tls-cert/--tls-key
and an ingest token and is verified against the CA; the agent, given the
wrong CA, logs one clear line per attempt, keeps its reports and keeps
running; a SIGHUP with the right CA delivers them all, each once, as GET
/api/v1/hosts/{id}/reports (over verified TLS too) shows."""
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import unittest
import urllib.request

import harness
from delivery import Agent, host_id, ingest_server, stored_seqs, wait_for


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

    def https_server(self):
        return ingest_server("--tls-cert", self.cert, "--tls-key", self.key, ca_file=self.ca)

    def test_server_serves_https_verified_by_its_ca(self):
        with self.https_server() as srv:
            # harness.request verifies against the CA and checks the answer against schema/openapi.yaml
            self.assertEqual(harness.request(srv.url, "GET", "/healthz", timeout=10, ca_file=self.ca).status, 200)
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

    def test_agent_wrong_ca_retries_then_reload_delivers_everything(self):
        srv = self.https_server().start()
        self.assertTrue(srv.url.startswith("https://"))
        conf = os.path.join(self.d, "agent.conf")
        tok = os.path.join(self.d, "token")
        with open(tok, "w") as f:
            f.write(srv.token + "\n")

        def write_conf(ca):
            with open(conf, "w") as f:
                f.write(f"server = {srv.url}\ntoken_file = {tok}\nca_file = {ca}\ninterval = 1\nbackoff_max = 2\n")

        write_conf(self.other_ca)
        agent = Agent()
        agent.start("--config", conf)
        try:
            hid = host_id()
            wait_for(lambda: agent.log().count("is not trusted") >= 2, 20, "two failed attempts: " + agent.log())
            self.assertIn(f"not trusted by {self.other_ca} (wrong ca_file?)", agent.log())
            self.assertTrue(agent.alive())
            self.assertEqual(stored_seqs(srv, hid), [])
            wait_for(lambda: len(agent.spooled()) >= 3, 10, "reports kept in the spool")
            self.assertTrue(agent.alive())
            write_conf(self.ca)
            agent.send(signal.SIGHUP)
            wait_for(lambda: len(stored_seqs(srv, hid)) >= 5 and not agent.spooled(), 30,
                     "delivery: " + agent.log()[-2000:])
            agent.stop()
            agent.start("--config", conf, "--interval", "60")
            wait_for(lambda: not agent.spooled(), 20, "the flushed interval")
            agent.stop()
            seqs = stored_seqs(srv, hid)
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "a seq is missing or stored twice")
            self.assertEqual(srv.metric("schedio_reports_duplicate_total"), 0)
            srv.stop()
        finally:
            agent.cleanup()
            srv.cleanup()


if __name__ == "__main__":
    harness.main()
