#!/bin/bash
# test_scx_health.sh - the agent's sched_ext health fields on Debian sid's
# kernel (issue 17): within one agent interval scx_fifo runs a few seconds,
# then scx_broken (never dispatches) is loaded and ejected by the watchdog.
# The report must name both schedulers with their enable_seq, carry the
# event counters (at least what the guest read from the kernel's events file
# under scx_fifo) and an exit for each: scx_fifo unregistered from user space,
# scx_broken a runnable task stall with the kernel's message, the same one
# the loader read from the BPF exit info (check_scx_health.py). The agent
# must have read the kernel log. Exit 0 pass, 1 fail, 77 skip (as
# test_scx_sched.sh). SCHEDIO_HEALTH_FIXTURE=PATH also copies the report there.
set -euo pipefail

. "$(dirname "$0")/vm-lib.sh"
vm_test_start health qemu-system-x86_64 busybox gcc
vm_need_scx
gcc -O2 -Wall -Wextra -Werror -o "$tmp/pingpong" "$here/pingpong.c"
set +e
"$here/vm-run.sh" -s sid -b "$build/bin/schedio" -b "$build/bin/schedio-agent" -b "$tmp/pingpong" \
	-f "$build/bpf/scx/scx_broken.bpf.o" -e BROKEN_TIMEOUT_MS=2000 -e HEALTH_SECONDS=30 -o "$tmp/out" -t 300 \
	"$here/guest/scx_health.sh" | tee "$tmp/out.txt"
rc=${PIPESTATUS[0]}
set -e
[ $rc -eq 0 ] || { echo "FAIL: guest checks returned $rc"; exit 1; }
"$here/check_scx_health.py" "$tmp/out" || { echo "FAIL: the report's sched_ext health is wrong"; exit 1; }
if [ -n "${SCHEDIO_HEALTH_FIXTURE:-}" ]; then
	cp "$tmp/out/report_health.json" "$SCHEDIO_HEALTH_FIXTURE"
	echo "report copied to $SCHEDIO_HEALTH_FIXTURE"
fi
echo "PASS"
