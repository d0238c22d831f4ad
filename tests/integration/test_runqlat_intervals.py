"""test_runqlat_intervals.py - every report holds exactly the samples of its
[start_ms, end_ms): none from between the BPF attach and the start of the
first interval (issue 17's defect: the first report of `--once` and of every
daemon start counted ~1 s of samples from before its start).

Busy processes (more than there are CPUs) run without pause in a fresh
cgroup. The kernel's own accounting, run_delay and pcount from
/proc/<tid>/schedstat, is sampled every 20 ms against the wall clock and read
for exactly each report's [start_ms, end_ms). The
agent's rates are its cgroup's sum_ns and count per second of its report's
own interval. They must agree within 3% for `--once --duration` 4, 8 and 16
alike (an extra second of samples is +25% at 4 s), and for the first and the
later reports of the daemon, read back through a real server's API.

Needs root, BPF, BTF and a cgroup2 mount; skips with the reason elsewhere."""
import os
import bisect
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from delivery import Agent as Daemon, host_id, ingest_server, stored, wait_for  # noqa: E402
from test_runqlat import SKIP, Agent, Cgroup, entry, kill_all, schedstat  # noqa: E402

TOLERANCE = 0.03


class KernelRates:
    """The workers' schedstat, sampled every 20 ms with the wall clock in a
    thread, so the kernel's run_delay and pcount can be read for exactly a
    report's [start_ms, end_ms) (linear between the two nearest samples)."""

    def __init__(self, workers):
        self.pids = [w.pid for w in workers]
        self.samples = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def sample(self):
        t0 = time.time()
        d, c = schedstat(self.pids)
        self.samples.append(((t0 + time.time()) * 500, d, c))  # ms, mid-read

    def run(self):
        while not self.done.is_set():
            self.sample()
            time.sleep(0.02)

    def stop(self):
        self.done.set()
        self.thread.join()
        self.sample()  # the last one after the report's end, whenever the thread last woke
        return self

    def at(self, ms):
        s = self.samples
        if not s or ms < s[0][0] or ms > s[-1][0]:
            raise AssertionError(f"no schedstat sample around {ms} ({len(s)} samples, {s[0][0] if s else 0:.0f}..{s[-1][0] if s else 0:.0f})")
        k = bisect.bisect_left([x[0] for x in s], ms)
        (t0, d0, c0), (t1, d1, c1) = s[max(k - 1, 0)], s[k]
        f = (ms - t0) / (t1 - t0) if t1 > t0 else 0
        return d0 + f * (d1 - d0), c0 + f * (c1 - c0)

    def rates(self, start_ms, end_ms):
        """(run_delay ns, pcount) per second over [start_ms, end_ms)."""
        (d0, c0), (d1, c1) = self.at(start_ms), self.at(end_ms)
        secs = (end_ms - start_ms) / 1000
        return (d1 - d0) / secs, (c1 - c0) / secs


@unittest.skipIf(SKIP, SKIP or "")
class IntervalTest(unittest.TestCase):
    def setUp(self):
        self.cg = Cgroup(f"schedio-iv-{os.getpid()}", "a")
        self.workers = self.cg.spawn(2 * os.cpu_count() + 1)
        time.sleep(1.0)  # the load settles before anything is measured

    def tearDown(self):
        kill_all(self.workers)
        for w in self.workers:
            w.wait()
        self.cg.remove()

    def check(self, what, count, sum_ns, start_ms, end_ms, kernel):
        secs = (end_ms - start_ms) / 1000
        rate, delay = count / secs, sum_ns / secs
        k_delay, k_count = kernel.rates(start_ms, end_ms)
        print(f"\n  {what}: agent {rate:.0f} waits/s, {delay / 1e9:.3f} s waited/s over {secs:.3f} s; "
              f"schedstat {k_count:.0f} waits/s, {k_delay / 1e9:.3f} s/s "
              f"(ratios {rate / k_count:.4f}, {delay / k_delay:.4f})", file=sys.stderr)
        self.assertGreater(k_count, 50, "the workers barely ran: the comparison would mean nothing")
        self.assertLessEqual(abs(rate / k_count - 1), TOLERANCE, f"{what}: count rate vs schedstat")
        self.assertLessEqual(abs(delay / k_delay - 1), TOLERANCE, f"{what}: wait rate vs schedstat")

    def test_once_reports_hold_only_their_interval_for_every_duration(self):
        for duration in (4, 8, 16):
            kernel = KernelRates(self.workers)
            report = Agent(duration).report()
            kernel.stop()
            got = entry(report, self.cg.rel)
            self.assertIsNotNone(got, f"no runqlat entry for {self.cg.rel}")
            iv = report["interval"]
            self.check(f"--once --duration {duration}", got["count"], got["sum_ns"], iv["start_ms"], iv["end_ms"],
                       kernel)

    def test_daemon_first_and_later_reports_hold_only_their_interval(self):
        hid = host_id()
        srv = ingest_server()
        srv.start()
        daemon = Daemon("--server", srv.url, "--token", srv.token, "--interval", "4")
        try:
            kernel = KernelRates(self.workers)
            daemon.start()
            wait_for(lambda: len(stored(srv, hid)) >= 3, 60, "three reports: " + daemon.log())
            daemon.stop()
            kernel.stop()
            reports = stored(srv, hid)[:3]
            first, last = reports[0]["start_ms"], reports[-1]["end_ms"]
            # One point per report: a 1 s step puts each 4 s report in the point of its start.
            series = srv.get_json(f"/api/v1/hosts/{hid}/runqlat?cgroup={self.cg.rel}"
                                  f"&from={first}&to={last}&step=1000")["series"]
            points = {p["t"]: p for p in series if p["count"]}
            for i, rep in enumerate(reports):
                p = points.get(rep["start_ms"] // 1000 * 1000)
                self.assertIsNotNone(p, f"no series point for report seq {rep['seq']}: {sorted(points)}")
                self.check(f"daemon report {i + 1} (seq {rep['seq']})", p["count"], p["sum_ns"], rep["start_ms"],
                           rep["end_ms"], kernel)
        finally:
            daemon.cleanup()
            srv.cleanup()


if __name__ == "__main__":
    harness.main()
