"""test_agent_cost.py - the agent's report of its own cost (agent.cpu_ns,
rss_bytes, bpf) against what the kernel says about the same process, read
by this test from /proc the moment each report line arrives (the agent
prints a report right after collecting it and then sleeps, so consecutive
reads bracket the same intervals):

- cpu_ns summed over the intervals against the increase of on-CPU time in
  /proc/PID/task/*/schedstat (ns, every thread: within 3% + 1 ms) and of
  utime + stime in /proc/PID/stat (clock ticks, 1/CLK_TCK s each: both
  fields truncate to a tick at each of the two reads, so within 4 ticks);
- rss_bytes against VmRSS in /proc/PID/status (within 2% or 128 KiB);
- bpf, under a context-switch storm (stress-ng --switch), statistics on for
  500 ms of every 2 s (bpf_stats_sample_ms / bpf_stats_period): sampled_ns
  per 2 s interval is 500 ms; the sched_switch program's run_cnt is the
  kernel's count in /proc/PID/fdinfo over the same interval (counted only
  while statistics were on) scaled by interval / sampled_ns (within 3%);
  then, in the same run, the test sets kernel.bpf_stats_enabled=1 (restored
  after) and reads the program's run_time_ns / run_cnt over whole intervals
  from fdinfo: the agent's ns per run from its 25% samples is within 25% of
  that, and its reports now say sampled_ns = the interval with unscaled
  counts equal to fdinfo's.

Needs root, BPF, BTF, stress-ng and bpftool; skips with the reason elsewhere."""
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

AGENT = harness.binary("schedio-agent")
STATS_SYSCTL = "/proc/sys/kernel/bpf_stats_enabled"
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def why_not_runnable():
    if os.geteuid() != 0:
        return "needs root (BPF programs, BPF_ENABLE_STATS)"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "kernel has no BTF (/sys/kernel/btf/vmlinux)"
    if not os.path.exists(STATS_SYSCTL):
        return "kernel has no kernel.bpf_stats_enabled"
    if not os.path.exists(AGENT):
        return "agent not built: " + AGENT
    return None


SKIP = why_not_runnable()


def read(path):
    with open(path) as f:
        return f.read()


def write_sysctl(value):
    with open(STATS_SYSCTL, "w") as f:
        f.write(value)


def fdinfo_all(pid):
    """{fd: {key: value}} for every fd of pid whose fdinfo names a BPF program (programs and links)."""
    out = {}
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            text = read(f"/proc/{pid}/fdinfo/{fd}")
        except OSError:
            continue
        kv = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        kv = {k.strip(): v.strip() for k, v in kv.items()}
        if "prog_id" in kv:
            out[fd] = kv
    return out


class Probe:
    """What the kernel says about the agent at one moment."""

    def __init__(self, pid):
        self.real_ms = time.time() * 1000
        stat = read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()
        self.ticks = int(stat[11]) + int(stat[12])  # utime, stime (fields 14, 15)
        self.sched_ns = 0
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                self.sched_ns += int(read(f"/proc/{pid}/task/{tid}/schedstat").split()[0])
            except OSError:
                pass
        status = read(f"/proc/{pid}/status")
        self.rss = next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:"))
        # per program id: (run_cnt, run_time_ns) from the program fds
        self.progs = {}
        for kv in fdinfo_all(pid).values():
            if "run_cnt" in kv:
                self.progs[int(kv["prog_id"])] = (int(kv["run_cnt"]), int(kv["run_time_ns"]))
        self.stats_sysctl = read(STATS_SYSCTL).strip()


class Agent:
    """schedio-agent --stdout with a config file; each report comes with a Probe taken on its arrival."""

    def __init__(self, tmp, interval, conf=""):
        path = os.path.join(tmp, "agent.conf")
        with open(path, "w") as f:
            f.write(conf)
        self.err = open(os.path.join(tmp, "agent.err"), "w+")
        self.proc = subprocess.Popen(
            [AGENT, "--config", path, "--stdout", "--interval", str(interval), "--disable", "iocost"],
            stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.timeout = interval * 3 + 30

    def next_report(self):
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.err.seek(0)
            raise AssertionError("no report from the agent; its log:\n" + self.err.read())
        probe = Probe(self.proc.pid)
        return json.loads(line), probe

    def stop(self):
        harness.stop_process(self.proc)
        self.proc.stdout.close()
        self.err.close()


def switch_prog_ids(pid):
    """Ids of the agent's programs attached to the sched_switch tracepoint (from its links' fdinfo)."""
    return {int(kv["prog_id"]) for kv in fdinfo_all(pid).values() if kv.get("tp_name") == "sched_switch"}


def prog_name(prog_id):
    out = harness.run(["bpftool", "-j", "prog", "show", "id", str(prog_id)]).stdout
    return json.loads(out)["name"]


def reported(rep, name):
    progs = [p for p in rep["agent"]["bpf"]["programs"] if p["name"] == name]
    assert len(progs) == 1, f"{name} in {rep['agent']['bpf']}"
    return progs[0]


@unittest.skipIf(SKIP, SKIP or "")
class AgentCostTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="schedio-agentcost-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def start(self, interval, conf=""):
        agent = Agent(self.tmp, interval, conf)
        self.addCleanup(agent.stop)
        return agent

    def test_cpu_and_rss_agree_with_proc(self):
        agent = self.start(1)
        _, first = agent.next_report()  # the baseline: reports from here on are bracketed by probes
        cpu = 0
        for _ in range(8):
            rep, last = agent.next_report()
            a = rep["agent"]
            cpu += a["cpu_ns"]
            slack = max(0.02 * last.rss, 128 * 1024)
            print(f"rss_bytes {a['rss_bytes']}  VmRSS {last.rss}  (slack {slack:.0f})")
            self.assertLessEqual(abs(a["rss_bytes"] - last.rss), slack)
        sched = last.sched_ns - first.sched_ns
        ticks_ns = (last.ticks - first.ticks) * TICK_NS
        print(f"cpu_ns over 8 intervals: reported {cpu}, schedstat {sched} (ratio {cpu / sched:.4f}), "
              f"utime+stime {ticks_ns:.0f} ({last.ticks - first.ticks} ticks of {TICK_NS / 1e6:.0f} ms)")
        self.assertGreater(cpu, 0)
        self.assertLessEqual(abs(cpu - sched), 0.03 * sched + 1e6)
        self.assertLessEqual(abs(cpu - ticks_ns), 4 * TICK_NS)

    def test_bpf_figures_agree_with_the_kernel(self):
        if shutil.which("stress-ng") is None or shutil.which("bpftool") is None:
            self.skipTest("needs stress-ng and bpftool")
        if read(STATS_SYSCTL).strip() != "0":
            self.skipTest("kernel.bpf_stats_enabled is already on: the sampling cannot be seen")
        storm = subprocess.Popen(["stress-ng", "--switch", str(os.cpu_count()), "--timeout", "0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(harness.stop_process, storm)
        agent = self.start(2, "bpf_stats_sample_ms = 500\nbpf_stats_period = 2\n")
        rep, prev = agent.next_report()
        ids = switch_prog_ids(agent.proc.pid)
        self.assertEqual(len(ids), 1, f"programs on sched_switch: {ids}")
        swid = ids.pop()
        name = prog_name(swid)

        # Phase 1: the agent's own sampling, 500 ms of every 2 s.
        agent_ns_per_run = []
        for _ in range(5):
            rep, now = agent.next_report()
            if now.stats_sysctl != "0":
                self.skipTest("another process turned kernel.bpf_stats_enabled on during the test")
            interval_ns = (rep["interval"]["end_ms"] - rep["interval"]["start_ms"]) * 1e6
            sampled = rep["agent"]["bpf"]["sampled_ns"]
            p = reported(rep, name)
            kcnt = now.progs[swid][0] - prev.progs[swid][0]
            want = kcnt * interval_ns / sampled
            print(f"probes {prev.real_ms - rep['interval']['start_ms']:.0f}, {now.real_ms - rep['interval']['end_ms']:.0f} ms after the interval's ends; "
                  f"sampled {sampled / 1e6:.1f} ms of {interval_ns / 1e6:.0f}; {name} run_cnt reported "
                  f"{p['run_cnt']}, fdinfo {kcnt} x interval/sampled = {want:.0f} "
                  f"(ratio {p['run_cnt'] / want:.4f}); {p['run_time_ns'] / p['run_cnt']:.1f} ns/run "
                  f"[fdinfo {prev.progs[swid][0]} -> {now.progs[swid][0]}, unscaled {p['run_cnt'] * sampled / interval_ns:.0f}]")
            self.assertAlmostEqual(sampled, 500e6, delta=10e6)
            self.assertGreater(kcnt, 100)
            self.assertLessEqual(abs(p["run_cnt"] - want), 0.01 * want + 2)
            agent_ns_per_run.append(p["run_time_ns"] / p["run_cnt"])
            prev = now

        # Phase 2: statistics on for everybody (set and restored here); fdinfo counts every run.
        saved = read(STATS_SYSCTL).strip()
        self.addCleanup(write_sysctl, saved)
        write_sysctl("1")
        rep, prev = agent.next_report()  # the interval in which it was turned on is mixed: skipped
        measured_ns_per_run = []
        for _ in range(3):
            rep, now = agent.next_report()
            interval_ns = (rep["interval"]["end_ms"] - rep["interval"]["start_ms"]) * 1e6
            sampled = rep["agent"]["bpf"]["sampled_ns"]
            p = reported(rep, name)
            kcnt = now.progs[swid][0] - prev.progs[swid][0]
            kns = now.progs[swid][1] - prev.progs[swid][1]
            print(f"stats on for all: sampled {sampled / 1e6:.1f} ms of {interval_ns / 1e6:.0f}; run_cnt "
                  f"reported {p['run_cnt']}, fdinfo {kcnt}; fdinfo {kns / kcnt:.1f} ns/run")
            self.assertAlmostEqual(sampled, interval_ns, delta=1e6)
            # Counting never stops now, so the runs between the agent's read (at the interval's end)
            # and this test's differ by the test's lag: allow that, 10 ms more, and 1%.
            lag_ns = abs((now.real_ms - rep["interval"]["end_ms"]) - (prev.real_ms - rep["interval"]["start_ms"])) * 1e6
            self.assertLessEqual(abs(p["run_cnt"] - kcnt), kcnt * ((lag_ns + 10e6) / interval_ns + 0.01))
            measured_ns_per_run.append(kns / kcnt)
            prev = now
        ours = statistics.median(agent_ns_per_run)
        truth = statistics.median(measured_ns_per_run)
        print(f"{name} ns per run: agent (sampled 25%, median of 5 x 2 s) {ours:.1f}, kernel with "
              f"kernel.bpf_stats_enabled=1 (median of 3 x 2 s) {truth:.1f}, ratio {ours / truth:.3f}")
        self.assertLessEqual(abs(ours / truth - 1), 0.25)


if __name__ == "__main__":
    harness.main()
