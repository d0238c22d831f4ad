#!/usr/bin/python3
"""check_sched_split.py - host side of test_scx_sched.sh's split check.

REPORT is the agent's report of one interval in the sid VM that spanned
EEVDF, scx_fifo, EEVDF, scx_llc, EEVDF with the wakeup-heavy workload
(ROUNDS round trips, two wakeups each) running only under the two sched_ext
schedulers. Checks that runqlat.by_scheduler gives each scheduler its own
samples and adds up to the host total, then posts the report to a real
schedio-server (SQLite, loopback) and checks the fleet query grouped by
scheduler returns the same split for that one interval.
Usage: check_sched_split.py REPORT ROUNDS
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


def main():
    report = json.load(open(sys.argv[1]))
    rounds = int(sys.argv[2])
    rq = report.get("runqlat", {})
    total = sum(c["count"] for c in rq.get("cpus", []))
    split = {e["ops"]: e["count"] for e in rq.get("by_scheduler", [])}
    print(f"report: {total} samples; by_scheduler {split}; final state {report.get('sched_ext')}")
    if not check("by_scheduler" in rq, "the report has runqlat.by_scheduler"):
        return
    check(set(split) == {None, "scx_fifo", "scx_llc"},
          "by_scheduler names the kernel's own classes (null), scx_fifo and scx_llc")
    check(sum(split.values()) == total, f"by_scheduler adds up to the host total {total}")
    for ops in ("scx_fifo", "scx_llc"):
        # every round trip of the workload is two wakeups run by this scheduler
        check(split.get(ops, 0) >= 2 * rounds, f"{ops} has the workload's {2 * rounds} wakeups or more")
    # per report, the whole interval would belong to its final state (disabled)
    check(report.get("sched_ext", {}).get("state") == "disabled", "the interval ended with no sched_ext scheduler")

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
    main()
    sys.exit(1 if failed else 0)
