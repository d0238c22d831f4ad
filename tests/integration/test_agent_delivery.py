"""test_agent_delivery.py - the agent's spool and delivery against the REAL
schedio-server (ingest token, restarted on the same port and database for
outages, results read through GET /api/v1/hosts/{id}/reports): kill -9
during an outage loses nothing and seq goes on; a full spool drops the oldest
reports and the count reaches the server (per report and on /metrics);
SIGTERM spools the interval in progress and exits within 2 s; a wrong token
is a clear log line and a retry, and a SIGHUP picks up the fixed one; a
SIGHUP with a new interval lets the interval in progress end as planned.

Two tests need what the real server cannot be made to do, and say so: a
server that accepts and never answers (a bare socket), and answering 503 on
demand (with or without Retry-After, which the agent honours up to backoff_max) or
showing the agent's connections and encoding (delivery.ReportReceiver)."""
import os
import re
import signal
import time
import unittest

import harness
from delivery import Agent, AgentServerTest, ReportReceiver, host_id, ingest_server, stored, stored_seqs, wait_for


class DeliveryTest(AgentServerTest):
    def seqs(self):
        return stored_seqs(self.srv, self.hid)

    def finish(self, *args):
        """Stops the agent, delivers the interval SIGTERM cut short, stops the server cleanly."""
        self.agent.stop()
        self.agent.start(*args, "--interval", "60")
        wait_for(lambda: not self.agent.spooled(), 20, "the flushed interval")
        self.agent.stop()
        reps = stored(self.srv, self.hid)
        self.assertEqual(self.srv.metric("schedio_reports_duplicate_total"), 0,
                         "an acknowledged report was sent again")
        self.srv.stop()
        return reps

    def assert_contiguous(self, seqs):
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "a seq is missing or stored twice")

    def test_kill9_during_outage_then_restart_loses_nothing(self):
        srv = self.srv
        agent = self.agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "1",
                                   "--backoff-max", "2").start()
        wait_for(lambda: len(self.seqs()) >= 2, 20, "first reports: " + agent.log())
        srv.stop()
        wait_for(lambda: len(agent.spooled()) >= 5, 20, "reports in the spool")
        agent.stop(signal.SIGKILL)
        before = len(agent.spooled())
        agent.start()
        # The restarted agent adds to the spool while the server is still down.
        wait_for(lambda: len(agent.spooled()) > before, 15, "the restarted agent to spool: " + agent.log()[-2000:])
        srv.restart()
        wait_for(lambda: not agent.spooled(), 30, "the spool to drain: " + agent.log()[-2000:])
        last = self.seqs()[-1]
        wait_for(lambda: self.seqs()[-1] >= last + 2, 10, "new reports after the restart")
        reps = self.finish()
        self.assert_contiguous([r["seq"] for r in reps])
        self.assertGreater(len(reps), before + 5)
        self.assertEqual(sum(r["dropped"] for r in reps), 0)

    def test_full_spool_drops_oldest_and_count_reaches_server(self):
        srv = self.srv
        # With runqlat histograms a 1 s report is ~1.5-2.6 KB gzip'd plus a 32-byte header: the cap holds 3-5.
        agent = self.agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "1",
                                   "--backoff-max", "2", "--spool-max-bytes", "8K").start()
        wait_for(lambda: len(self.seqs()) >= 2, 20, "first reports: " + agent.log())
        first = self.seqs()
        srv.stop()
        # Outage until the agent has dropped at least 5 reports (a fixed sleep is too
        # short on a loaded machine, where reports come slower than one a second).
        def dropped_so_far():
            return sum(int(m) for m in re.findall(r"spool full \(\d+ bytes cap\): (\d+) oldest", agent.log()))
        wait_for(lambda: dropped_so_far() >= 5, 60, "five reports dropped: " + agent.log()[-2000:])

        # Within the cap, except for the moment between writing a new report and unlinking the
        # oldest (spool.c writes first so a crash cannot lose the drop count).
        def spool_bytes():
            total = 0
            for f in agent.spooled():
                try:
                    total += os.path.getsize(os.path.join(agent.spool_dir, f))
                except FileNotFoundError:
                    pass
            return total
        wait_for(lambda: spool_bytes() <= 8192, 5, "the spool under its cap")
        self.assertIn("spool full", agent.log())
        srv.restart()
        wait_for(lambda: not agent.spooled(), 30, "the spool to drain")
        agent.stop()
        agent.start("--interval", "60")
        wait_for(lambda: not agent.spooled(), 20, "the flushed interval")
        agent.stop()
        reps = stored(srv, self.hid)
        dropped_metric = srv.metric("schedio_agent_reports_dropped_total")
        self.assertEqual(srv.metric("schedio_reports_duplicate_total"), 0)
        srv.stop()
        seqs = [r["seq"] for r in reps]
        missing = sorted(set(range(1, seqs[-1] + 1)) - set(seqs))
        self.assertGreater(len(missing), 3)
        # Oldest first: what was lost is one run right after what was delivered before the
        # outage (one more report may have gone between reading `first` and the stop).
        self.assertEqual(missing, list(range(missing[0], missing[0] + len(missing))), missing)
        self.assertIn(missing[0], (len(first) + 1, len(first) + 2), (first, missing))
        # Never silent: the reports that survived say how many went, and the server keeps it.
        self.assertEqual(sum(r["dropped"] for r in reps), len(missing))
        self.assertEqual(dropped_metric, len(missing))

    def test_sigterm_spools_current_interval_within_2s(self):
        srv = self.srv
        srv.stop()
        agent = self.agent = Agent("--server", srv.url, "--token", srv.token, "--interval", "30").start()
        time.sleep(2)
        rc, took = agent.stop()
        self.assertEqual(rc, 0)
        self.assertLess(took, 2.0)
        self.assertEqual(len(agent.spooled()), 1, agent.log())
        srv.restart()
        agent.start()
        wait_for(lambda: not agent.spooled(), 20, "the spooled interval to be delivered")
        rep = stored(srv, self.hid)[0]
        self.assertEqual(rep["seq"], 1)
        self.assertLess(rep["end_ms"] - rep["start_ms"], 10000)
        agent.stop()
        srv.stop()

    def test_sigterm_cuts_a_hanging_delivery_short(self):
        # Stand-in: a server that accepts the connection and never answers, which the real
        # server cannot be made to do, must not hold the agent.
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        try:
            agent = self.agent = Agent("--server", f"http://127.0.0.1:{s.getsockname()[1]}", "--interval", "1").start()
            time.sleep(2.5)
            rc, took = agent.stop()
            self.assertEqual(rc, 0)
            self.assertLess(took, 2.0)
            self.assertGreaterEqual(len(agent.spooled()), 2)
        finally:
            s.close()

    def test_wrong_token_retries_then_reload_fixes(self):
        srv = self.srv
        workdir = harness.temp_dir("schedio-agent-conf-")
        tok = os.path.join(workdir, "token")
        conf = os.path.join(workdir, "agent.conf")
        with open(tok, "w") as f:
            f.write("wrong-token\n")
        with open(conf, "w") as f:
            f.write(f"[agent]\nserver = {srv.url}\ntoken_file = {tok}\ninterval = 1\nbackoff_max = 2\n")
        agent = self.agent = Agent()
        agent.start("--config", conf)  # the last --config wins over delivery.py's /dev/null
        wait_for(lambda: agent.log().count("refused the token (401)") >= 2, 15, "401 log lines: " + agent.log())
        self.assertTrue(agent.alive())
        self.assertEqual(self.seqs(), [])
        wait_for(lambda: len(agent.spooled()) >= 2, 10, "refused reports to stay in the spool")
        # A bad edit is refused on reload and the agent keeps running on the old configuration.
        with open(conf, "a") as f:
            f.write("intervall = 2\n")
        agent.send(signal.SIGHUP)
        wait_for(lambda: "reload failed" in agent.log(), 10, "the refused reload")
        self.assertIn("unknown key 'intervall'", agent.log())
        self.assertTrue(agent.alive())
        with open(tok, "w") as f:
            f.write(srv.token + "\n")
        with open(conf, "w") as f:
            f.write(f"[agent]\nserver = {srv.url}\ntoken_file = {tok}\ninterval = 1\nbackoff_max = 2\n")
        agent.send(signal.SIGHUP)
        wait_for(lambda: "configuration reloaded" in agent.log(), 10, "the reload")
        wait_for(lambda: len(self.seqs()) >= 6 and not agent.spooled(), 30, "delivery: " + agent.log()[-2000:])
        reps = self.finish("--config", conf)
        self.assert_contiguous([r["seq"] for r in reps])

    def test_reload_with_a_new_interval_keeps_the_interval_in_progress(self):
        # A reload 1.5 s into a 3 s interval that asks for 1 s: the interval in progress still ends
        # at its planned end (a 3 s report, not a 1.5 s one), and 1 s reports follow from there.
        srv = self.srv
        workdir = harness.temp_dir("schedio-agent-conf-")
        conf = os.path.join(workdir, "agent.conf")
        with open(conf, "w") as f:
            f.write(f"[agent]\nserver = {srv.url}\ntoken = {srv.token}\ninterval = 3\n")
        agent = self.agent = Agent()
        agent.start("--config", conf)
        wait_for(lambda: stored(srv, self.hid), 15, "the first report: " + agent.log())
        first_end = stored(srv, self.hid)[0]["end_ms"]
        with open(conf, "w") as f:
            f.write(f"[agent]\nserver = {srv.url}\ntoken = {srv.token}\ninterval = 1\n")
        time.sleep(max(0.0, (first_end + 1500) / 1000 - time.time()))
        reload_ms = time.time() * 1000
        agent.send(signal.SIGHUP)
        wait_for(lambda: "configuration reloaded" in agent.log(), 10, "the reload: " + agent.log())
        self.assertIn("every 1 s, from the end of the interval in progress", agent.log())
        wait_for(lambda: len(stored(srv, self.hid)) >= 5, 20, "reports at the new interval: " + agent.log())
        reps = self.finish("--config", conf)
        self.assert_contiguous([r["seq"] for r in reps])
        # the last report is the interval SIGTERM cut short
        lengths = [(r["start_ms"], r["end_ms"] - r["start_ms"]) for r in reps[:-1]]
        for start, ms in lengths:
            want = 3000 if start < reload_ms else 1000
            self.assertAlmostEqual(ms, want, delta=200, msg=f"report lengths {lengths}, reload at {reload_ms}")
        self.assertGreaterEqual(sum(1 for _, ms in lengths if ms < 2000), 2, lengths)

    def test_503_is_retried_and_reports_go_gzipped_over_one_connection(self):
        # Stand-in: the real server answers 503 only when its queue is full or it is shutting
        # down, and does not show the agent's source ports or Content-Encoding.
        rcv = ReportReceiver().start()
        try:
            rcv.fail_status = 503
            agent = self.agent = Agent("--server", rcv.url, "--interval", "1", "--backoff-max", "2").start()
            wait_for(lambda: agent.log().count("answered 503") >= 2, 15, "503 log lines: " + agent.log())
            self.assertTrue(agent.alive())
            rcv.fail_status = None
            wait_for(lambda: len(rcv.seqs(self.hid)) >= 6 and not agent.spooled(), 30,
                     "delivery: " + agent.log()[-2000:])
            n = len(rcv.client_ports)
            wait_for(lambda: len(rcv.client_ports) >= n + 4, 15, "four more reports")
            agent.stop()
            seqs = rcv.seqs(self.hid)
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)))
            self.assertEqual(rcv.resent_after_ack, 0)
            self.assertEqual(rcv.plain_bodies, 0)
            self.assertEqual(len(set(rcv.client_ports[n:])), 1, "each report opened a new connection")
        finally:
            rcv.stop()

    def failing_gaps(self, rcv, backoff_max, n):
        """Seconds between the first n+1 refused POSTs of a new agent."""
        agent = self.agent = Agent("--server", rcv.url, "--interval", "1", "--backoff-max", str(backoff_max)).start()
        wait_for(lambda: len(rcv.post_times) >= n + 1, 30, "refused POSTs: " + agent.log()[-2000:])
        agent.stop()
        t = rcv.post_times[:n + 1]
        return [b - a for a, b in zip(t, t[1:])]

    def test_retry_after_is_honoured_up_to_backoff_max(self):
        # Stand-in, as above: the real server's 503s (overload) cannot be had on demand.
        rcv = ReportReceiver().start()
        try:
            rcv.fail_status, rcv.retry_after = 503, 3
            gaps = self.failing_gaps(rcv, 10, 2)
            print(f"Retry-After 3, backoff_max 10: gaps {[round(g, 2) for g in gaps]} s")
            # Without it the first two waits are 0.5-1 s and 1-2 s (the backoff); with it 3-3.75 s.
            for g in gaps:
                self.assertGreaterEqual(g, 2.95, gaps)
                self.assertLessEqual(g, 3.75 + 0.5, gaps)
            with rcv.lock:
                rcv.post_times.clear()
            rcv.retry_after = 100
            gaps = self.failing_gaps(rcv, 2, 2)
            print(f"Retry-After 100, backoff_max 2: gaps {[round(g, 2) for g in gaps]} s")
            for g in gaps:
                self.assertGreaterEqual(g, 1.95, gaps)
                self.assertLessEqual(g, 2.5 + 0.5, gaps)
        finally:
            rcv.stop()


if __name__ == "__main__":
    harness.main()
