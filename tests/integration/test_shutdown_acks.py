"""test_shutdown_acks.py - a server stopped (SIGTERM) while a closed loop of
senders posts reports as fast as it can (build/bench/loadgen --closed):
every report it stored was answered 2xx before it exited, and every report
answered 2xx is stored. A report committed whose answer never left (the
connection closed with the daemon) would be sent again by an agent and
counted as a duplicate: exactly-once delivery rests on this. The server is
then started again on the same database and the stored reports are read
back through GET /api/v1/hosts/{id}/reports. Runs a stop a round, each at a
different moment of the load: once the server has stored STOP_AFTER[round]
reports (its /metrics count), so a slow machine moves the stop later instead
of leaving too few answers to check."""
import os
import signal
import subprocess
import tempfile
import unittest

from harness import BIN, Server, main, wait_for

LOADGEN = os.path.join(os.environ.get("SCHEDIO_BUILD") or os.path.join(BIN, ".."), "bench", "loadgen")
SENDERS = 48
HOSTS = 24
STOP_AFTER = (60, 250, 600)
WAIT_S = 90
FAR_FUTURE_MS = 4102444800000


def read_log(path):
    acked, unanswered, other = set(), set(), set()
    with open(path) as f:
        for line in f:
            host, seq, status = line.split()
            key = (host, int(seq))
            if status.startswith("2"):
                acked.add(key)
            elif status == "0":
                unanswered.add(key)
            else:
                other.add(key)
    return acked, unanswered, other


class ShutdownAcks(unittest.TestCase):
    def test_every_stored_report_was_acknowledged_before_exit(self):
        s = Server("--open-ingest", "--threads", "2")
        s.start()
        try:
            with tempfile.TemporaryDirectory() as tmp:
                acked, unanswered, other = set(), set(), set()
                for rnd, stop_after in enumerate(STOP_AFTER):
                    log = os.path.join(tmp, f"answers{rnd}.txt")
                    # a host prefix per round: each round's seqs start at 1 for its own hosts
                    lg = subprocess.Popen([LOADGEN, "--url", s.url, "--closed", str(SENDERS), "--hosts",
                                           str(HOSTS), "--duration", str(WAIT_S + 30), "--host-prefix",
                                           f"sd{rnd}", "--log", log],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    try:
                        wait_for(lambda: s.metric("schedio_reports_accepted_total") >= stop_after, WAIT_S,
                                 f"{stop_after} reports stored", every=0.05)
                    except AssertionError:
                        lg.kill()
                        raise
                    s.stop(signal.SIGTERM)  # asserts a clean exit
                    lg.send_signal(signal.SIGTERM)  # the closed loop ends once what is in flight is answered
                    out, err = lg.communicate(timeout=120)
                    print(f"round {rnd}: {out.strip()}")
                    a, u, o = read_log(log)
                    self.assertGreater(len(a), 50, "too few reports acknowledged before the stop: " + out + err)
                    acked |= a
                    unanswered |= u
                    other |= o
                    s.restart()
                stored = set()
                for rnd in range(len(STOP_AFTER)):
                    for h in range(HOSTS):
                        host = f"sd{rnd}-{h:05d}"
                        r = s.request("GET", f"/api/v1/hosts/{host}/reports?from=0&to={FAR_FUTURE_MS}")
                        if r.status == 200:
                            stored |= {(host, x["seq"]) for x in r.json()["reports"]}
                print(f"acknowledged {len(acked)}, unanswered {len(unanswered)}, other answers {len(other)}, "
                      f"stored {len(stored)}")
                self.assertEqual(acked - stored, set(), "answered 2xx but not stored")
                self.assertEqual(stored & unanswered, set(),
                                 "stored, but the connection closed before its answer: an agent would resend it")
                self.assertEqual(stored & other, set(), "stored, but answered other than 2xx")
                self.assertEqual(stored, acked)
        finally:
            s.cleanup()


if __name__ == "__main__":
    main()
