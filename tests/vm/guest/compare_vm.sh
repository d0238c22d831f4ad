# compare_vm.sh - guest side of test_compare_vm.sh on sid's kernel: the same
# workload (pingpong, a wakeup-heavy pair, next to one busy loop per vCPU)
# runs in WINDOWS windows, each one real agent interval, first under EEVDF
# for PHASE_SECONDS and then under scx_fifo for as long. A comparison's unit
# of replication is the host and this VM is one, so each window is reported
# as a host of its own: /etc/machine-id is rewritten before each window's
# agent starts, and the agent labels it window=I and half=a (odd windows) or
# half=b (even ones, interleaved so that a drift over the run lands in both
# halves alike). Leaves $VM_OUT/report-I.json (the agent's report) and
# $VM_OUT/pingpong-I-eevdf.txt / -fifo.txt (the workload's own round trips,
# one line per run) for the host side. Env: WINDOWS, WINDOW_SECONDS (the
# agent's interval), PHASE_SECONDS, PP_ROUNDS (round trips per pingpong run).
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
# Uptime in hundredths of a second ("123.45 ..." -> 12345).
now_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}
# The workload for SECONDS: one busy loop per vCPU, and pingpong runs of
# PP_ROUNDS round trips one after the other, each run's line appended to OUT.
workload() { # SECONDS OUT
	end=$(($(now_cs) + $1 * 100))
	spinners=
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		spinners="$spinners $!"
	done
	runs=0
	while [ "$(now_cs)" -lt $end ]; do
		pingpong "${PP_ROUNDS:-50}" 1 >>"$2" || fail "pingpong failed ($2)"
		runs=$((runs + 1))
	done
	kill $spinners
	wait $spinners 2>/dev/null
	[ $runs -gt 0 ] || fail "no pingpong run completed in $1 s ($2)"
}

mkdir -p /etc
[ "$(state)" = disabled ] || fail "sched_ext starts '$(state)'"
windows=${WINDOWS:-10}
phase=${PHASE_SECONDS:-3}
t_start=$(now_cs)
for w in $(seq "$windows"); do
	half=b
	[ $((w % 2)) -eq 1 ] && half=a
	printf '5c7e00000000000000000000000015%02d\n' "$w" >/etc/machine-id
	t0=$(now_cs)
	schedio-agent --once --duration "${WINDOW_SECONDS:-14}" --stdout --disable iocost -v \
		--label half=$half --label window="$w" >"$VM_OUT/report-$w.json" 2>"agent-$w.txt" &
	agent=$!
	i=0
	while ! grep -q 'first interval started' "agent-$w.txt" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	if ! grep -q 'first interval started' "agent-$w.txt"; then
		fail "window $w: the agent did not start its interval: $(cat "agent-$w.txt")"
		kill $agent
		wait $agent
		continue
	fi
	t1=$(now_cs)

	workload "$phase" "pingpong-$w-eevdf.txt"
	t2=$(now_cs)
	schedio scx run fifo --interval 3600 >"fifo-$w.log" 2>&1 &
	loader=$!
	if wait_state enabled 300 && [ "$(ops)" = scx_fifo ]; then
		t3=$(now_cs)
		workload "$phase" "pingpong-$w-fifo.txt"
	else
		t3=$(now_cs)
		fail "window $w: scx_fifo did not load: $(cat "fifo-$w.log")"
	fi
	kill -INT $loader
	wait $loader
	wait_state disabled 50 || fail "window $w: scx_fifo still '$(state)' after its loader exited"
	t4=$(now_cs)
	# both phases must lie inside the agent's interval, or the window lacks one
	kill -0 $agent 2>/dev/null || fail "window $w: the agent's interval ended before the scx_fifo phase did"
	wait $agent || fail "window $w: agent failed: $(tail -3 "agent-$w.txt")"
	t5=$(now_cs)
	[ -s "$VM_OUT/report-$w.json" ] || fail "window $w: no report"
	echo "window $w (half $half): agent start $(((t1 - t0) * 10)) ms, eevdf $(((t2 - t1) * 10)) ms," \
		"fifo load $(((t3 - t2) * 10)) ms, fifo $(((t4 - t3) * 10)) ms, agent tail $(((t5 - t4) * 10)) ms;" \
		"pingpong runs: eevdf $(wc -l <"pingpong-$w-eevdf.txt"), fifo $(wc -l <"pingpong-$w-fifo.txt" 2>/dev/null || echo 0)"
done
echo "all windows: $((($(now_cs) - t_start) / 100)) s"
cp ./*.txt ./*.log "$VM_OUT/" 2>/dev/null
exit $failed
