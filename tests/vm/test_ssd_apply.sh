#!/bin/bash
# test_ssd_apply.sh - `schedio apply` writing for real: in a bookworm (6.1)
# VM, the kernel accepts the recommended io.cost.model and io.cost.qos for
# the scratch disk and reads them back unchanged (guest/ssd_apply.sh).
# Exit 0 pass, 1 fail, 77 skip (qemu or busybox not installed, or no build).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${SCHEDIO_BIN:-$here/../../build/bin}
for tool in qemu-system-x86_64 busybox; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP: $tool not installed (packages: qemu-system-x86 busybox-static)"
		exit 77
	fi
done
if [ ! -x "$bin/schedio" ] || [ ! -x "$bin/schedio-server" ]; then
	echo "SKIP: no schedio build in $bin"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-vm-ssd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A small hand-made result: two solutions, percents with decimals, so the
# kernel's two-decimal read-back is exercised.
/usr/bin/python3 - "$tmp/result.json.gz" <<'PY'
import gzip, json, sys
m = {"rbps": 500000000, "rseqiops": 50000, "rrandiops": 40000, "wbps": 400000000, "wseqiops": 30000, "wrandiops": 20000}
si = {"bench_version": "2.2.5 x86_64-unknown-linux-gnu", "sysreqs_report": {
    "scr_dev_model": "Schedio VM Disk", "scr_dev_fwrev": "FW1", "scr_dev_size": 1 << 30, "kernel_version": "6.1.0"}}
sols = {"naive": {"model": m, "qos": {"rpct": 95.0, "rlat": 5000, "wpct": 95.0, "wlat": 10000, "min": 60.0, "max": 100.0}},
        "isolated-bandwidth": {"model": dict(m, rbps=450000000), "qos": {"rpct": 90.5, "rlat": 2500, "wpct": 90.5, "wlat": 5000, "min": 75.25, "max": 100.0}}}
open(sys.argv[1], "wb").write(gzip.compress(json.dumps(
    [{"spec": {"kind": "iocost-tune"}, "sysinfo": si, "result": {"solutions": sols}}]).encode()))
PY
"$here/vm-run.sh" -s bookworm -t 180 -b "$bin/schedio-server" -b "$bin/schedio" -f "$tmp/result.json.gz" \
	"$here/guest/ssd_apply.sh" | tee "$tmp/out"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 0 ] && ! grep -q '^FAIL' "$tmp/out"; then
	echo "PASS: test_ssd_apply"
	exit 0
fi
echo "FAIL: test_ssd_apply (guest exit $rc)"
exit 1
