# compare_vm.sh - guest side of test_compare_vm.sh on sid's kernel: the same
# workload (pingpong, a wakeup-heavy pair, next to one busy loop per vCPU)
# runs through each of WINDOWS windows, each one real agent interval; in
# each, the kernel's own scheduler (EEVDF) runs it for EEVDF_SECONDS, then
# scx_fifo until FIFO_END_SECONDS before the interval's end (the time
# unloading needs), then EEVDF again to the end. The workload never
# stops inside an interval, so every EEVDF sample is the workload's under
# EEVDF whatever the time scx_fifo took to load. A comparison's unit of
# replication is the host and this VM is one, so each window is reported as
# a host of its own: /etc/machine-id is rewritten before each window's agent
# starts, and the agent labels it window=I and half=a (odd windows) or half=b
# (even ones, interleaved so that a drift over the run lands in both halves
# alike). Leaves $VM_OUT/report-I.json (the agent's report) and
# $VM_OUT/pingpong-I-eevdf.txt / -fifo.txt (the workload's own round trips,
# one line per run, filed under the scheduler loaded when the run started)
# for the host side. Env: WINDOWS, WINDOW_SECONDS (the agent's interval),
# EEVDF_SECONDS, FIFO_END_SECONDS, PP_ROUNDS (round trips per pingpong run).
failed=0
fail() { echo "FAIL: $*"; failed=1; }
state() { cat /sys/kernel/sched_ext/state; }
ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }
wait_state() { # STATE TENTHS
	i=0
	while [ "$(state)" != "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(state)" = "$1" ]
}
# Uptime in hundredths of a second ("123.45 ..." -> 12345).
now_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}
ms_since() { echo $((($(now_cs) - $1) * 10)); }
# Starts the workload of window W: one busy loop per vCPU ($spinners) and
# pingpong runs one after the other ($pp) until the file stop appears (none
# starts while the file pause is there), each run's line appended to
# pingpong-W-SCHED.txt, SCHED read from the file sched.
workload_start() { # W
	rm -f stop pause
	echo eevdf >sched
	spinners=
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		spinners="$spinners $!"
	done
	(
		while [ ! -e stop ]; do
			while [ -e pause ] && [ ! -e stop ]; do sleep 0.05; done
			read -r s <sched
			pingpong "${PP_ROUNDS:-20}" 1 >>"pingpong-$1-$s.txt" || { echo "FAIL: pingpong failed"; exit 1; }
		done
	) &
	pp=$!
}
workload_stop() {
	touch stop
	wait $pp || fail "window $w: the workload failed"
	kill $spinners
	wait $spinners 2>/dev/null
}

for prog in schedio schedio-agent pingpong; do
	command -v $prog >/dev/null || { echo "FAIL: no $prog in the guest"; exit 1; }
done
mkdir -p /etc
[ "$(state)" = disabled ] || fail "sched_ext starts '$(state)'"
windows=${WINDOWS:-10}
window_cs=$((${WINDOW_SECONDS:-10} * 100))
fifo_end_cs=$((${FIFO_END_SECONDS:-3} * 100))
t_start=$(now_cs)
for w in $(seq "$windows"); do
	half=b
	[ $((w % 2)) -eq 1 ] && half=a
	printf '5c7e00000000000000000000000015%02d\n' "$w" >/etc/machine-id
	t0=$(now_cs)
	: >"agent-$w.txt" # grep below may run before the agent's shell opens it
	schedio-agent --once --duration "${WINDOW_SECONDS:-10}" --stdout --disable iocost -v \
		--label half=$half --label window="$w" >"$VM_OUT/report-$w.json" 2>"agent-$w.txt" &
	agent=$!
	i=0
	while ! grep -q 'first interval started' "agent-$w.txt" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	if ! grep -q 'first interval started' "agent-$w.txt"; then
		fail "window $w: the agent did not start its interval: $(cat "agent-$w.txt")"
		kill $agent
		wait $agent
		continue
	fi
	start=$(ms_since $t0)
	t1=$(now_cs)
	workload_start "$w"
	sleep "${EEVDF_SECONDS:-2}"
	t2=$(now_cs)
	# Under TCG the busy loops made loading take 5-9 s (2.5-4 s without):
	# the whole workload pauses while it loads, so the EEVDF samples are the
	# workload's, not a mix that changes with the time loading took (1.3-4.5 s).
	kill -STOP $spinners
	touch pause
	schedio scx run fifo --interval 3600 >"fifo-$w.log" 2>&1 &
	loader=$!
	if wait_state enabled 300 && [ "$(ops)" = scx_fifo ]; then
		echo fifo >sched
		rm -f pause
		kill -CONT $spinners
		load=$(ms_since $t2)
		# at least 1 s, however long loading took
		while [ "$(now_cs)" -lt $((t1 + window_cs - fifo_end_cs)) ] || [ "$(ms_since $t2)" -lt $((load + 1000)) ]; do
			sleep 0.1
		done
	else
		load=$(ms_since $t2)
		rm -f pause
		kill -CONT $spinners
		fail "window $w: scx_fifo did not load: $(cat "fifo-$w.log")"
	fi
	t3=$(now_cs)
	kill -INT $loader
	wait $loader
	wait_state disabled 50 || fail "window $w: scx_fifo still '$(state)' after its loader exited"
	echo eevdf >sched
	unload=$(ms_since $t3)
	# scx_fifo's whole phase must lie inside the agent's interval
	kill -0 $agent 2>/dev/null || fail "window $w: the agent's interval ended before scx_fifo was unloaded"
	t4=$(now_cs)
	wait $agent || fail "window $w: agent failed: $(tail -3 "agent-$w.txt")"
	workload_stop
	[ -s "$VM_OUT/report-$w.json" ] || fail "window $w: no report"
	echo "window $w (half $half): agent start $start ms; eevdf $(((t2 - t1) * 10)) ms, fifo load $load ms," \
		"fifo $(((t3 - t2) * 10 - load)) ms, unload $unload ms, eevdf to the end $(ms_since $t4) ms;" \
		"pingpong runs: eevdf $(wc -l <"pingpong-$w-eevdf.txt"), fifo $(wc -l <"pingpong-$w-fifo.txt")"
done
echo "all windows: $((($(now_cs) - t_start) / 100)) s"
cp ./*.txt ./*.log "$VM_OUT/" 2>/dev/null
exit $failed
