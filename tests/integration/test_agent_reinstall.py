"""test_agent_reinstall.py - an agent that loses its state folder (package
purge and reinstall, re-imaged disk, fresh container volume) starts seq at 1
again on the same machine id, and one whose state folder is restored from a
backup rewinds it (issue 21). Every agent process reports under a new
incarnation id, so those reports are new reports: every one of them is
stored, and the server counts and shows the restart (seq went back). Exactly-once is kept where it belongs: a resend of a
stored report (same host, incarnation and seq) is a duplicate, and a report
without an incarnation (an older agent) is stored once as before.

The agent is the real schedio-agent in daemon mode against the real
schedio-server (SQLite, or PostgreSQL under SCHEDIO_TEST_DB_BACKEND)."""
import os
import shutil
import threading
import unittest

import harness
from harness import Server
from delivery import Agent, AgentServerTest, host_id, ingest_server, stored, stored_seqs, wait_for
from report_factory import body, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}


def incarnations(srv, hid):
    """{seq: [incarnation, ...]} of host hid's stored reports, read from the database."""
    rows = harness.query(srv.db, "SELECT r.seq, r.incarnation FROM reports r JOIN hosts h ON h.id = r.host_id "
                         f"WHERE h.machine_id = '{hid}' ORDER BY r.seq")
    out = {}
    for seq, inc in rows:
        out.setdefault(seq, []).append(inc)
    return out


class ReinstallTest(AgentServerTest):
    def post(self, rep):
        r = self.srv.request("POST", "/api/v1/reports", body(rep),
                             dict(GZ, Authorization="Bearer " + self.srv.token))
        self.assertEqual(r.status, 200, r.body[:300])
        return r.json()["duplicate"]

    def test_agent_with_lost_state_folder_has_every_new_report_stored(self):
        srv = self.srv
        agent = self.agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "1").start()
        wait_for(lambda: len(stored_seqs(srv, self.hid)) >= 3, 30, "first life's reports: " + agent.log())
        agent.stop()
        first = stored_seqs(srv, self.hid)
        first_inc = incarnations(srv, self.hid)[1][0]
        self.assertEqual(first, list(range(1, len(first) + 1)))

        # The state folder is lost: seq, incarnation and spool all go; the machine id stays.
        log = agent.log()
        shutil.rmtree(agent.state_dir)
        os.makedirs(agent.state_dir)
        with open(agent.log_path, "w") as f:
            f.write(log)
        agent.start()
        wait_for(lambda: len(stored(srv, self.hid)) >= len(first) + 3, 30,
                 "second life's reports: " + agent.log()[-2000:])
        agent.stop()
        second_inc = [i for i in incarnations(srv, self.hid)[1] if i != first_inc][0]

        seqs = sorted(stored_seqs(srv, self.hid))
        k = len(seqs) - len(first)
        self.assertGreaterEqual(k, 3)
        self.assertEqual(seqs, sorted(first + list(range(1, k + 1))),
                         "a report of the new incarnation was not stored")
        self.assertEqual(srv.metric("schedio_reports_duplicate_total"), 0,
                         "a new report was taken for a duplicate")
        self.assertEqual(srv.metric("schedio_agent_restarts_total"), 1)
        host = srv.get_json(f"/api/v1/hosts/{self.hid}")
        self.assertIsNotNone(host["agent_restarted_ms"])
        listed = [h for h in srv.get_json("/api/v1/hosts")["hosts"] if h["id"] == self.hid]
        self.assertEqual(listed[0]["agent_restarted_ms"], host["agent_restarted_ms"])
        with open(srv.stderr_path) as f:
            self.assertRegex(f.read(), rf"agent restarted .*seq went back from {first[-1]} to 1\b")

        # Resends of stored reports, of either life, stay duplicates.
        self.assertTrue(self.post(dict(report(self.hid, 1), agent={"version": "t", "incarnation": second_inc})))
        self.assertTrue(self.post(dict(report(self.hid, 2), agent={"version": "t", "incarnation": first_inc})))
        self.assertEqual(len(stored(srv, self.hid)), len(seqs))
        self.assertEqual(srv.metric("schedio_agent_restarts_total"), 1)

    def test_agent_with_state_restored_from_a_backup_has_every_new_report_stored(self):
        srv = self.srv
        agent = self.agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "1").start()
        wait_for(lambda: len(stored_seqs(srv, self.hid)) >= 2, 30, "reports before the backup: " + agent.log())
        agent.stop()
        backup = agent.state_dir + ".backup"
        shutil.copytree(agent.state_dir, backup)
        # What the backup's spool holds is sent again after the restore: true resends. A report the
        # server stored while the stop cut its answer short stays spooled too (delivery is at least
        # once), so the agent's next life resends it as well: one more duplicate for each of those.
        spool_seqs = [int(f[:20]) for _, _, files in os.walk(os.path.join(backup, "spool"))
                      for f in files if f.endswith(".rep")]
        spooled = len(spool_seqs)
        stored_then = set(stored_seqs(srv, self.hid))
        resends = spooled + len([q for q in spool_seqs if q in stored_then])
        agent.start()
        wait_for(lambda: len(stored_seqs(srv, self.hid)) >= 6, 30, "reports after the backup: " + agent.log())
        agent.stop()
        before = stored_seqs(srv, self.hid)
        # The backup comes back: seq rewinds to where it was, with the spool of then.
        shutil.rmtree(agent.state_dir)
        shutil.copytree(backup, agent.state_dir)
        shutil.rmtree(backup)
        agent.start()
        wait_for(lambda: len(stored(srv, self.hid)) >= len(before) + 3, 30,
                 "reports after the restore: " + agent.log()[-2000:])
        agent.stop()
        seqs = sorted(stored_seqs(srv, self.hid))
        rewound = [q for q, incs in incarnations(srv, self.hid).items() if len(incs) > 1]
        self.assertTrue(rewound, f"no seq was stored twice after the restore: {seqs}")
        self.assertEqual(srv.metric("schedio_reports_duplicate_total"), resends,
                         f"only the backup's spooled reports ({spool_seqs}, of which {sorted(stored_then)} "
                         "were stored) are resends; every new report is stored")
        self.assertEqual(srv.metric("schedio_agent_restarts_total"), 1)

    def test_agent_restart_with_its_state_goes_on_without_a_restart_or_a_gap(self):
        srv = self.srv
        agent = self.agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "1").start()
        wait_for(lambda: len(stored_seqs(srv, self.hid)) >= 2, 30, "first run: " + agent.log())
        agent.stop()
        agent.start()
        wait_for(lambda: len(stored_seqs(srv, self.hid)) >= 5, 30, "second run: " + agent.log())
        agent.stop()
        seqs = stored_seqs(srv, self.hid)
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "seq went on across the restart")
        self.assertEqual(len(set(i for incs in incarnations(srv, self.hid).values() for i in incs)), 2,
                         "each agent process reports under its own incarnation")
        self.assertEqual(srv.metric("schedio_agent_restarts_total"), 0, "a restart with its state is no rewind")

    def test_resend_of_same_report_is_duplicate(self):
        rep = report("resend-host", 5)
        rep["agent"] = {"version": "t", "incarnation": "0123456789abcdef0123456789abcdef"}
        self.assertFalse(self.post(rep))
        self.assertTrue(self.post(rep))
        other = dict(rep, agent={"version": "t", "incarnation": "f" * 32})
        self.assertFalse(self.post(other), "another incarnation's seq 5 is another report")
        self.assertTrue(self.post(other))
        self.assertEqual(len(stored(self.srv, "resend-host")), 2)

    def test_report_without_incarnation_is_stored_once(self):
        rep = report("old-agent-host", 1)
        self.assertNotIn("incarnation", rep["agent"])
        self.assertFalse(self.post(rep))
        self.assertTrue(self.post(rep))
        self.assertTrue(self.post(report("old-agent-host", 1, seed=7)), "same host and seq, no incarnation")
        self.assertFalse(self.post(report("old-agent-host", 2)))
        self.assertEqual(stored_seqs(self.srv, "old-agent-host"), [1, 2])
        self.assertEqual(self.srv.metric("schedio_agent_restarts_total"), 0)

    def test_resend_to_another_server_on_one_database_is_duplicate(self):
        if harness.BACKEND != "postgresql":
            self.skipTest("needs SCHEDIO_TEST_DB_BACKEND=postgresql (servers sharing a database)")
        db = harness.pg_database()
        servers = [Server("--open-ingest", db=db).start(), Server("--open-ingest", db=db).start()]
        try:
            def post(srv, rep):
                r = srv.request("POST", "/api/v1/reports", body(rep), GZ)
                self.assertEqual(r.status, 200, r.body[:300])
                return r.json()["duplicate"]

            life = lambda seq, inc: dict(report("shared-host", seq), agent={"version": "t", "incarnation": inc})
            a, b = "1" * 32, "2" * 32
            for seq in (1, 2, 3):
                self.assertFalse(post(servers[0], life(seq, a)))
            self.assertTrue(post(servers[1], life(2, a)), "a resend to the other server")
            self.assertFalse(post(servers[1], life(1, b)), "the new incarnation's seq 1")
            self.assertTrue(post(servers[0], life(1, b)))
            # the same report to both servers at once: the primary key lets one in
            answers = []
            rep = life(2, b)
            threads = [threading.Thread(target=lambda s=s: answers.append(post(s, rep))) for s in servers]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(sorted(answers), [False, True])
            for srv in servers:
                self.assertEqual(sorted(stored_seqs(srv, "shared-host")), [1, 1, 2, 2, 3])
            self.assertEqual(sum(s.metric("schedio_agent_restarts_total") for s in servers), 1)
        finally:
            for srv in servers:
                srv.cleanup()

    def test_malformed_incarnation_is_refused(self):
        for bad in (42, "ABCDEF0123456789ABCDEF0123456789", "abc", "g" * 32, "a" * 33):
            rep = dict(report("bad-host", 1), agent={"version": "t", "incarnation": bad})
            r = self.srv.request("POST", "/api/v1/reports", body(rep),
                                 dict(GZ, Authorization="Bearer " + self.srv.token))
            self.assertEqual(r.status, 400, bad)
            self.assertIn("agent.incarnation", r.json()["error"])


if __name__ == "__main__":
    harness.main()
