"""test_reads_beside_ingest.py - a long read must not hold up reports. With
6,000 hosts stored, /metrics renders 5,000 hosts' iocost gauges, which takes
a second or more; it is scraped back to back while the open-loop generator
sends reports at a steady rate to a real server with two HTTP threads. Reads
that query a store run on their own workers (server/http/offload.c), so no
report may be refused or wait a second, and every scrape is answered in
full. Before the workers, each scrape stalled the HTTP thread it landed on
and the reports behind it were shed with 503."""
import os
import re
import threading
import time
import unittest

from harness import BIN, SANITIZE, Server, main, run

LOADGEN = os.path.join(os.environ.get("SCHEDIO_BUILD") or os.path.join(BIN, ".."), "bench", "loadgen")
HOSTS = 6000
RATE = 200
SECONDS = 10
# A sanitizer build renders /metrics several times slower, and on two cores the render, the scraping
# client and the load leave the ingest writer short of CPU: its overload bound (500 ms by default) then
# refuses a report or two that only waited for a core (CI saw 2 of 2,000, max 442 ms). There the bound is
# 2 s, so what fails the test is a report held up, which the max-wait assertion still catches: before the
# read workers, a report behind a scrape waited for all of it (seconds in that build).
BOUND = ["--ingest-max-wait", "2000"] if SANITIZE else []


def figures(out):
    return dict(re.findall(r"(\w+)=([\d.]+)", out))


class ReadsBesideIngest(unittest.TestCase):
    def test_metrics_scrapes_do_not_stall_reports(self):
        with Server("--open-ingest", "--threads", "2", *BOUND) as s:
            # One report from each host, 100 at once. A sanitizer build on PostgreSQL may shed a few
            # of a burst (503, its overload bound at work): the fill sends them all again, as agents
            # would, and the server answers those it stored as duplicates. Any other failure fails.
            for _ in range(3):
                fill = run([LOADGEN, "--url", s.url, "--burst", "100", "--rounds", str(HOSTS // 100), "--hosts",
                            str(HOSTS)], timeout=600)
                shed = re.search(r"statuses=(\S+)", fill.stdout)
                self.assertTrue(fill.returncode == 0 or (shed and all(
                    x.startswith("503:") for x in shed.group(1).split(","))), fill.stdout + fill.stderr)
                hosts = len(s.get_json("/api/v1/hosts")["hosts"])
                if hosts == HOSTS:
                    break
            self.assertEqual(hosts, HOSTS, "the fill did not store every host: " + fill.stdout)

            scrapes, stop = [], threading.Event()

            def scrape():
                while not stop.is_set():
                    t0 = time.monotonic()
                    r = s.request("GET", "/metrics", timeout=120)
                    scrapes.append((r.status, time.monotonic() - t0, r.body.count(b"schedio_iocost_weight{")))

            t = threading.Thread(target=scrape)
            t.start()
            try:
                time.sleep(0.5)
                load = run([LOADGEN, "--url", s.url, "--rate", str(RATE), "--duration", str(SECONDS), "--hosts",
                            str(HOSTS), "--concurrency", "64"], timeout=300)
            finally:
                stop.set()
                t.join()
            print(load.stdout.strip())
            print(f"{len(scrapes)} scrapes, each {min(x[1] for x in scrapes):.2f}-{max(x[1] for x in scrapes):.2f} s")
            f = figures(load.stdout)
            self.assertEqual(int(f["errors"]), 0, "reports were refused beside the scrapes: " + load.stdout)
            self.assertEqual(int(f["reports"]), RATE * SECONDS)
            self.assertLess(float(f["max"]), 1000.0, "a report waited a second beside the scrapes")
            self.assertGreaterEqual(len(scrapes), 2, "the scrapes did not overlap the load")
            for status, _, series in scrapes:
                self.assertEqual(status, 200)
                # 5,000 hosts shown (METRICS_MAX_HOSTS), each with its iocost cgroups
                self.assertGreaterEqual(series, 5000)


if __name__ == "__main__":
    main()
