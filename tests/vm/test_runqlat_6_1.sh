#!/bin/bash
# test_runqlat_6_1.sh - the same agent build loads and reports correct
# runqueue latency on Debian 12's 6.1 kernel (issue 3, "Portability"): in a
# qemu VM (tests/vm/vm-run.sh), busy loops run in cgroup /busy while the
# agent measures one interval, with tp_btf and with the raw_tp fallback; the
# report must carry runqlat for /busy and per CPU, and its count and sum_ns
# must agree with the loops' schedstat within 10%, as on the host; its
# l3_domains (issue 17) must follow host.l3_domains and sum the CPU histograms.
# Exit 0 pass, 1 fail, 77 skip (qemu or busybox not installed).
set -euo pipefail

. "$(dirname "$0")/vm-lib.sh"
vm_test_start runqlat qemu-system-x86_64 busybox python3

set +e
"$here/vm-run.sh" -s bookworm -b "$bin/schedio-agent" -e RUN_SECONDS=12 -e BUSY_SECONDS=4 \
	-o "$tmp/out" -t 400 "$here/guest/runqlat_6_1.sh"
rc=$?
set -e
[ $rc -eq 0 ] || { echo "FAIL: guest script exited $rc"; exit 1; }

python3 - "$tmp/out" <<'PY'
import json, sys
out = sys.argv[1]
failed = False
for mode in ("tp_btf", "raw_tp"):
    rep = json.load(open(f"{out}/report-{mode}.json"))
    d0, n0, d1, n1 = map(int, open(f"{out}/schedstat-{mode}.txt").read().split())
    delay, count = d1 - d0, n1 - n0
    rq = rep.get("runqlat") or {}
    busy = [c for c in rq.get("cgroups", []) if c["path"] == "/busy"]
    checks = [
        (rq.get("attach") == mode, f"attached with {rq.get('attach')}"),
        (rq.get("layout") == {"grouping_power": 4, "max_value_power": 36}, "layout"),
        (bool(rq.get("cpus")), f"{len(rq.get('cpus', []))} CPUs with waits"),
        (bool(busy) and busy[0]["count"] > 0, "a non-empty /busy histogram"),
        ("sched_ext" in rep and isinstance(rep["host"].get("l3_domains"), list), "sched_ext and l3_domains present"),
    ]
    # work conservation (issue 17): one entry per host L3 domain, its waits the per-CPU histograms'
    host_l3 = [d["cpus"] for d in rep["host"].get("l3_domains", [])]
    l3 = rq.get("l3_domains")
    if host_l3:
        checks.append((l3 is not None and [d["cpus"] for d in l3] == host_l3,
                       f"runqlat.l3_domains {l3} follow host {host_l3}"))
        if l3:
            cpu_sum = sum(c["sum_ns"] for c in rq.get("cpus", []))
            checks.append((sum(d["wait_ns"] for d in l3) == cpu_sum and
                           all(d["idle_sibling_wait_ns"] <= d["wait_ns"] for d in l3),
                           f"l3_domains wait_ns sum = per-CPU sum_ns {cpu_sum}, idle-sibling within it"))
    else:
        checks.append((l3 is None, "no L3 in sysfs: no runqlat.l3_domains"))
    if busy and count > 0:
        b = busy[0]
        checks.append((abs(b["count"] - count) <= 0.10 * count,
                       f"count {b['count']:.0f} vs schedstat {count} within 10%"))
        checks.append((abs(b["sum_ns"] - delay) <= 0.10 * delay,
                       f"sum_ns {b['sum_ns']:.0f} vs schedstat run_delay {delay} within 10%"))
    for ok, what in checks:
        print(f"{'ok' if ok else 'FAIL'}: 6.1 {mode}: {what}")
        failed |= not ok
    print(f"kernel {rep['host'].get('kernel')}: sched_ext {rep.get('sched_ext')}")
sys.exit(1 if failed else 0)
PY
