#!/bin/bash
# test_iocost_weights.sh - schedio-agent's IO cost vs weight in a real iocost
# kernel: Debian 12's 6.1 in qemu, iocost enabled on the virtio disk with a
# fixed vrate and a linear model well below the disk's speed, two cgroups of
# io.weight 100 and 300 saturating it with 16-deep random reads. The agent,
# run inside the VM, must report usage_pct in a 3.0 ratio within 15% and
# hweight_active_pct (from the iocost tracepoints) in a 3.0 ratio within 5%;
# at 100:100 both ratios 1.0 within 15%; with iocost off, enabled: false, no
# cost fields and nothing logged at warning level or worse.
# Exit 0 pass, 1 fail, 77 skip (qemu, busybox or gcc missing).
set -euo pipefail

. "$(dirname "$0")/vm-lib.sh"
vm_test_start iocost qemu-system-x86_64 busybox gcc
gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/randread" "$here/randread.c"

set +e
"$here/vm-run.sh" -s bookworm -t 180 -b "$bin/schedio-agent" -b "$tmp/randread" -o "$tmp/out" \
	"$here/guest/iocost_weights.sh"
rc=$?
set -e
[ $rc -eq 0 ] || { echo "FAIL: the guest script returned $rc"; exit 1; }

/usr/bin/python3 - "$tmp/out" <<'PY'
import json, os, sys

out = sys.argv[1]
failed = False


def check(cond, what):
    global failed
    print(("ok: " if cond else "FAIL: ") + what)
    failed |= not cond


def report(name):
    err = open(os.path.join(out, name + ".err")).read()
    bad = [l for l in err.splitlines() if " warn" in l or " error" in l]
    check(not bad, f"{name}: agent logged no warnings or errors" + (f" ({bad})" if bad else ""))
    return json.load(open(os.path.join(out, name + ".json")))["iocost"]


def rows(ioc, dev):
    return {c["path"]: c for c in ioc["cgroups"] if c["dev"] == dev}


off = report("off")
vda = [d for d in off["disks"] if d["name"] == "vda"]
check(off["io_controller"] is True, "iocost off: the io controller is seen at the cgroup2 root")
check(len(vda) == 1 and vda[0]["enabled"] is False, f"iocost off: vda reported with enabled: false ({vda})")
check(not any("vrate_pct" in d for d in off["disks"]), "iocost off: no vrate_pct on any disk")
check(off["cgroups"] == [], "iocost off: no cgroup cost rows")
dev = vda[0]["dev"] if vda else "?"

for name, want_w, want_ratio, hw_tol in (("w100_w300", 300, 3.0, 0.05), ("w100_w100", 100, 1.0, 0.15)):
    ioc = report(name)
    disk = [d for d in ioc["disks"] if d["dev"] == dev]
    check(ioc["source"] == "tracepoints", f"{name}: source is tracepoints ({ioc['source']})")
    check(bool(disk) and disk[0]["enabled"] is True and disk[0].get("qos", {}).get("min") == 100
          and disk[0].get("cost_model", {}).get("rrandiops") == 1000 and "vrate_pct" in disk[0],
          f"{name}: {dev} enabled with its qos, cost_model and vrate_pct ({disk})")
    r = rows(ioc, dev)
    a, b = r.get("/w100"), r.get("/w300")
    if not a or not b:
        check(False, f"{name}: rows for /w100 and /w300 on {dev} ({list(r)})")
        continue
    print(f"{name}: w100 {json.dumps(a)}\n{name}: w300 {json.dumps(b)}")
    check(a["weight"] == 100 and b["weight"] == want_w, f"{name}: weights {a['weight']}:{b['weight']}")
    for row in (a, b):
        check(row.get("hweight_source") == "tracepoints", f"{name} {row['path']}: hweight from tracepoints")
    u = b["usage_pct"] / a["usage_pct"] if a.get("usage_pct") else float("nan")
    h = (b["hweight_active_pct"] / a["hweight_active_pct"]
         if a.get("hweight_active_pct") and b.get("hweight_active_pct") else float("nan"))
    print(f"IOCOST_{name.upper()}: usage_pct ratio {u:.3f}, hweight_active_pct ratio {h:.3f} "
          f"(usage {a['usage_pct']:.1f}% : {b['usage_pct']:.1f}%)")
    check(abs(u - want_ratio) <= 0.15 * want_ratio, f"{name}: usage_pct ratio {u:.3f} is {want_ratio} within 15%")
    check(abs(h - want_ratio) <= hw_tol * want_ratio,
          f"{name}: hweight_active_pct ratio {h:.3f} is {want_ratio} within {hw_tol:.0%}")
sys.exit(1 if failed else 0)
PY
