# scx_health.sh - guest side of test_scx_health.sh on sid's kernel: within
# one agent interval scx_fifo runs a few seconds (with a wakeup-heavy
# workload) and is unloaded, then scx_broken (never dispatches) is loaded and
# ejected by the watchdog. Leaves the agent's report in $VM_OUT/report_health.json,
# and what the guest saw itself for the host to compare: fifo_events.txt (the
# kernel's events file just before scx_fifo was unloaded), enable_seq_*.txt
# (read while each scheduler ran), broken.log (the loader's exit reason,
# from the BPF exit info, not the kernel log). Env: BROKEN_TIMEOUT_MS,
# HEALTH_SECONDS (the agent's interval).
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
state() { cat /sys/kernel/sched_ext/state; }
ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }
wait_state() { # STATE TENTHS
	i=0
	while [ "$(state)" != "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(state)" = "$1" ]
}
enable_seq() { cat /sys/kernel/sched_ext/enable_seq; }
# The kernel shows "enabled" and root/ops before it counts the enable in
# enable_seq: wait for the count to pass the one before the load.
wait_seq_past() { # SEQ TENTHS
	i=0
	while [ "$(enable_seq)" -le "$1" ] && [ $i -lt "$2" ]; do sleep 0.05; i=$((i + 1)); done
	[ "$(enable_seq)" -gt "$1" ]
}

mkdir -p /etc
[ -s /etc/machine-id ] || echo 5c7e0000000000000000000000000017 >/etc/machine-id # the agent's host id
[ "$(state)" = disabled ] || fail "sched_ext starts '$(state)'"

schedio-agent --once --duration "${HEALTH_SECONDS:-30}" --stdout --disable iocost -v \
	>"$VM_OUT/report_health.json" 2>agent_health.txt &
agent=$!
i=0
while ! grep -q 'first interval started' agent_health.txt && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
grep -q 'first interval started' agent_health.txt || fail "the agent did not start its interval: $(cat agent_health.txt)"
if grep -q 'kernel log is unreadable' agent_health.txt; then
	fail "the agent cannot read the kernel log: $(grep 'kernel log' agent_health.txt)"
else
	ok "the agent reads the kernel log"
fi
sleep 1

echo "== scx_fifo"
seq0=$(enable_seq)
schedio scx run fifo --interval 3600 >fifo.log 2>&1 &
pid=$!
if wait_state enabled 300 && [ "$(ops)" = scx_fifo ] && wait_seq_past "$seq0" 40; then
	enable_seq >enable_seq_fifo.txt
	pingpong 1000 1 >pp_fifo.txt || fail "pingpong under scx_fifo failed"
	sleep 2
	cat /sys/kernel/sched_ext/root/events >fifo_events.txt
	ok "scx_fifo ran (enable_seq $(cat enable_seq_fifo.txt)): $(cat pp_fifo.txt)"
else
	fail "scx_fifo did not load: $(cat fifo.log)"
fi
kill -INT $pid
wait $pid
wait_state disabled 50 || fail "scx_fifo still '$(state)' after its loader exited"
cat fifo.log
sleep 1

echo "== scx_broken (watchdog ${BROKEN_TIMEOUT_MS:-2000} ms)"
(
	# enable_seq while it runs (it is ejected within a few seconds)
	i=0
	while [ "$(ops)" != scx_broken ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
	wait_seq_past "$(cat enable_seq_fifo.txt)" 40
	enable_seq >enable_seq_broken.txt
) &
seqpid=$!
schedio scx run --object scx_broken.bpf.o --timeout-ms "${BROKEN_TIMEOUT_MS:-2000}" >broken.log 2>&1
rc=$?
wait $seqpid
cat broken.log
[ $rc -eq 3 ] && ok "loader exited 3: the kernel ejected scx_broken" || fail "loader exited $rc, want 3"
wait_state disabled 50 || fail "state '$(state)' after the ejection"

if wait $agent; then
	ok "the agent's interval spanned both schedulers"
else
	fail "agent failed: $(tail -5 agent_health.txt)"
fi
grep 'sched_ext' agent_health.txt
dmesg | grep 'sched_ext' >dmesg_sched_ext.txt
cat dmesg_sched_ext.txt
cp ./*.log ./*.txt "$VM_OUT/" 2>/dev/null
exit $failed
