# scx_sched.sh - guest side of test_scx_sched.sh on sid's kernel: each
# built-in scheduler loads, shows up as state enabled with its ops name, runs
# a wakeup-heavy workload, and leaves state disabled when the loader gets
# SIGINT; then the broken scheduler is ejected by the watchdog and the machine
# still answers. Env: PP_ROUNDS (round trips per pair).
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
state() { cat /sys/kernel/sched_ext/state; }
ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }
# Waits up to $2 tenths of a second for state $1.
wait_state() {
	i=0
	while [ "$(state)" != "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(state)" = "$1" ]
}

# The agent's view: sched_ext {state, ops} (issue 3) and the transitions it
# saw during the interval (issue 9).
agent_report() { # SECONDS OUTFILE: one report, whitespace squeezed out
	schedio-agent --once --duration "$1" --stdout 2>agent_err.txt | tr -d ' \n\t' >"$2"
}
# Starts one agent interval of SECONDS into OUT (log in ERR, pid in $agent)
# and returns once its runqlat programs are attached, 2 s into the interval.
start_interval() { # SECONDS OUT ERR
	schedio-agent --once --duration "$1" --stdout --disable iocost -v >"$2" 2>"$3" &
	agent=$!
	i=0
	while ! grep -q 'first interval started' "$3" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 2
}
check_agent_sched_ext() { # STATE OPS
	agent_report 1 agent_now.json
	if ! grep -q '"schema":"schedio.report.v1"' agent_now.json; then
		fail "the agent gave no report: $(cat agent_err.txt)"
	elif ! grep -q '"sched_ext":' agent_now.json; then
		fail "the agent's report has no sched_ext section"
	elif grep -q "\"sched_ext\":{\"state\":\"$1\",\"ops\":$2" agent_now.json; then
		ok "the agent reports sched_ext state $1, ops $2"
	else
		fail "the agent reports $(grep -o '"sched_ext":{[^}]*' agent_now.json) (want state $1, ops $2)"
	fi
}

mkdir -p /etc
[ -s /etc/machine-id ] || echo 5c7e0000000000000000000000000009 >/etc/machine-id # the agent's host id

[ "$(state)" = disabled ] && ok "sched_ext starts disabled" || fail "sched_ext starts '$(state)'"
command -v schedio-agent >/dev/null && check_agent_sched_ext disabled null

mkdir -p /etc
chmod 755 /  # the initramfs root comes from a mktemp dir (0700)
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
msg=$(su -m -s /bin/sh nobody -c 'schedio scx run fifo' 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$msg" = "schedio scx: loading a scheduler needs root (CAP_BPF and CAP_SYS_ADMIN)" ] &&
	ok "without privileges: one line: $msg" || fail "without privileges: rc $rc: $msg"
[ "$(state)" = disabled ] || fail "an unprivileged attempt changed the state to '$(state)'"

for s in fifo llc; do
	echo "== scx_$s"
	extra=
	[ $s = llc ] && extra="--domains 0/1 --steal after:500"
	schedio scx run $s --interval 1 $extra >"scx_$s.log" 2>&1 &
	pid=$!
	if wait_state enabled 300; then
		ok "scx_$s: state enabled"
	else
		fail "scx_$s: state '$(state)' after 30 s"; cat "scx_$s.log"; kill -INT $pid; wait $pid; continue
	fi
	[ "$(ops)" = "scx_$s" ] && ok "scx_$s: root/ops reads '$(ops)'" || fail "scx_$s: root/ops reads '$(ops)'"
	command -v schedio-agent >/dev/null && check_agent_sched_ext enabled "\"scx_$s\""
	if pingpong "${PP_ROUNDS:-2000}" 2 >"pp_$s.txt"; then
		ok "scx_$s: workload completed: $(cat "pp_$s.txt")"
	else
		fail "scx_$s: workload failed"
	fi
	[ "$(state)" = enabled ] && [ "$(ops)" = "scx_$s" ] && ok "scx_$s: still loaded after the workload" ||
		fail "scx_$s: state '$(state)' ops '$(ops)' after the workload"
	second=$(schedio scx run fifo --duration 1 2>&1)
	rc=$?
	[ $rc -eq 1 ] && [ "$second" = "schedio scx: another sched_ext scheduler is active: scx_$s (state enabled)" ] &&
		ok "a second loader is refused in one line: $second" || fail "second loader: rc $rc: $second"
	sleep 1
	kill -INT $pid
	wait $pid
	rc=$?
	cat "scx_$s.log"
	[ $rc -eq 0 ] && ok "scx_$s: loader exited 0 on SIGINT" || fail "scx_$s: loader exited $rc"
	grep -q "scx_$s detached.*unregistered" "scx_$s.log" && ok "scx_$s: exit reason reported" ||
		fail "scx_$s: no exit reason in the log"
	grep -q "dispatched [1-9]" "scx_$s.log" && ok "scx_$s: counters moved" || fail "scx_$s: no dispatches counted"
	[ "$(state)" = disabled ] && ok "scx_$s: state disabled after the loader exited" ||
		fail "scx_$s: state '$(state)' after the loader exited"
done

echo "== one interval, two schedulers: each sample goes to the scheduler that ran it"
# The agent's interval spans EEVDF, scx_fifo, EEVDF, scx_llc, EEVDF; the
# wakeup-heavy workload runs only while a sched_ext scheduler is loaded. The
# host side checks runqlat.by_scheduler in report_split.json (and posts it
# to a real server); PP_SPLIT_ROUNDS round trips per scheduler.
if command -v schedio-agent >/dev/null; then
	start_interval "${SPLIT_SECONDS:-40}" "$VM_OUT/report_split.json" agent_split.txt
	for s in fifo llc; do
		extra=
		[ $s = llc ] && extra="--domains 0/1"
		schedio scx run $s --interval 3600 $extra >"split_$s.log" 2>&1 &
		pid=$!
		if wait_state enabled 300 && [ "$(ops)" = "scx_$s" ]; then
			pingpong "${PP_SPLIT_ROUNDS:-1000}" 1 >"pp_split_$s.txt" || fail "split: pingpong under scx_$s failed"
		else
			fail "split: scx_$s did not load: $(cat "split_$s.log")"
		fi
		kill -INT $pid
		wait $pid
		wait_state disabled 50 || fail "split: scx_$s still '$(state)' after its loader exited"
		cat "split_$s.log"
		sleep 2
	done
	if wait $agent; then
		ok "split: the agent's interval spanned both schedulers"
		# The kernel announces a loaded scheduler with a uevent: the agent
		# names it then, not at its next poll (once a second).
		for s in fifo llc; do
			grep -q "sched_ext: enabled scx_$s (seen on a kernel uevent)" agent_split.txt &&
				ok "split: scx_$s was named on the kernel's uevent" ||
				fail "split: scx_$s was not seen on a uevent: $(grep 'sched_ext:' agent_split.txt)"
		done
		grep -q '"state":"enabled","ops":"scx_llc"' "$VM_OUT/report_split.json" ||
			fail "split: the report's transitions lack scx_llc (did the interval end too early?)"
	else
		fail "split: agent failed: $(cat agent_split.txt)"
	fi
fi

echo "== partial mode: only SCHED_EXT tasks are the scheduler's"
# scx_fifo --partial stays loaded to the end of the agent's interval, so per
# report the whole interval would be scx_fifo's; the same workload runs once
# as SCHED_EXT (the scheduler's) and once as a normal task (EEVDF's). The
# host side checks report_partial.json.
if command -v schedio-agent >/dev/null; then
	start_interval "${PARTIAL_SECONDS:-25}" "$VM_OUT/report_partial.json" agent_partial.txt
	schedio scx run fifo --partial --interval 3600 >partial.log 2>&1 &
	pid=$!
	if wait_state enabled 300; then
		PINGPONG_POLICY=ext pingpong "${PP_SPLIT_ROUNDS:-1000}" 1 >pp_partial_ext.txt ||
			fail "partial: SCHED_EXT pingpong failed: $(cat pp_partial_ext.txt)"
		pingpong "${PP_SPLIT_ROUNDS:-1000}" 1 >pp_partial_fair.txt || fail "partial: normal pingpong failed"
	else
		fail "partial: scx_fifo --partial did not load: $(cat partial.log)"
	fi
	wait $agent || fail "partial: agent failed: $(cat agent_partial.txt)"
	kill -INT $pid
	wait $pid
	cat partial.log
	grep -q "SCHED_EXT tasks only" partial.log && ok "partial: the loader says SCHED_EXT tasks only" ||
		fail "partial: the loader did not say it runs SCHED_EXT tasks only"
	wait_state disabled 50 || fail "partial: still '$(state)' after the loader exited"
fi

# Issue 20: an object in the community's conventions (.struct_ops.link,
# struct_ops.s callbacks beyond init) registers with its own .name, not its
# variable's, and its own timeout_ms; it carries the workload and unloads.
# Its enum globals (__SCX_DSQ_GLOBAL, __SCX_SLICE_DFL) come from the kernel's
# BTF: left at 0 it would insert into DSQ 0, which does not exist, and be
# ejected; its uei exit record gives the reason it left.
echo "== scx_link_ops (.struct_ops.link, struct_ops.s, its own ops data)"
msg=$(schedio scx run --object scx_link_ops.bpf.o --set nosuch=1 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && [ "$msg" = "schedio scx: linked has no read-only variable nosuch (const volatile)" ] &&
	ok "scx_link_ops: an unknown --set is refused: $msg" || fail "scx_link_ops: --set nosuch=1: rc $rc: $msg"
schedio scx run --object scx_link_ops.bpf.o --interval 1 --set link_nice=-5 --map-size link_tasks=64 >link.log 2>&1 &
pid=$!
if wait_state enabled 300; then
	[ "$(ops)" = linked ] && ok "scx_link_ops: registered as its own .name: $(ops)" ||
		fail "scx_link_ops: root/ops reads '$(ops)', want linked"
	grep -q "linked attached (watchdog 4000 ms)" link.log && ok "scx_link_ops: its own timeout_ms (4000)" ||
		fail "scx_link_ops: not attached with its own timeout: $(cat link.log)"
	grep -q "linked: 2 sched_ext constant(s) from the kernel's BTF, CPU count [0-9]* in 1 variable(s)" link.log &&
		ok "scx_link_ops: its enum globals and nr_cpu_ids were filled" ||
		fail "scx_link_ops: enum globals not filled: $(cat link.log)"
	pingpong 500 2 >pp_link.txt && ok "scx_link_ops: workload completed: $(cat pp_link.txt)" ||
		fail "scx_link_ops: workload failed"
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && ok "scx_link_ops: loader exited 0 on SIGINT" || fail "scx_link_ops: loader exited $rc: $(cat link.log)"
	grep -q "linked detached after .*: unregistered" link.log && ok "scx_link_ops: its uei exit record was read" ||
		fail "scx_link_ops: no exit kind from its uei record: $(cat link.log)"
	wait_state disabled 50 && ok "scx_link_ops: state disabled after the loader exited" ||
		fail "scx_link_ops: state '$(state)' after the loader exited"
else
	fail "scx_link_ops did not load: $(cat link.log)"
	kill -INT $pid 2>/dev/null
	wait $pid
fi

echo "== a killed loader leaves no scheduler behind"
schedio scx run fifo >kill9.log 2>&1 &
pid=$!
if wait_state enabled 300; then
	kill -KILL $pid
	wait $pid
	wait_state disabled 50 && ok "state disabled after kill -9 of the loader (the link closed)" ||
		fail "state '$(state)' ops '$(ops)' after kill -9 of the loader"
else
	fail "scx_fifo did not load again: $(cat kill9.log)"
fi

# Issue 20: a scheduler with a user-space half of its own (a PID its loader
# would set and a queue to that task, or a user ring buffer) is refused
# before the kernel sees it, rather than loaded to be ejected.
echo "== schedulers with a user-space half are refused"
enable_seq() { cat /sys/kernel/sched_ext/enable_seq; }
for obj in scx_user_half scx_user_ringbuf; do
	s0=$(enable_seq)
	msg=$(schedio scx run --object $obj.bpf.o 2>&1 >/dev/null)
	rc=$?
	case "$msg" in
	*"needs its own user-space half, which schedio does not run"*) [ $rc -eq 2 ] &&
		ok "$obj: refused (exit 2): $msg" || fail "$obj: exit $rc: $msg" ;;
	*) fail "$obj: not refused for its user-space half: exit $rc: $msg" ;;
	esac
	[ "$(enable_seq)" = "$s0" ] && [ "$(state)" = disabled ] && ok "$obj: the kernel never saw it (enable_seq $s0)" ||
		fail "$obj: enable_seq $s0 -> $(enable_seq), state $(state)"
done

# Issue 20: SIGTERM at any point of a load ends it. Before the kernel is
# asked to register, the loader exits 143 and nothing was ever enabled
# (enable_seq unchanged); once registering began, it detaches (exit 0).
# Signals land at spread-out moments of open, BTF, rodata and verifier work.
echo "== SIGTERM during a load leaves nothing attached"
early=0
for d in 0.01 0.05 0.1 0.2 0.3 0.5 0.7 1 1.5 2 3 4; do
	s0=$(enable_seq)
	schedio scx run --object scx_link_ops.bpf.o >term.log 2>&1 &
	pid=$!
	sleep $d
	kill -TERM $pid
	wait $pid
	rc=$?
	s1=$(enable_seq)
	wait_state disabled 50
	if [ $rc -eq 143 ] && [ "$s1" = "$s0" ]; then
		how="before the loader's handler was set"
		grep -q "interrupted before the scheduler was attached" term.log && early=$((early + 1)) &&
			how="the loader: $(grep -o 'interrupted before.*' term.log), after: $(grep -o '[0-9]* sched_ext constant' term.log || echo open)"
		ok "SIGTERM after ${d}s: exit 143, never enabled (enable_seq $s0; $how)"
	elif [ $rc -eq 0 ] && [ "$s1" = "$((s0 + 1))" ] && grep -q "linked attached" term.log &&
		[ "$(state)" = disabled ]; then
		ok "SIGTERM after ${d}s: it had attached; detached, exit 0"
	else
		fail "SIGTERM after ${d}s: exit $rc, enable_seq $s0 -> $s1, state $(state): $(cat term.log)"
	fi
done
[ $early -gt 0 ] && ok "$early load(s) were interrupted by the loader itself before registering" ||
	fail "no SIGTERM landed inside a load (all before exec or after attach): the check proved nothing"

echo "== scx_broken (watchdog ${BROKEN_TIMEOUT_MS:-2000} ms)"
if command -v schedio-agent >/dev/null; then
	: >agent_err.txt
	agent_report 8 agent_broken.json &
	agent=$!
	# its interval (and what it reports) starts after its start-up, not at launch
	i=0
	while ! grep -q 'first interval started' agent_err.txt && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
fi
schedio scx run --object scx_broken.bpf.o --timeout-ms "${BROKEN_TIMEOUT_MS:-2000}" >broken.log 2>&1
rc=$?
cat broken.log
if [ -n "${agent:-}" ]; then
	wait $agent
	if ! grep -q '"schema":"schedio.report.v1"' agent_broken.json; then
		fail "the agent gave no report during scx_broken: $(cat agent_err.txt)"
	elif ! grep -q '"transitions":' agent_broken.json; then
		fail "the agent's report has no sched_ext transitions: $(grep -o '"sched_ext":{[^}]*' agent_broken.json)"
	else
		t=$(grep -o '"transitions":\[[^]]*\]' agent_broken.json)
		echo "agent: $t"
		# A scheduler that never dispatches starves the agent's own threads
		# too, so the agent may first run again while it is being ejected:
		# it must name scx_broken in some state, then report it gone.
		echo "$t" | grep -q '"state":"[a-z]*","ops":"scx_broken"' && echo "$t" | grep -q '"state":"disabled","ops":null' &&
			ok "the agent reported the transitions in and out of scx_broken" ||
			fail "the agent's transitions lack scx_broken and its ejection: $t"
	fi
fi
[ $rc -eq 3 ] && ok "loader exited 3: the kernel ejected scx_broken" || fail "loader exited $rc, want 3"
grep -q "ejected by the kernel.*stall" broken.log && ok "the kernel's exit reason (stall) was reported" ||
	fail "no stall reason in the loader's output"
secs=$(sed -n 's/.*ejected by the kernel after \([0-9.]*\) s.*/\1/p' broken.log)
echo "BROKEN_EJECTED_AFTER_S=${secs:-none}"
wait_state disabled 50 && ok "state disabled after the ejection" || fail "state '$(state)' after the ejection"
if pingpong 200 1 >pp_after.txt; then
	ok "the machine still answers: $(cat pp_after.txt)"
else
	fail "workload after the ejection failed"
fi
cp ./*.log ./*.txt "$VM_OUT/" 2>/dev/null
exit $failed
