"""harness.py - what integration tests share: the built programs, a real
schedio-server on an ephemeral loopback port with a real SQLite file (or,
with SCHEDIO_TEST_DB_BACKEND=postgresql, a fresh database of the throwaway
PostgreSQL that tests/pg/pg-start.sh started; SCHEDIO_TEST_PG_STATE names its
state file), and a real HTTP client (http.client). Every answer request()
receives is checked against schema/openapi.yaml (contract.py, with Debian's
python3-jsonschema and python3-yaml); otherwise Python's standard library
only."""
import atexit
import http.client
import json
import os
import re
import shutil
import sqlite3
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

import contract

BIN = os.environ.get("SCHEDIO_BIN") or os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin")
SOURCE = os.environ.get("SCHEDIO_SOURCE") or os.path.join(os.path.dirname(__file__), "..", "..")
DATA = os.environ.get("SCHEDIO_DATA") or os.path.join(SOURCE, "..", "shared", "data")
SANITIZE = os.environ.get("SCHEDIO_SANITIZE") == "1"
BACKEND = os.environ.get("SCHEDIO_TEST_DB_BACKEND", "sqlite")
PG_STATE = os.environ.get("SCHEDIO_TEST_PG_STATE")
_pg_seq = [0]


def pg_server_conninfo():
    """The throwaway cluster's conninfo (its 'postgres' database)."""
    if not PG_STATE or not os.path.exists(PG_STATE):
        raise RuntimeError("SCHEDIO_TEST_PG_STATE does not name a running tests/pg/pg-start.sh cluster")
    with open(PG_STATE) as f:
        return f.read().split("\n")[1].strip()


def pg_database():
    """Creates a fresh, empty database on the throwaway cluster; returns its conninfo."""
    base = pg_server_conninfo()
    _pg_seq[0] += 1
    name = f"t{os.getpid()}_{_pg_seq[0]}_{int(time.time() * 1000) % 100000000}"
    r = run(["psql", "-qAtX", base, "-c", f"CREATE DATABASE {name}"])
    if r.returncode != 0:
        raise RuntimeError("cannot create a test database: " + r.stderr)
    return base.rsplit("/", 1)[0] + "/" + name


def is_pg(db):
    return db.startswith("postgresql://") or db.startswith("postgres://")


def query(db, sql):
    """Rows of one SQL statement on the server's database (a SQLite file or a
    PostgreSQL conninfo); values come back as int where they look like one."""
    if not is_pg(db):
        con = sqlite3.connect(db)
        try:
            rows = [tuple(r) for r in con.execute(sql).fetchall()]
            con.commit()
            return rows
        finally:
            con.close()
    r = run(["psql", "-qAtX", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", db, "-c", sql])
    if r.returncode != 0:
        raise RuntimeError(f"psql: {sql}: {r.stderr}")
    rows = []
    for line in r.stdout.splitlines():
        rows.append(tuple(int(v) if re.fullmatch(r"-?\d+", v) else v for v in line.split("\x1f")))
    return rows


def undo_schema_after_16(db):
    """Undoes what migrations after 16 added (0017: SSD result kinds; SQLite's
    0018: report keys staged and moved out of the reports table, which gets its
    primary key and host index back; 0019: the blob dictionaries; SQLite's 0020:
    chunked raw reports), so that a test taking a database back to an older
    schema can have them run again."""
    query(db, "DROP TABLE blob_dicts")
    query(db, "ALTER TABLE ssd_results DROP COLUMN kind")
    query(db, "ALTER TABLE ssd_models DROP COLUMN quick")
    if not is_pg(db):
        cols = ("host_id, seq, start_ms, end_ms, received_ms, sched_group, kernel, host_hist, series, iocost, "
                "dropped, incarnation, health")
        for stmt in [
                "DROP TABLE report_chunks", "DROP VIEW report_ids_by_host", "DROP TABLE reports_stage0", "DROP TABLE reports_stage1",
                "DROP TABLE reports_stage_state", "DROP TABLE report_keys", "DROP TABLE report_times",
                "DELETE FROM sqlite_stat1 WHERE tbl LIKE 'reports_stage%'",
                "CREATE TABLE reports_old (host_id INTEGER NOT NULL, seq INTEGER NOT NULL, start_ms INTEGER NOT NULL, "
                "end_ms INTEGER NOT NULL, received_ms INTEGER NOT NULL, sched_group TEXT NOT NULL, "
                "kernel TEXT NOT NULL, host_hist BLOB, series BLOB, iocost BLOB, dropped INTEGER NOT NULL DEFAULT 0, "
                "incarnation TEXT NOT NULL DEFAULT '', health TEXT, PRIMARY KEY (host_id, incarnation, seq)) STRICT",
                f"INSERT INTO reports_old ({cols}) SELECT {cols} FROM reports ORDER BY id",
                "DROP TABLE reports", "ALTER TABLE reports_old RENAME TO reports",
                "CREATE INDEX reports_host_time ON reports (host_id, start_ms)",
                "CREATE INDEX reports_time ON reports (start_ms)"]:
            query(db, stmt)


def binary(name):
    return os.path.join(BIN, name)


def free_port():
    """A loopback TCP port free right now (for a process that must use a fixed port)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop_process(proc, sig=signal.SIGTERM, timeout=30):
    """Sends sig to proc unless it has exited, waits, and kills it after timeout s; returns its exit status."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def run(args, timeout=120, **kw):
    """Runs a command to completion; returns CompletedProcess with text output."""
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def wait_for(pred, timeout=60, what="the rollup worker", every=0.5):
    """pred()'s first true value, polled every `every` s; AssertionError after timeout s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(every)
    raise AssertionError("timed out waiting for " + what)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return self.headers.get(name.lower())


def request(base, method, path, body=None, headers=None, timeout=30, ca_file=None):
    """One HTTP(S) request on a fresh connection; returns Response. https is
    verified against ca_file (or the system's CAs)."""
    u = urllib.parse.urlsplit(base)
    if u.scheme == "https":
        conn = http.client.HTTPSConnection(u.hostname, u.port, timeout=timeout,
                                           context=ssl.create_default_context(cafile=ca_file))
    else:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        elif isinstance(body, str):
            body = body.encode()
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        resp = Response(r.status, {k.lower(): v for k, v in r.getheaders()}, data)
    finally:
        conn.close()
    contract.check(method, path, resp.status, resp.headers, resp.body)  # an undocumented answer fails the test
    return resp


def temp_dir(prefix):
    """A fresh folder under the temporary directory, removed when the test process exits
    (a test that stops its processes by hand may never call their cleanup)."""
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


class Server:
    """A schedio-server process on 127.0.0.1:0 with its own database file.
    restart() brings it back on the same port and database (an outage as an
    agent sees it); ca_file verifies an https server (--tls-cert/--tls-key)."""

    def __init__(self, *args, db=None, workdir=None, ca_file=None):
        self.workdir = workdir or temp_dir("schedio-test-")
        if db is None:
            db = pg_database() if BACKEND == "postgresql" else os.path.join(self.workdir, "schedio.db")
        self.db = db
        self.args = list(args)
        self.ca_file = ca_file
        self.proc = None
        self.url = None
        self.port = None
        self.stderr_path = os.path.join(self.workdir, "server.stderr")

    def start(self, timeout=20, same_port=False, listen=None):
        """Starts on an ephemeral port, or with same_port on the one the last start had; listen
        (ADDR:PORT) replaces 127.0.0.1."""
        port = self.port if same_port and self.port else 0
        self.stderr = open(self.stderr_path, "a")
        self.proc = subprocess.Popen(
            [binary("schedio-server"), "--listen", listen or f"127.0.0.1:{port}", "--db", self.db, *self.args],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            m = re.match(r"schedio-server listening on (https?://\S+?)/?$", line.strip())
            if m:
                self.url = m.group(1)
                self.port = urllib.parse.urlsplit(self.url).port
                return self
        self.proc.kill()
        raise RuntimeError("server did not start: " + open(self.stderr_path).read())

    def restart(self, timeout=20):
        """Starts again on the port and database file of the last start (after stop())."""
        return self.start(timeout, same_port=True)

    def add_token(self, name, scope="ingest"):
        """Creates a token in this server's database (running or not); returns it."""
        r = run([binary("schedio-server"), "token", "add", "--db", self.db, "--scope", scope, name])
        if r.returncode != 0:
            raise RuntimeError("token add failed: " + r.stderr)
        return r.stdout.strip().splitlines()[-1]

    def request(self, method, path, body=None, headers=None, timeout=30):
        return request(self.url, method, path, body, headers, timeout, self.ca_file)

    def metric(self, name):
        """The value of an unlabelled series on /metrics."""
        r = self.request("GET", "/metrics")
        m = re.search(r"^" + re.escape(name) + r" (\S+)$", r.body.decode(), re.M)
        if not m:
            raise AssertionError(f"{name} not on /metrics")
        return float(m.group(1))

    def get_json(self, path, expect=200):
        r = self.request("GET", path)
        if r.status != expect:
            raise AssertionError(f"GET {path}: {r.status} {r.body[:300]!r}")
        return r.json()

    def stop(self, sig=signal.SIGTERM, check=True):
        """Stops the server; with check, asserts a clean exit (sanitizers included)."""
        if not self.proc:
            return 0
        rc = stop_process(self.proc, sig)
        self.proc.stdout.close()
        self.stderr.close()
        self.proc = None
        if check and sig == signal.SIGTERM and rc != 0:
            with open(self.stderr_path) as f:
                raise AssertionError(f"server exited {rc}: " + f.read()[-3000:])
        return rc

    def cleanup(self):
        if self.proc:
            self.stop(signal.SIGKILL, check=False)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        try:
            if self.proc:
                self.stop(check=exc[0] is None)
        finally:
            self.cleanup()


def main():
    """Runs the calling module's unittest cases with verbose output; fails
    too when any answer broke the OpenAPI contract (even in a thread)."""
    prog = unittest.main(module="__main__", verbosity=2, exit=False)
    print(contract.summary(), file=sys.stderr)
    if contract.violations:
        print(f"\n{len(contract.violations)} answer(s) not as schema/openapi.yaml documents them:", file=sys.stderr)
        for v in contract.violations:
            print("  " + v, file=sys.stderr)
    sys.exit(0 if prog.result.wasSuccessful() and not contract.violations else 1)
