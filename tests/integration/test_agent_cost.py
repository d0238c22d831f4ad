"""test_agent_cost.py - the agent's report of its own cost (agent.cpu_ns,
rss_bytes, bpf) against what the kernel says about the same process, read
by this test from /proc the moment each report line arrives (the agent
prints a report right after collecting it and then sleeps, so consecutive
reads bracket the same intervals):

- cpu_ns summed over the intervals against the increase of on-CPU time in
  /proc/PID/task/*/schedstat (ns, every thread: within 3% + 1 ms) and of
  utime + stime in /proc/PID/stat (clock ticks, 1/CLK_TCK s each: the
  kernel splits the same sum_exec_runtime between the two fields and each
  truncates to a tick, so within 2 ticks, plus the schedstat gap; at the
  agent's ~1.3 ms of CPU a second that is a coarse check, schedstat is the
  fine one);
- rss_bytes against VmRSS in /proc/PID/status (within 2% or 128 KiB);
- bpf, under a context-switch storm (stress-ng --switch), statistics on for
  1 s of every 4 s interval (bpf_stats_sample_ms / bpf_stats_period):
  sampled_ns is 1 s; the sched_switch program's run_cnt is the kernel's
  count in /proc/PID/fdinfo over the same interval (counted only while
  statistics were on) scaled by interval / sampled_ns (within 1%; intervals
  whose reads by this test came late, into the window, or in which another
  process had the statistics on, are left out); then,
  in the same run, the test sets kernel.bpf_stats_enabled=1 (restored
  after) and reads the program's run_time_ns / run_cnt over whole intervals
  from fdinfo: the agent's ns per run from its 25% samples is within 25% of
  that, and its reports now say sampled_ns = the interval with unscaled
  counts equal to fdinfo's (within the test's read lag).

Needs root, BPF, BTF, stress-ng and bpftool; skips with the reason elsewhere."""
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

AGENT = harness.binary("schedio-agent")
STATS_SYSCTL = "/proc/sys/kernel/bpf_stats_enabled"
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")
# The sampling run: statistics on for SAMPLE_MS in the middle of every INTERVAL_S (a quarter).
INTERVAL_S = 4
SAMPLE_MS = 1000
WINDOW_START_MS = (INTERVAL_S * 1000 - SAMPLE_MS) / 2


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
        rep = json.loads(line)
        probe.lag_ms = probe.real_ms - rep["interval"]["end_ms"]
        return rep, probe

    def stop(self):
        harness.stop_process(self.proc)
        self.proc.stdout.close()
        self.err.close()


class StatsWatch(threading.Thread):
    """Counts, every 50 ms, the moments when some process other than the agent had BPF run-time
    statistics on (kernel.bpf_stats_enabled, or a BPF_ENABLE_STATS fd such as another agent's):
    the kernel then counts runs outside the agent's windows, which nothing in the report can say."""

    def __init__(self, agent_pid):
        super().__init__(daemon=True)
        self.agent_pid = str(agent_pid)
        self.seen = 0
        self.done = threading.Event()

    def others_on(self):
        if read(STATS_SYSCTL).strip() != "0":
            return True
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid == self.agent_pid:
                continue
            try:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:bpf-stats":
                        return True
            except OSError:
                pass
        return False

    def run(self):
        while not self.done.wait(0.05):
            if self.others_on():
                self.seen += 1


def window_read(pid, prog_id, at_ms):
    """(run_cnt, run_time_ns) of the agent's program prog_id from its fdinfo at wall-clock at_ms."""
    time.sleep(max(0, at_ms / 1000 - time.time()))
    for kv in fdinfo_all(pid).values():
        if int(kv["prog_id"]) == prog_id and "run_cnt" in kv:
            return int(kv["run_cnt"]), int(kv["run_time_ns"])
    raise AssertionError(f"program {prog_id} gone from the agent's fds")


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


def check_contract(test, agent):
    """The shape issue 17's contract gives agent's cost fields."""
    for key in ("cpu_ns", "rss_bytes"):
        test.assertIsInstance(agent[key], int)
        test.assertGreaterEqual(agent[key], 0)
    bpf = agent["bpf"]
    test.assertIsInstance(bpf["sampled_ns"], int)
    test.assertLessEqual(len(bpf["programs"]), 64)
    test.assertGreater(len(bpf["programs"]), 0, "the runqlat collector's programs are loaded")
    for p in bpf["programs"]:
        test.assertRegex(p["name"], r"^[A-Za-z0-9_.]{1,64}$")
        for key in ("run_cnt", "run_time_ns"):
            test.assertIsInstance(p[key], int)
            test.assertGreaterEqual(p[key], 0)


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
            check_contract(self, a)
            cpu += a["cpu_ns"]
            # The agent reads statm at the interval's end, the test VmRSS when the report is in. In
            # between the agent builds, compresses and sends the report: zlib's deflate state alone is
            # 256 KiB (a 32 KiB window and a 64 Ki-entry hash, two bytes each), and the pages it touches
            # may still be mapped when the test reads (148 KiB seen in a clean-clone CI run). Under ASan
            # the allocator's quarantine and shadow keep growing too (~0.7 MB seen; a CI run saw 5%).
            slack = (0.10 if harness.SANITIZE else 0.02) * last.rss + 256 * 1024
            print(f"rss_bytes {a['rss_bytes']}  VmRSS {last.rss}  (slack {slack:.0f})")
            self.assertLessEqual(abs(a["rss_bytes"] - last.rss), slack,
                                 f"rss_bytes {a['rss_bytes']} vs VmRSS {last.rss}")
        sched = last.sched_ns - first.sched_ns
        ticks_ns = (last.ticks - first.ticks) * TICK_NS
        print(f"cpu_ns over 8 intervals: reported {cpu}, schedstat {sched} (ratio {cpu / sched:.4f}), "
              f"utime+stime {ticks_ns:.0f} ({last.ticks - first.ticks} ticks of {TICK_NS / 1e6:.0f} ms)")
        self.assertGreater(cpu, 0)
        # The test reads after each report is sent, the agent before: the sends at both ends of the
        # window (JSON, gzip, HTTP) differ by up to a few ms of CPU under the sanitizers on a busy machine.
        self.assertLessEqual(abs(cpu - sched), 0.03 * sched + (4e6 if harness.SANITIZE else 1e6),
                             f"cpu_ns {cpu} vs schedstat {sched}")
        # utime + stime add up to the same sum_exec_runtime, each truncated to a tick at each read:
        # within 2 ticks, plus what separates the test's reads from the agent's (the schedstat gap).
        self.assertLessEqual(abs(cpu - ticks_ns), 2 * TICK_NS + abs(cpu - sched),
                             f"cpu_ns {cpu} vs utime+stime {ticks_ns:.0f}")

    def test_bpf_figures_agree_with_the_kernel(self):
        if shutil.which("stress-ng") is None or shutil.which("bpftool") is None:
            self.skipTest("needs stress-ng and bpftool")
        if read(STATS_SYSCTL).strip() != "0":
            self.skipTest("kernel.bpf_stats_enabled is already on: the sampling cannot be seen")
        storm = subprocess.Popen(["stress-ng", "--switch", str(os.cpu_count()), "--timeout", "0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(harness.stop_process, storm)
        agent = self.start(INTERVAL_S, f"bpf_stats_sample_ms = {SAMPLE_MS}\nbpf_stats_period = {INTERVAL_S}\n")
        rep, prev = agent.next_report()
        ids = switch_prog_ids(agent.proc.pid)
        self.assertEqual(len(ids), 1, f"programs on sched_switch: {ids}")
        swid = ids.pop()
        name = prog_name(swid)

        # Phase 1: the agent's own sampling, SAMPLE_MS in the middle of every interval. An interval
        # counts when both of this test's reads came before the window opened (a loaded machine can
        # delay them) and the window lay wholly inside it: then the kernel counted the same runs
        # between the agent's reads as between this test's.
        agent_ns_per_run = []
        peak_rate = 0  # sched_switch runs a second
        margin_ms = (INTERVAL_S * 1000 - SAMPLE_MS) / 2 - 300
        watch = StatsWatch(agent.proc.pid)
        watch.start()
        self.addCleanup(watch.done.set)
        seen = watch.seen
        for _ in range(12):
            rep, now = agent.next_report()
            others, seen = watch.seen != seen, watch.seen
            interval_ns = (rep["interval"]["end_ms"] - rep["interval"]["start_ms"]) * 1e6
            sampled = rep["agent"]["bpf"]["sampled_ns"]
            p = reported(rep, name)
            lags = (prev.real_ms - rep["interval"]["start_ms"], now.real_ms - rep["interval"]["end_ms"])
            kcnt = now.progs[swid][0] - prev.progs[swid][0]
            prev = now
            # Bounded: the sampler may switch the statistics off late on a loaded machine (36 ms seen
            # under a full test run beside builds); sampled_ns is measured, so the counts stay right.
            self.assertLessEqual(sampled, SAMPLE_MS * 1.2e6)
            # A window a few ms long or short is still wholly inside the interval (margin_ms); one
            # off by more than 25 ms says the sampler waited for a CPU, so the interval is left out.
            if max(lags) > margin_ms or abs(sampled - SAMPLE_MS * 1e6) > 25e6 or others:
                print(f"interval left out: reads {lags[0]:.0f} and {lags[1]:.0f} ms after its ends, "
                      f"sampled {sampled / 1e6:.1f} ms, statistics on by another process: {others}")
                continue
            want = kcnt * interval_ns / sampled
            print(f"sampled {sampled / 1e6:.1f} ms of {interval_ns / 1e6:.0f}; {name} run_cnt reported "
                  f"{p['run_cnt']}, fdinfo {kcnt} x interval / sampled = {want:.0f} "
                  f"(ratio {p['run_cnt'] / want:.4f}); {p['run_time_ns'] / p['run_cnt']:.1f} ns/run")
            self.assertGreater(kcnt, 100)
            self.assertLessEqual(abs(p["run_cnt"] - want), 0.01 * want + 2)
            agent_ns_per_run.append(p["run_time_ns"] / p["run_cnt"])
            peak_rate = max(peak_rate, kcnt / (sampled / 1e9))
            if len(agent_ns_per_run) == 5:
                break
        watch.done.set()
        self.assertGreaterEqual(len(agent_ns_per_run), 3, "too few intervals read in time, or alone, on this machine")

        # Phase 2, interleaved with the agent's own sampling so that both see the same load on the
        # machine: an interval with statistics on for everybody (set and restored here), where fdinfo
        # counts every run, then one with them off, where only the agent's window counts.
        saved = read(STATS_SYSCTL).strip()
        self.addCleanup(write_sysctl, saved)
        # The load of a shared machine moves the cost of a run by a third from one phase to the next,
        # so each round compares an interval with the next: the figure is the median of their ratios.
        measured_ns_per_run, sampled_ns_per_run, ratios = [], [], []
        for round_ in range(5):
            write_sysctl("1")
            # The first round has a second such interval, whose both ends saw the sysctl on: the agent
            # counts it as sampled throughout, with the kernel's counts unscaled.
            for whole in ([False, True] if round_ == 0 else [False]):
                # The same second of the interval as the agent's window, so that both measure runs
                # away from the interval's ends (where the collectors' own work disturbs them).
                interval_start_ms = prev.real_ms - prev.lag_ms
                (c0, t0), (c1, t1) = (window_read(agent.proc.pid, swid, interval_start_ms + ms)
                                      for ms in (WINDOW_START_MS, WINDOW_START_MS + SAMPLE_MS))
                rep, now = agent.next_report()
                if now.stats_sysctl != "1":
                    self.skipTest("another process turned kernel.bpf_stats_enabled off during the test")
                measured_ns_per_run.append((t1 - t0) / (c1 - c0))
                print(f"stats on for all: fdinfo {c1 - c0} runs in the window's second, "
                      f"{(t1 - t0) / (c1 - c0):.1f} ns/run")
                kcnt = now.progs[swid][0] - prev.progs[swid][0]
                if whole:
                    interval_ns = (rep["interval"]["end_ms"] - rep["interval"]["start_ms"]) * 1e6
                    sampled = rep["agent"]["bpf"]["sampled_ns"]
                    p = reported(rep, name)
                    print(f"  the agent: sampled {sampled / 1e6:.1f} ms of {interval_ns / 1e6:.0f}, run_cnt "
                          f"{p['run_cnt']}")
                    self.assertAlmostEqual(sampled, interval_ns, delta=1e6)
                    # Counting never stops now, so the agent's reads (at the interval's ends) and this
                    # test's (later by their lag) see different runs: at most the lags' length at twice
                    # the highest rate seen in phase 1, plus 10 ms and 1%.
                    lag_s = (now.lag_ms + prev.lag_ms + 10) / 1000
                    self.assertLessEqual(abs(p["run_cnt"] - kcnt), lag_s * 2 * peak_rate + 0.01 * kcnt)
                prev = now
            write_sysctl("0")
            rep, prev = agent.next_report()
            p = reported(rep, name)
            sampled_ns_per_run.append(p["run_time_ns"] / p["run_cnt"])
            ratios.append(sampled_ns_per_run[-1] / measured_ns_per_run[-1])
            print(f"stats sampled by the agent: {sampled_ns_per_run[-1]:.1f} ns/run (ratio {ratios[-1]:.3f})")
        ours = statistics.median(sampled_ns_per_run)
        truth = statistics.median(measured_ns_per_run)
        ratio = statistics.median(ratios)
        print(f"{name} ns per run: agent (sampled {SAMPLE_MS} ms of {INTERVAL_S} s) median {ours:.1f}, "
              f"kernel with kernel.bpf_stats_enabled=1 (the same second of the interval before) median "
              f"{truth:.1f}; median of {len(ratios)} ratios {ratio:.3f}")
        self.assertLessEqual(abs(ratio - 1), 0.25)

if __name__ == "__main__":
    harness.main()
