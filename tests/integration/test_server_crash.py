"""test_server_crash.py - kill -9 of the server during sustained ingest: after
a restart every report that got a 2xx is stored, the database passes
PRAGMA integrity_check, and re-sending an acknowledged report is a duplicate."""
import signal
import sqlite3
import threading
import time
import unittest

from harness import Server, main, request
from report_factory import body, now_ms, report

GZ = {"Content-Encoding": "gzip", "Content-Type": "application/json"}


class Crash(unittest.TestCase):
    def test_kill_9_during_ingest_loses_no_acknowledged_report(self):
        s = Server("--open-ingest").start()
        acked = {}
        stop = threading.Event()
        t0 = now_ms()

        def sender(n):
            host = f"crash-{n}"
            acked[host] = []
            seq = 0
            while not stop.is_set():
                seq += 1
                try:
                    r = request(s.url, "POST", "/api/v1/reports",
                                body(report(host, seq, start_ms=t0 + seq * 10, cgroups=5, io_cgroups=4)), GZ,
                                timeout=10)
                except OSError:
                    return  # the server is gone
                if r.status == 200:
                    acked[host].append(seq)
                else:
                    raise AssertionError(f"{r.status} {r.body!r}")

        threads = [threading.Thread(target=sender, args=(n,)) for n in range(8)]
        try:
            for t in threads:
                t.start()
            time.sleep(2.5)
            s.stop(signal.SIGKILL, check=False)
            stop.set()
            for t in threads:
                t.join(timeout=30)
            total = sum(len(v) for v in acked.values())
            self.assertGreater(total, 50, "too few reports acknowledged before the kill")
            print(f"{total} reports acknowledged before kill -9")

            con = sqlite3.connect(s.db)
            self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            con.close()
            s.start()
            for host, seqs in acked.items():
                stored = {x["seq"] for x in s.get_json(f"/api/v1/hosts/{host}/reports?from=0&to={now_ms() + 10**7}")
                          ["reports"]}
                missing = set(seqs) - stored
                self.assertFalse(missing, f"{host}: acknowledged but lost: {sorted(missing)[:10]}")
                if seqs:
                    r = s.request("POST", "/api/v1/reports",
                                  body(report(host, seqs[-1], start_ms=t0 + seqs[-1] * 10, cgroups=5,
                                              io_cgroups=4)), GZ)
                    self.assertEqual(r.json(), {"duplicate": True, "seq": seqs[-1]})
            s.stop()
            con = sqlite3.connect(s.db)
            self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            con.close()
        finally:
            stop.set()
            s.cleanup()


if __name__ == "__main__":
    main()
