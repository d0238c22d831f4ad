"""test_server_basics.py - schedio-server's foundation: /healthz, the route
table's 404/405 answers, migrations recorded and refused when newer, the
dashboard served, and one clear line for unusable flags, ports and paths."""
import hashlib
import os
import re
import socket
import sqlite3
import stat
import unittest

from harness import BACKEND, Server, binary, is_pg, main, pg_database, query, run, temp_dir


class ServerBasics(unittest.TestCase):
    def test_healthz_answers_ok_with_version(self):
        with Server() as s:
            r = s.request("GET", "/healthz")
            self.assertEqual(r.status, 200)
            self.assertEqual(r.header("content-type"), "application/json")
            doc = r.json()
            self.assertEqual(doc["status"], "ok")
            self.assertRegex(doc["version"], r"^\d+\.\d+\.\d+")

    def test_unknown_api_path_is_404_json(self):
        with Server() as s:
            r = s.request("GET", "/api/v1/no/such/thing")
            self.assertEqual(r.status, 404)
            self.assertIn("error", r.json())

    def test_wrong_method_is_405_with_allow(self):
        with Server() as s:
            r = s.request("DELETE", "/healthz")
            self.assertEqual(r.status, 405)
            self.assertEqual(r.header("allow"), "GET")
            self.assertIn("error", r.json())

    def test_migrations_recorded_and_database_reused(self):
        # SQLite keeps the version in PRAGMA user_version, PostgreSQL in the schema_version table.
        def version(db):
            q = "SELECT max(version) FROM schema_version" if is_pg(db) else "PRAGMA user_version"
            return query(db, q)[0][0]

        def created(db):
            return query(db, "SELECT value FROM server_meta WHERE key='created_ms'")[0][0]

        with Server() as s:
            db = s.db
            s.get_json("/healthz")
            s.stop()
            v, c = version(db), created(db)
            self.assertGreaterEqual(v, 1)
            s.start()  # second start on the same database: no migration error, same database
            s.get_json("/healthz")
            s.stop()
            self.assertEqual(version(db), v)
            self.assertEqual(created(db), c)

    def test_newer_database_is_refused_and_left_untouched(self):
        d = temp_dir("schedio-basics-")
        db = os.path.join(d, "future.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE from_the_future (x)")
        con.execute("PRAGMA user_version = 999999")
        con.commit()
        con.close()
        before = hashlib.sha256(open(db, "rb").read()).hexdigest()
        r = run([binary("schedio-server"), "--listen", "127.0.0.1:0", "--db", db])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("newer", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertEqual(hashlib.sha256(open(db, "rb").read()).hexdigest(), before)
        self.assertEqual(sorted(os.listdir(d)), ["future.db"])

    def test_newer_postgresql_database_is_refused_and_left_untouched(self):
        if BACKEND != "postgresql":
            self.skipTest("PostgreSQL backend only (SCHEDIO_TEST_DB_BACKEND=postgresql)")
        db = pg_database()
        query(db, "CREATE TABLE schema_version (version BIGINT PRIMARY KEY, name TEXT NOT NULL, "
                  "applied_ms BIGINT NOT NULL); INSERT INTO schema_version VALUES (999999, 'future', 0); "
                  "CREATE TABLE from_the_future (x INT)")
        tables = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        before = query(db, tables)
        r = run([binary("schedio-server"), "--listen", "127.0.0.1:0", "--db", db])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("newer", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertEqual(query(db, tables), before)
        self.assertEqual(query(db, "SELECT version FROM schema_version"), [(999999,)])

    def test_unreachable_postgresql_is_one_clear_line(self):
        # Port 1 on loopback: nothing listens there, so libpq's connect is refused at once.
        for db in ("postgresql://schedio@127.0.0.1:1/schedio", "host=127.0.0.1 port=1 dbname=schedio"):
            r = run([binary("schedio-server"), "--listen", "127.0.0.1:0", "--db", db])
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot connect to PostgreSQL", r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            r = run([binary("schedio-server"), "token", "list", "--db", db])
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot connect to PostgreSQL", r.stderr)

    def test_port_in_use_is_one_clear_line(self):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        d = temp_dir("schedio-basics-")
        try:
            r = run([binary("schedio-server"), "--listen", f"127.0.0.1:{port}", "--db", os.path.join(d, "x.db")])
        finally:
            sock.close()
        self.assertEqual(r.returncode, 1)
        self.assertIn("Address already in use", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertEqual(os.listdir(d), [])

    def test_unwritable_database_folder_is_one_clear_line(self):
        d = temp_dir("schedio-basics-")
        os.chmod(d, stat.S_IRUSR | stat.S_IXUSR)
        # root ignores permissions; a folder inside a missing one is unwritable for everyone
        for db in (os.path.join(d, "missing", "x.db"), "/proc/schedio-test.db"):
            r = run([binary("schedio-server"), "--listen", "127.0.0.1:0", "--db", db])
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot open database", r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertFalse(os.path.exists(db))

    def test_bad_flags_exit_2_with_one_line(self):
        for args in (["--bogus"], ["--threads", "zero"], ["--listen"], ["extra-arg"], ["nosuchcommand"]):
            r = run([binary("schedio-server"), *args])
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("schedio-server:", r.stderr)

    def test_bad_listen_address_is_rejected(self):
        r = run([binary("schedio-server"), "--listen", "not-an-address", "--db", "/tmp/never.db"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad listen address", r.stderr)

    def test_help_and_version(self):
        r = run([binary("schedio-server"), "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("--listen", r.stdout)
        r = run([binary("schedio-server"), "--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^schedio-server \d+\.\d+\.\d+")

    def test_dashboard_served_without_flags(self):
        with Server() as s:
            r = s.request("GET", "/")
            self.assertEqual(r.status, 200)
            self.assertIn(b"<title>schedio", r.body)
            chart = re.search(rb'src="(/vendor/[^"]+/chart\.umd\.min\.js)"', r.body)
            self.assertIsNotNone(chart, "index.html loads Chart.js from /vendor/")
            r = s.request("GET", chart.group(1).decode())
            self.assertEqual(r.status, 200)
            self.assertGreater(len(r.body), 100000)
            self.assertEqual(s.request("GET", "/../../etc/passwd").status, 404)
            self.assertEqual(s.request("GET", "/%2e%2e/%2e%2e/etc/passwd").status, 404)


if __name__ == "__main__":
    main()
