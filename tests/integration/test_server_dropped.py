"""test_server_dropped.py - the agent's delivery.dropped on the real server:
kept per report (schema/sqlite/0010_delivery_dropped.sql), returned as
`dropped` by GET /api/v1/hosts/{id}/reports and summed into
schedio_agent_reports_dropped_total on /metrics, counted once even when the
report carrying it arrives twice; a bad count is a 400 that stores nothing."""
import unittest

from harness import Server, is_pg, main, query, undo_schema_after_16
from report_factory import body, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}


def post(s, rep):
    return s.request("POST", "/api/v1/reports", body(rep, True), GZ)


def with_dropped(rep, n):
    rep["delivery"] = {"dropped": n}
    return rep


class Dropped(unittest.TestCase):
    def test_dropped_is_stored_listed_and_counted_once(self):
        with Server("--open-ingest") as s:
            self.assertEqual(post(s, report("d1", 1)).status, 200)
            r = post(s, with_dropped(report("d1", 6), 4))
            self.assertEqual(r.status, 200, r.body)
            r = post(s, with_dropped(report("d1", 6), 4))  # the ack was lost: sent again
            self.assertEqual(r.json()["duplicate"], True)
            self.assertEqual(post(s, with_dropped(report("d2", 9), 2)).status, 200)
            reps = s.get_json("/api/v1/hosts/d1/reports?from=0")["reports"]
            self.assertEqual([(x["seq"], x["dropped"]) for x in reps], [(1, 0), (6, 4)])
            metrics = s.request("GET", "/metrics").body.decode()
            self.assertIn("# TYPE schedio_agent_reports_dropped_total counter\n", metrics)
            self.assertIn("schedio_agent_reports_dropped_total 6\n", metrics)
            for bad, msg in ((-1, b"delivery.dropped is out of range"), ("3", b"delivery.dropped must be an integer")):
                r = post(s, with_dropped(report("d1", 7), bad))
                self.assertEqual(r.status, 400)
                self.assertIn(msg, r.body)
            self.assertEqual(len(s.get_json("/api/v1/hosts/d1/reports?from=0")["reports"]), 2)

    def test_a_database_from_before_0010_gains_the_column(self):
        # A report stored by a schema-9 server keeps dropped = 0 after the upgrade.
        with Server("--open-ingest") as s:
            self.assertEqual(post(s, report("old", 1)).status, 200)
            s.stop()
            # Back to schema 9: the version lives in PRAGMA user_version (SQLite) or schema_version (PostgreSQL).
            # 0011 (agent incarnation) and 0017 (SSD kinds) are undone too, so that they can run again.
            undo_schema_after_16(s.db)
            undo_0011 = ("ALTER TABLE hosts DROP COLUMN agent_incarnation; "
                         "ALTER TABLE hosts DROP COLUMN agent_seq; ALTER TABLE hosts DROP COLUMN agent_restarted_ms")
            if is_pg(s.db):
                query(s.db, "ALTER TABLE reports DROP COLUMN dropped; ALTER TABLE reports DROP COLUMN incarnation; "
                            "ALTER TABLE reports ADD PRIMARY KEY (host_id, seq); " + undo_0011 + "; "
                            "DELETE FROM schema_version WHERE version > 9")
            else:
                query(s.db, "ALTER TABLE reports DROP COLUMN dropped")
                for stmt in undo_0011.split("; "):
                    query(s.db, stmt)
                query(s.db, "PRAGMA user_version = 9")
            s.start()
            self.assertEqual(post(s, with_dropped(report("old", 2), 3)).status, 200)
            reps = s.get_json("/api/v1/hosts/old/reports?from=0")["reports"]
            self.assertEqual([(x["seq"], x["dropped"]) for x in reps], [(1, 0), (2, 3)])


if __name__ == "__main__":
    main()
