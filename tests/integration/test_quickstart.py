"""test_quickstart.py - the README's first command, run as a user would:
deploy/quickstart.sh serves the dashboard and /healthz, Ctrl-C (SIGINT to
its process group) stops server and agent cleanly, and a second run reuses
the database."""
import os
import re
import signal
import socket
import sqlite3
import subprocess
import time
import unittest

from harness import SOURCE, free_port, main, request, temp_dir

BUILD = os.environ.get("SCHEDIO_BUILD") or os.path.join(SOURCE, "build")


class QuickStart(unittest.TestCase):
    def start(self, state, port):
        env = dict(os.environ, SCHEDIO_LISTEN=f"127.0.0.1:{port}", SCHEDIO_STATE=state, SCHEDIO_BUILD_DIR=BUILD)
        proc = subprocess.Popen(["bash", os.path.join(SOURCE, "deploy", "quickstart.sh")], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        deadline = time.time() + 300
        out = []
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            out.append(line)
            m = re.search(r"Dashboard: (http://\S+)", line)
            if m:
                return proc, m.group(1).rstrip("/")
        os.killpg(proc.pid, signal.SIGKILL)
        self.fail("quickstart printed no dashboard URL:\n" + "".join(out[-30:]))

    def stop(self, proc):
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        rest = proc.communicate(timeout=30)[0]
        self.assertIn("schedio stopped", rest)
        return rest

    def test_quickstart_serves_dashboard_and_reuses_database(self):
        state = temp_dir("schedio-qs-")
        port = free_port()
        proc, url = self.start(state, port)
        try:
            self.assertEqual(url, f"http://127.0.0.1:{port}")
            r = request(url, "GET", "/healthz")
            self.assertEqual(r.status, 200)
            self.assertEqual(r.json()["status"], "ok")
            r = request(url, "GET", "/")
            self.assertEqual(r.status, 200)
            self.assertIn(b"schedio", r.body)
        finally:
            self.stop(proc)
        db = os.path.join(state, "schedio.db")
        con = sqlite3.connect(db)
        created = con.execute("SELECT value FROM server_meta WHERE key='created_ms'").fetchone()[0]
        con.close()
        # nothing keeps listening after Ctrl-C
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()

        proc, url = self.start(state, port)
        try:
            self.assertEqual(request(url, "GET", "/healthz").status, 200)
        finally:
            self.stop(proc)
        con = sqlite3.connect(db)
        self.assertEqual(con.execute("SELECT value FROM server_meta WHERE key='created_ms'").fetchone()[0], created)
        con.close()


if __name__ == "__main__":
    main()
