#!/bin/bash
# test_scx_sched.sh - schedio's sched_ext schedulers on Debian sid's kernel
# (issue 9): scx_fifo and scx_llc load through `schedio scx run`, show up as
# state enabled with their ops name, carry a wakeup-heavy workload (pingpong)
# and leave state disabled after SIGINT; the broken scheduler (never
# dispatches) is ejected by the watchdog within its timeout, the loader
# reports the kernel's reason, and the machine still answers. The agent in
# the VM reports state and ops under each scheduler, and the transitions in
# and out of the broken one. Within one agent interval that spans EEVDF,
# scx_fifo and scx_llc, runqueue latency is split by the scheduler that ran
# each task (report runqlat.by_scheduler), and a real server's fleet query
# grouped by scheduler returns the same split (check_sched_split.py); with
# `scx_fifo --partial` loaded, only SCHED_EXT tasks' samples are its own. An
# object in the community's conventions (.struct_ops.link, struct_ops.s, its
# own name and timeout, enum globals from the kernel's BTF, --set and
# --map-size, a uei exit record) loads and runs; ones with a user-space half
# of their own are refused; SIGTERM at any moment of a load never leaves a
# scheduler attached (issue 20).
# Exit 0 pass, 1 fail, 77 skip (qemu/busybox/gcc missing, or the build
# skipped the schedulers: bpf/scx/CMakeLists.txt says why).
set -euo pipefail

. "$(dirname "$0")/vm-lib.sh"
vm_test_start scx qemu-system-x86_64 busybox gcc
vm_need_scx
gcc -O2 -Wall -Wextra -Werror -o "$tmp/pingpong" "$here/pingpong.c"
timeout_ms=2000
split_rounds=1000
set +e
"$here/vm-run.sh" -s sid -b "$build/bin/schedio" -b "$build/bin/schedio-agent" -b "$tmp/pingpong" -f "$build/bpf/scx/scx_broken.bpf.o" \
	-f "$build/bpf/scx/scx_link_ops.bpf.o" -f "$build/bpf/scx/scx_user_half.bpf.o" -f "$build/bpf/scx/scx_user_ringbuf.bpf.o" \
	-e PP_ROUNDS=2000 -e PP_SPLIT_ROUNDS=$split_rounds -e BROKEN_TIMEOUT_MS=$timeout_ms -o "$tmp/out" -t 400 \
	"$here/guest/scx_sched.sh" | tee "$tmp/out.txt"
rc=${PIPESTATUS[0]}
set -e
[ $rc -eq 0 ] || { echo "FAIL: guest checks returned $rc"; exit 1; }
# The watchdog checks every timeout/2 and fires once a task has waited longer
# than the timeout, so ejection lands between 1x and ~2x; allow TCG 1 s more.
secs=$(sed -n 's/^BROKEN_EJECTED_AFTER_S=\([0-9.]*\)$/\1/p' "$tmp/out.txt")
if [ -z "$secs" ] || ! awk -v s="$secs" -v t=$timeout_ms 'BEGIN { exit !(s * 1000 <= 2 * t + 1000) }'; then
	echo "FAIL: scx_broken ejected after ${secs:-never} s, want within $((2 * timeout_ms + 1000)) ms"
	exit 1
fi
echo "ok: scx_broken ejected after $secs s (watchdog $timeout_ms ms)"
SCHEDIO_BIN="$build/bin" "$here/check_sched_split.py" split "$tmp/out/report_split.json" "$split_rounds" ||
	{ echo "FAIL: runqueue latency was not split by scheduler"; exit 1; }
SCHEDIO_BIN="$build/bin" "$here/check_sched_split.py" partial "$tmp/out/report_partial.json" "$split_rounds" ||
	{ echo "FAIL: in partial mode runqueue latency was not split by the class that ran each task"; exit 1; }
echo "PASS"
