# runqlat_l3.sh - guest side of test_runqlat_l3.sh on sid's kernel: the same
# load (cpu0_busy: BUSY_N spinning processes started on CPU 0, then free to
# move) runs under EEVDF, under scx_llc with two one-CPU domains and stealing,
# and under scx_llc with stealing off; one agent interval inside each run is
# saved as $VM_OUT/report-CASE.json, the load's schedstat line as
# $VM_OUT/busy-CASE.txt, and the L3 topology the guest sees as
# $VM_OUT/l3.txt. The host side compares the idle-sibling shares.
# Env: BUSY_N, BUSY_SECONDS, AGENT_SECONDS.
failed=0
fail() { echo "FAIL: $*"; failed=1; }
state() { cat /sys/kernel/sched_ext/state; }
wait_state() { # STATE TENTHS
	i=0
	while [ "$(state)" != "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(state)" = "$1" ]
}

mkdir -p /etc
[ -s /etc/machine-id ] || echo 5c7e0000000000000000000000000017 >/etc/machine-id
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	echo "$(basename "$c") L3 $(cat "$c/cache/index3/shared_cpu_list" 2>/dev/null || echo none)"
done | tee "$VM_OUT/l3.txt"

run_case() { # NAME [LLC ARGS...]
	name=$1
	shift
	pid=
	if [ $# -gt 0 ]; then
		schedio scx run llc --interval 3600 "$@" >"scx-$name.log" 2>&1 &
		pid=$!
		wait_state enabled 300 || { fail "$name: scx_llc did not load: $(cat "scx-$name.log")"; kill -INT $pid; return; }
	fi
	cpu0_busy "${BUSY_N:-3}" "${BUSY_SECONDS:-24}" >"$VM_OUT/busy-$name.txt" &
	busy=$!
	sleep 1
	schedio-agent --once --duration "${AGENT_SECONDS:-8}" --stdout --disable iocost \
		>"$VM_OUT/report-$name.json" 2>"agent-$name.txt" || fail "$name: agent failed: $(cat "agent-$name.txt")"
	# the interval must lie inside the load (the agent's start-up is slow under TCG)
	kill -0 $busy 2>/dev/null || fail "$name: the load ended before the agent's interval did"
	wait $busy || fail "$name: the load failed"
	if [ -n "$pid" ]; then
		[ "$(state)" = enabled ] || fail "$name: scx_llc gone before the end: $(cat "scx-$name.log")"
		kill -INT $pid
		wait $pid
		cat "scx-$name.log"
		wait_state disabled 50 || fail "$name: still '$(state)' after the loader exited"
	fi
	echo "$name: $(cat "$VM_OUT/busy-$name.txt")"
}

run_case eevdf
run_case llc_steal --domains 0/1
run_case llc_never --domains 0/1 --steal never
cp ./*.log ./*.txt "$VM_OUT/" 2>/dev/null
exit $failed
