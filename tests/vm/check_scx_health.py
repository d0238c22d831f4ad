#!/usr/bin/python3
"""check_scx_health.py - host side of test_scx_health.sh.

OUT_DIR holds the agent's report of one interval in the sid VM during which
scx_fifo ran and was unloaded, then scx_broken was loaded and ejected by the
watchdog (report_health.json), and what the guest saw on its own:
enable_seq_fifo.txt and enable_seq_broken.txt (read from sysfs while each
ran), fifo_events.txt (the kernel's events file just before scx_fifo was
unloaded: scx_fifo ran wholly inside the interval, so each of the report's
deltas is at least that), broken.log (the loader's exit line, read from the
BPF exit info, an independent source of the reason and message the agent
reads from the kernel log).
Exit 0 when every check holds, 1 otherwise (each failure printed)."""
import json
import os
import re
import sys

failed = []
KINDS = {"done", "unreg", "unreg_bpf", "unreg_kern", "sysrq", "error", "error_bpf", "error_stall", "unknown"}


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failed.append(what)
    return cond


def read(out, name):
    with open(os.path.join(out, name)) as f:
        return f.read()


def is_count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def main(out):
    report = json.loads(read(out, "report_health.json"))
    sx = report.get("sched_ext", {})
    start, end = report["interval"]["start_ms"], report["interval"]["end_ms"]
    print(f"interval [{start}, {end}) ({(end - start) / 1000:.1f} s)")
    print("sched_ext: " + json.dumps({k: v for k, v in sx.items() if k != "transitions"}, indent=1))
    seq_fifo = int(read(out, "enable_seq_fifo.txt"))
    seq_broken = int(read(out, "enable_seq_broken.txt"))

    # schedulers: both, oldest first, with the enable_seq the guest read
    scheds = sx.get("schedulers", [])
    by_ops = {s.get("ops"): s for s in scheds}
    check([s.get("ops") for s in scheds] == ["scx_fifo", "scx_broken"],
          f"schedulers names scx_fifo then scx_broken ({[s.get('ops') for s in scheds]})")
    for ops, seq in (("scx_fifo", seq_fifo), ("scx_broken", seq_broken)):
        s = by_ops.get(ops, {})
        check(s.get("enable_seq") == seq, f"{ops}: enable_seq {s.get('enable_seq')} is the kernel's {seq}")
        check(is_count(s.get("first_ms")) and is_count(s.get("last_ms"))
              and start <= s["first_ms"] <= s["last_ms"] <= end,
              f"{ops}: first_ms <= last_ms within the interval")
        check(s.get("partial") is False, f"{ops}: not partial (both switch all tasks)")
    check(sx.get("enable_seq") == seq_broken, f"enable_seq at the end is scx_broken's ({sx.get('enable_seq')})")
    check(sx.get("nr_rejected") == 0, f"nr_rejected 0: neither scheduler refuses tasks ({sx.get('nr_rejected')})")
    fifo, broken = by_ops.get("scx_fifo", {}), by_ops.get("scx_broken", {})
    if fifo and broken:
        check(fifo["last_ms"] <= broken["first_ms"], "scx_fifo was last seen before scx_broken was first seen")
        # scx_fifo ran 2 s past its workload (1000 round trips take ~1 s under TCG)
        check(fifo["last_ms"] - fifo["first_ms"] >= 2000,
              f"scx_fifo seen loaded for {fifo['last_ms'] - fifo['first_ms']} ms (>= 2000)")

    # events: the kernel's names, and at least what scx_fifo alone counted
    events = sx.get("events", {})
    check(isinstance(events, dict) and len(events) > 0, f"events is not empty ({len(events)} counters)")
    check(all(re.fullmatch(r"[a-z0-9_]{1,64}", k) and is_count(v) for k, v in events.items()),
          "event names are [a-z0-9_]{1,64}, values integers >= 0")
    kernel = {}
    for line in read(out, "fifo_events.txt").splitlines():
        name, value = line.split()
        kernel[name.removeprefix("SCX_EV_").lower()] = int(value)
    check(set(kernel) == set(events), f"events has each counter of the kernel's file ({sorted(kernel)})")
    short = {k: (events.get(k), v) for k, v in kernel.items() if events.get(k, -1) < v}
    check(not short, f"each delta is at least what scx_fifo counted by its last second {short or ''}")
    check(sum(events.values()) > 0, f"some counter moved (total {sum(events.values())})")

    # exits: scx_fifo unregistered, scx_broken stalled with the kernel's message
    exits = sx.get("exits", [])
    check(all(e.get("kind") in KINDS for e in exits), "every exit kind is one of the contract's")
    check([e.get("ops") for e in exits] == ["scx_fifo", "scx_broken"],
          f"exits name scx_fifo then scx_broken ({[e.get('ops') for e in exits]})")
    ex = {e.get("ops"): e for e in exits}
    f, b = ex.get("scx_fifo", {}), ex.get("scx_broken", {})
    check(f.get("kind") == "unreg" and f.get("reason") == "unregistered from user space" and f.get("message") == "",
          f"scx_fifo: kind unreg, the kernel's reason ({f})")
    check(b.get("kind") == "error_stall" and b.get("reason") == "runnable task stall",
          f"scx_broken: kind error_stall, reason 'runnable task stall' ({b.get('kind')}, {b.get('reason')!r})")
    # the kernel words a stall two ways: "COMM[PID] failed to run for Ns" (a
    # task waited too long) or "watchdog failed to check in for Ns" (its tick
    # noticed first); which one fires is a race
    m = re.search(r"runnable task stall: (.*failed to (?:run|check in) for [0-9.]+s)", read(out, "broken.log"))
    check(m is not None and b.get("message") == m.group(1),
          f"scx_broken: message {b.get('message')!r} is the one the loader got from the exit info "
          f"({m.group(1) if m else None!r})")
    for ops, e in ex.items():
        s = by_ops.get(ops)
        # the kernel's timestamp (its log clock) against the agent's polls: the
        # exit lies after the scheduler was first seen and before the interval's end
        check(s is not None and s["first_ms"] - 50 <= e.get("t_ms", 0) <= end,
              f"{ops}: exit at t_ms {e.get('t_ms')} after it was first seen and within the interval")
    if f and broken:
        check(f.get("t_ms", 0) <= broken["first_ms"] + 50, "scx_fifo exited before scx_broken was seen")
    trans = [t for t in sx.get("transitions", []) if t.get("state") == "disabled"]
    if b and trans:
        gap = min(abs(t["t_ms"] - b["t_ms"]) for t in trans)
        check(gap <= 1500, f"scx_broken's exit time is {gap} ms from a 'disabled' transition the watcher saw")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_scx_health.py OUT_DIR")
    main(sys.argv[1])
    sys.exit(1 if failed else 0)
