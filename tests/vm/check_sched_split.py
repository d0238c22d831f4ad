#!/usr/bin/python3
"""check_sched_split.py - host side of test_scx_sched.sh's split checks.

split REPORT ROUNDS: REPORT is the agent's report of one interval in the sid
VM that spanned EEVDF, scx_fifo, EEVDF, scx_llc, EEVDF, with the
wakeup-heavy workload (ROUNDS round trips, two wakeups each) running only
under the two sched_ext schedulers.

partial REPORT ROUNDS: one interval with `scx_fifo --partial` loaded to its
end; the workload ran once as SCHED_EXT tasks (the scheduler's) and once as
normal tasks (left to EEVDF). Per report, the whole interval would be
scx_fifo's; per sample, each run goes to the class that ran it.

Both check that runqlat.by_scheduler gives each scheduler its own samples
and adds up to the host total, then post the report to a real
schedio-server (SQLite, loopback) and check the fleet query grouped by
scheduler returns the same split for that interval.
Exit 0 when every check holds, 1 otherwise (each failure printed)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness  # noqa: E402

failed = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failed.append(what)
    return cond


def check_split(report, split, rounds):
    check(set(split) == {None, "scx_fifo", "scx_llc"},
          "by_scheduler names the kernel's own classes (null), scx_fifo and scx_llc")
    for ops in ("scx_fifo", "scx_llc"):
        # every round trip of the workload is two wakeups run by this scheduler
        check(split.get(ops, 0) >= 2 * rounds, f"{ops} has the workload's {2 * rounds} wakeups or more")
    # per report, the whole interval would belong to its final state (disabled)
    check(report.get("sched_ext", {}).get("state") == "disabled", "the interval ended with no sched_ext scheduler")


def check_partial(report, split, rounds):
    check(set(split) == {None, "scx_fifo"}, "by_scheduler names the kernel's own classes (null) and scx_fifo")
    ext, fair = split.get("scx_fifo", 0), split.get(None, 0)
    # only the SCHED_EXT run is the scheduler's: its wakeups, plus a few
    # (forks, preemptions), nothing of the normal run that shared the CPUs
    check(2 * rounds <= ext <= 2 * rounds * 1.05 + 50,
          f"scx_fifo has the SCHED_EXT run's {2 * rounds} wakeups and little else ({ext})")
    check(fair >= 2 * rounds, f"the normal run's {2 * rounds} wakeups stay with EEVDF ({fair})")
    sx = report.get("sched_ext", {})
    check(sx.get("state") == "enabled" and sx.get("ops") == "scx_fifo",
          "the interval ended with scx_fifo loaded (per report, all of it would be scx_fifo's)")


def main():
    mode, path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    report = json.load(open(path))
    rq = report.get("runqlat", {})
    total = sum(c["count"] for c in rq.get("cpus", []))
    split = {e["ops"]: e["count"] for e in rq.get("by_scheduler", [])}
    print(f"{mode} report: {total} samples; by_scheduler {split}; sched_ext {report.get('sched_ext')}")
    if not check("by_scheduler" in rq, "the report has runqlat.by_scheduler"):
        return
    check(sum(split.values()) == total, f"by_scheduler adds up to the host total {total}")
    (check_split if mode == "split" else check_partial)(report, split, rounds)

    start, end = report["interval"]["start_ms"], report["interval"]["end_ms"]
    with harness.Server("--open-ingest") as srv:
        resp = srv.request("POST", "/api/v1/reports", json.dumps(report).encode(),
                           {"Content-Type": "application/json"})
        check(resp.status in (200, 201, 202), f"the server took the report ({resp.status})")
        q = f"from={start}&to={end + 1}&step={end + 1 - start}"
        fleet = srv.get_json(f"/api/v1/fleet/runqlat?group_by=sched_ext&{q}")
        got = {g["key"]: sum(p["count"] for p in g["series"]) for g in fleet["groups"]}
        want = {("eevdf" if ops is None else ops): n for ops, n in split.items()}
        print(f"fleet by scheduler: {got}")
        check(got == want, f"the fleet query grouped by scheduler returns the split {want}")
        whole = srv.get_json(f"/api/v1/fleet/runqlat?group_by=none&{q}")
        n = sum(p["count"] for g in whole["groups"] for p in g["series"])
        check(n == total, f"ungrouped, the fleet counts each sample once ({n} of {total})")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("split", "partial"):
        sys.exit("usage: check_sched_split.py split|partial REPORT ROUNDS")
    main()
    sys.exit(1 if failed else 0)
