"""test_agent_outage.py - issue 6's first criterion against the real
schedio-server: an agent reporting every second with an ingest token, the
server stopped for 60 s (SCHEDIO_OUTAGE_S to change it) and started again on
the same port and database file: every seq of the whole run is stored
exactly once, none missing, none twice (read through GET
/api/v1/hosts/{id}/reports), and the restarted server saw no report again
that it had already acknowledged (schedio_reports_duplicate_total 0)."""
import os
import time
import unittest

import harness
from delivery import Agent, host_id, ingest_server, stored_seqs, wait_for

OUTAGE_S = int(os.environ.get("SCHEDIO_OUTAGE_S", "60"))


class OutageTest(unittest.TestCase):
    def test_outage_every_seq_stored_exactly_once(self):
        srv = ingest_server()
        srv.start()
        agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "1", "--backoff-max", "4").start()
        try:
            hid = host_id()
            wait_for(lambda: len(stored_seqs(srv, hid)) >= 3, 20, "first reports: " + agent.log())
            srv.stop()
            time.sleep(OUTAGE_S)
            self.assertTrue(agent.alive(), agent.log())
            self.assertGreaterEqual(len(agent.spooled()), OUTAGE_S - 5, "reports must wait in the spool")
            srv.restart()
            wait_for(lambda: not agent.spooled(), 30, "the spool to drain: " + agent.log()[-2000:])
            time.sleep(2.5)
            rc, took = agent.stop()
            self.assertEqual(rc, 0, agent.log()[-2000:])
            self.assertLess(took, 2.0, "SIGTERM must stop the agent within 2 s")
            # The interval cut short by SIGTERM was spooled; one more start delivers it.
            agent.start("--interval", "60")
            wait_for(lambda: not agent.spooled(), 20, "the last interval to be delivered")
            agent.stop()

            seqs = stored_seqs(srv, hid)
            self.assertGreaterEqual(len(seqs), OUTAGE_S + 5)
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "a seq is missing or stored twice")
            self.assertEqual(srv.metric("schedio_reports_duplicate_total"), 0,
                             "an acknowledged report was sent again")
            self.assertIn("not delivered", agent.log())
            self.assertIn("server unreachable", agent.log())
            srv.stop()  # a clean exit, sanitizers included
        finally:
            agent.cleanup()
            srv.cleanup()


if __name__ == "__main__":
    harness.main()
