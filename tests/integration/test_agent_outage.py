"""test_agent_outage.py - issue 6's first criterion: an agent reporting every
second, the server stopped for 60 s (SCHEDIO_OUTAGE_S to change it) and
started again: every seq of the whole run is stored exactly once, none
missing, none twice, and no acknowledged report is sent again.

The receiver is delivery.ReportReceiver, which STANDS IN FOR THE REAL
SERVER's ingest until issue 5 lands (see delivery.py)."""
import os
import signal
import time
import unittest

import harness
from delivery import Agent, ReportReceiver, host_id, wait_for

OUTAGE_S = int(os.environ.get("SCHEDIO_OUTAGE_S", "60"))


class OutageTest(unittest.TestCase):
    def test_outage_every_seq_stored_exactly_once(self):
        rcv = ReportReceiver().start()
        agent = Agent("--server", rcv.url, "--interval", "1", "--backoff-max", "4").start()
        try:
            hid = host_id()
            wait_for(lambda: len(rcv.seqs(hid)) >= 3, 20, "first reports")
            rcv.stop()
            time.sleep(OUTAGE_S)
            self.assertTrue(agent.alive(), agent.log())
            self.assertGreaterEqual(len(agent.spooled()), OUTAGE_S - 5, "reports must wait in the spool")
            rcv.start()
            wait_for(lambda: not agent.spooled(), 30, "the spool to drain: " + agent.log()[-2000:])
            time.sleep(2.5)
            rc, took = agent.stop()
            self.assertEqual(rc, 0, agent.log()[-2000:])
            self.assertLess(took, 2.0, "SIGTERM must stop the agent within 2 s")
            # The interval cut short by SIGTERM was spooled; one more start delivers it.
            agent.start("--interval", "60")
            wait_for(lambda: not agent.spooled(), 20, "the last interval to be delivered")
            agent.stop()

            seqs = rcv.seqs(hid)
            self.assertGreaterEqual(len(seqs), OUTAGE_S + 5)
            self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))), "a seq is missing")
            self.assertEqual(seqs[0], 1)
            self.assertEqual(rcv.resent_after_ack, 0, "an acknowledged report was sent again")
            # The same through the API a dashboard uses.
            got = [r["seq"] for r in harness.request(rcv.url, "GET", f"/api/v1/hosts/{hid}/reports").json()["reports"]]
            self.assertEqual(got, seqs)
            self.assertIn("not delivered", agent.log())
            self.assertIn("server unreachable", agent.log())
        finally:
            rcv.stop()
            agent.cleanup()


if __name__ == "__main__":
    harness.main()
