"""test_runqlat.py - the agent's runqueue latency against the kernel's own
accounting. Busy processes (more than there are CPUs) run in a fresh cgroup;
the cgroup's count and sum_ns in the agent's report must agree within 10%
with the increase of run-count and run_delay in /proc/<tid>/schedstat over
the same interval. The workers are stopped (SIGSTOP) at both ends of the
measured window, so the agent's interval and the schedstat samples cover
exactly the same scheduling events. Also: the depth limit, cgroups that
vanish mid-interval, the raw_tp fallback, the missing-capability message,
and that no program stays attached after the agent exits.

Needs root, BPF, BTF and a cgroup2 mount; skips with the reason elsewhere."""
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

AGENT = harness.binary("schedio-agent")
BUSY = [sys.executable, "-c", "while True: pass"]


def cgroup2_mount():
    with open("/proc/self/mounts") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[2] == "cgroup2":
                return parts[1]
    return None


def why_not_runnable():
    if os.geteuid() != 0:
        return "needs root (BPF programs and cgroup creation)"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "kernel has no BTF (/sys/kernel/btf/vmlinux)"
    if not cgroup2_mount():
        return "no cgroup2 hierarchy mounted"
    if not os.path.exists(AGENT):
        return "agent not built: " + AGENT
    return None


SKIP = why_not_runnable()


def schedstat(pids):
    """Sums (run_delay_ns, pcount) over every thread of pids."""
    delay = count = 0
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                fields = f.read().split()
            delay += int(fields[1])
            count += int(fields[2])
    return delay, count


def bpf_programs(exclude=()):
    """{id: name} of the loaded BPF programs (bpftool), but those whose id is in exclude."""
    out = harness.run(["bpftool", "-j", "prog", "show"]).stdout
    return {p["id"]: p.get("name", "") for p in json.loads(out or "[]") if p["id"] not in exclude}


class Cgroup:
    """A cgroup made for the test under the cgroup2 mount, removed after."""

    def __init__(self, *parts):
        self.root = cgroup2_mount()
        self.rel = "/" + "/".join(parts)
        self.path = self.root + self.rel
        os.makedirs(self.path)

    def spawn(self, n, cmd=BUSY):
        procs = f"{self.path}/cgroup.procs"

        def enter():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
        return [subprocess.Popen(cmd, preexec_fn=enter) for _ in range(n)]

    def remove(self):
        top = self.root + "/" + self.rel.split("/")[1]
        for d, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
            try:
                os.rmdir(d)
            except OSError:
                pass


def kill_all(procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


class Agent:
    """schedio-agent --once with its report on stdout."""

    def __init__(self, duration, *args, env=None):
        self.proc = subprocess.Popen(
            [AGENT, "--once", "--duration", str(duration), "--stdout", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})})
        self.stderr = []

    def wait_collecting(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.stderr.append(line)
            if "first interval started" in line:  # samples count from here, not from the attach
                return line
        self.proc.kill()
        raise AssertionError("agent never started collecting: " + "".join(self.stderr) + self.proc.stderr.read())

    def report(self, timeout=120):
        out, err = self.proc.communicate(timeout=timeout)
        self.stderr.append(err)
        if self.proc.returncode != 0:
            raise AssertionError(f"agent exited {self.proc.returncode}: " + "".join(self.stderr))
        return json.loads(out)


def entry(report, path):
    for c in report["runqlat"]["cgroups"]:
        if c["path"] == path:
            return c
    return None


@unittest.skipIf(SKIP, SKIP or "")
class RunqlatTest(unittest.TestCase):
    def measure_against_schedstat(self, env=None):
        ncpu = os.cpu_count()
        cg = Cgroup(f"schedio-test-{os.getpid()}", "a", "b")
        workers = []
        try:
            workers = cg.spawn(2 * ncpu + 1)
            time.sleep(0.3)
            for w in workers:
                os.kill(w.pid, signal.SIGSTOP)
            time.sleep(0.2)
            agent = Agent(6, env=env)
            agent.wait_collecting()
            before = schedstat([w.pid for w in workers])
            for w in workers:
                os.kill(w.pid, signal.SIGCONT)
            time.sleep(3)
            for w in workers:
                os.kill(w.pid, signal.SIGSTOP)
            time.sleep(0.3)
            after = schedstat([w.pid for w in workers])
            report = agent.report()
        finally:
            kill_all(workers)
            cg.remove()
        delay, count = after[0] - before[0], after[1] - before[1]
        # Default depth 2: /schedio-test-N/a/b counts in /schedio-test-N/a.
        self.assertIsNone(entry(report, cg.rel), "a level-3 cgroup must count in its level-2 ancestor")
        got = entry(report, cg.rel.rsplit("/", 1)[0])
        self.assertIsNotNone(got, f"no runqlat entry for the test cgroup: {report['runqlat']['cgroups']}")
        print(f"\n  schedstat: run_delay {delay} ns over {count} runs; agent: sum_ns {got['sum_ns']:.0f} "
              f"over {got['count']:.0f} (p50 {got['p50_ns']:.0f} ns, p99 {got['p99_ns']:.0f} ns)", file=sys.stderr)
        self.assertGreater(count, 100, "the workers barely ran: the comparison would mean nothing")
        self.assertLessEqual(abs(got["count"] - count), 0.10 * count, "count vs schedstat pcount")
        self.assertLessEqual(abs(got["sum_ns"] - delay), 0.10 * delay, "sum_ns vs schedstat run_delay")
        self.assertEqual(sum(n for _, n in got["buckets"]), got["count"])
        self.assertLessEqual(got["p50_ns"], got["p99_ns"])
        return report

    def test_runqlat_matches_schedstat(self):
        report = self.measure_against_schedstat()
        rq = report["runqlat"]
        self.assertEqual(rq["attach"], "tp_btf")
        self.assertEqual(rq["layout"], {"grouping_power": 4, "max_value_power": 36})
        self.assertTrue(rq["cpus"], "no per-CPU histograms")
        self.assertIn(report["sched_ext"]["state"], ("unsupported", "disabled", "enabled", "enabling", "disabling"))
        self.assertIsInstance(report["host"]["l3_domains"], list)
        import jsonschema  # python3-jsonschema, installed by deploy/install-deps.sh

        with open(os.path.join(harness.SOURCE, "schema", "report.schema.json")) as f:
            jsonschema.validate(report, json.load(f), cls=jsonschema.Draft202012Validator)

    def test_runqlat_raw_tp_fallback_matches_schedstat(self):
        report = self.measure_against_schedstat(env={"SCHEDIO_RUNQLAT_ATTACH": "raw_tp"})
        self.assertEqual(report["runqlat"]["attach"], "raw_tp")

    def test_runqlat_counts_cgroup_that_vanished_mid_interval(self):
        top = f"schedio-test-{os.getpid()}-gone"
        cg = Cgroup(top, "gone")
        workers = []
        try:
            agent = Agent(4)
            agent.wait_collecting()
            workers = cg.spawn(2 * os.cpu_count() + 1)
            time.sleep(1.5)
            kill_all(workers)
            os.rmdir(cg.path)
            report = agent.report()
        finally:
            kill_all(workers)
            cg.remove()
        got = [c for c in report["runqlat"]["cgroups"] if c["path"].startswith("/" + top)]
        self.assertTrue(got, f"counts of the vanished cgroup were lost: {report['runqlat']['cgroups']}")
        # Never seen by name (made and removed within the interval): its ancestor.
        self.assertIn(got[0]["path"], ("/" + top, cg.rel))
        self.assertGreater(got[0]["count"], 100)

    def test_runqlat_names_removed_cgroup_by_first_sight_and_frees_it(self):
        # --interval 1: the cgroup exists at some interval end (named at first
        # sight), is removed, and its last counts still carry its own name;
        # afterwards its slot is freed and it no longer appears.
        base = f"schedio-test-{os.getpid()}-seen"
        # Files, not pipes: nobody reads while it runs, and a full pipe would stall its intervals.
        out_f = tempfile.TemporaryFile("w+")
        err_f = tempfile.NamedTemporaryFile("w+")
        proc = subprocess.Popen([AGENT, "--interval", "1", "--stdout"], stdout=out_f, stderr=err_f, text=True)
        cgs, workers = [], []
        try:
            # Start after the first report: the agent is then past opening every collector.
            deadline = time.time() + 60
            while not open(err_f.name).read() or os.fstat(out_f.fileno()).st_size == 0:
                self.assertIsNone(proc.poll(), "agent exited before its first report")
                self.assertLess(time.time(), deadline, "agent never reported")
                time.sleep(0.05)
            for name in ("one", "two"):
                cg = Cgroup(base, name)
                cgs.append(cg)
                workers = cg.spawn(2 * os.cpu_count() + 1)
                time.sleep(2.5)
                kill_all(workers)
                os.rmdir(cg.path)
            time.sleep(2.5)
        finally:
            kill_all(workers)
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
            for cg in cgs:
                cg.remove()
            out_f.seek(0)
            out = out_f.read()
            out_f.close()
            err_f.close()
        reports = [json.loads(line) for line in out.splitlines() if line.strip()]
        self.assertGreaterEqual(len(reports), 5)
        for cg in cgs:
            seen = [i for i, r in enumerate(reports) if entry(r, cg.rel)]
            self.assertTrue(seen, f"{cg.rel} never reported under its own path")
            self.assertGreater(sum(entry(reports[i], cg.rel)["count"] for i in seen), 100)
        last = [i for i, r in enumerate(reports) if entry(r, cgs[1].rel)][-1]
        self.assertLess(last, len(reports) - 1, "the removed cgroup went on being reported")

    def test_runqlat_leaves_no_program_attached(self):
        for sig in (None, signal.SIGTERM, signal.SIGINT):
            # other agents on a shared machine (other tests, other worktrees)
            # have programs of the same names: only the ones loaded since count
            before = bpf_programs()
            agent = Agent(2 if sig is None else 60)
            agent.wait_collecting()
            self.assertTrue([n for n in bpf_programs(before).values() if n.startswith("schedio_rq")],
                            "programs not visible while the agent runs: the check below would prove nothing")
            if sig is None:
                agent.report()
            else:
                agent.proc.send_signal(sig)
                agent.proc.communicate(timeout=30)
            # The kernel frees a detached program after an RCU grace period,
            # asynchronously: give it a few seconds, not forever.
            deadline = time.time() + 10
            while True:
                left = [n for n in bpf_programs(before).values() if n.startswith("schedio_rq")]
                if not left or time.time() > deadline:
                    break
                time.sleep(0.1)
            self.assertEqual(left, [], f"programs left attached after exit ({sig})")

    def test_runqlat_names_missing_capability(self):
        setpriv = shutil.which("setpriv")
        if not setpriv:
            self.skipTest("setpriv (util-linux) not installed")
        r = harness.run([setpriv, "--inh-caps=-all", "--bounding-set=-bpf,-perfmon,-sys_admin",
                         AGENT, "--once", "--duration", "1", "--stdout"], timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("CAP_BPF", r.stderr)
        self.assertIn("CAP_PERFMON", r.stderr)
        self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    harness.main()
