#!/bin/bash
# test_compare_vm.sh - a comparison's verdicts on real agent data (issue 15)
# in the sid VM: a wakeup-heavy workload (pingpong) next to one busy loop per
# vCPU runs through WINDOWS windows, each one agent interval, under EEVDF,
# then scx_fifo, then EEVDF again (guest/compare_vm.sh). Each window is
# reported as a host of its own (a fresh machine-id, labels half=a|b and
# window=I), since the comparison's unit of replication is the host and the
# VM is one. The host
# side (check_compare_vm.py) posts the reports to a real server and asks
# GET /api/v1/compare and `schedio compare`: sched=scx_fifo against
# sched=eevdf at p50 must be `worse` (exit 1), EEVDF windows of half a
# against those of half b neither `better` nor `worse`; each arm's hosts and
# values are checked against the agent's own per-scheduler p50s. Exit 0
# pass, 1 fail, 77 skip (qemu/busybox/gcc/python3 missing, or no schedulers
# built).
set -euo pipefail

. "$(dirname "$0")/vm-lib.sh"
vm_test_start compare qemu-system-x86_64 busybox gcc python3
vm_need_scx
gcc -O2 -Wall -Wextra -Werror -o "$tmp/pingpong" "$here/pingpong.c"

windows=10 # 5 per half: the fewest hosts an arm needs for a verdict
# One run of the windows in the VM and the checks on them; the checker's exit status.
run_windows() {
	local rc
	rm -rf "$tmp/out"
	set +e
	"$here/vm-run.sh" -s sid -b "$bin/schedio" -b "$bin/schedio-agent" -b "$tmp/pingpong" \
		-e WINDOWS=$windows -e WINDOW_SECONDS=10 -e EEVDF_SECONDS=2 -e FIFO_END_SECONDS=3 -e PP_ROUNDS=20 \
		-o "$tmp/out" -t 400 "$here/guest/compare_vm.sh"
	rc=$?
	set -e
	[ $rc -eq 0 ] || { echo "FAIL: guest script exited $rc"; return 1; }
	set +e
	SCHEDIO_BIN="$bin" python3 "$here/check_compare_vm.py" "$tmp/out" $windows
	rc=$?
	set -e
	return $rc
}
set +e
run_windows
rc=$?
set -e
if [ $rc -eq 3 ]; then
	# Only the EEVDF-against-EEVDF verdict failed, which a sound comparison at 95%
	# does by chance about one time in twenty: a second run of new windows decides.
	echo "note: EEVDF halves called different; running the windows once more"
	set +e
	run_windows
	rc=$?
	set -e
fi
[ $rc -eq 0 ] || { echo "FAIL: the comparison's verdicts on the VM's windows are wrong"; exit 1; }
echo "PASS"
