# runqlat_6_1.sh - guest side of test_runqlat_6_1.sh: runs schedio-agent
# --once on the guest's kernel while busy loops (more than there are CPUs)
# run in cgroup /busy, once with tp_btf and once with the raw_tp fallback.
# Like the host's truth check, the loops are stopped at both ends of the
# measured window and their schedstat (run_delay, run count) is summed before
# and after, so the host can compare. Leaves report-MODE.json,
# agent-MODE.err and schedstat-MODE.txt in $VM_OUT.
# Needs schedio-agent on PATH. Env: RUN_SECONDS (agent interval, default 10),
# BUSY_SECONDS (default 4).
cg=/sys/fs/cgroup/busy
run_s=${RUN_SECONDS:-10}
busy_s=${BUSY_SECONDS:-4}
failed=0

# The agent names the host by its machine id; the initramfs has none.
mkdir -p /etc
[ -s /etc/machine-id ] || echo 5c4ed10a9e7f4c0b8d1e2f3a4b5c6d7e >/etc/machine-id
mkdir -p $cg

schedsum() {
	for p in "$@"; do cat /proc/$p/schedstat; done | awk '{ d += $2; n += $3 } END { printf "%.0f %.0f", d, n }'
}

measure() {
	mode=$1
	pids=
	for i in 1 2 3 4 5; do
		sh -c "echo \$\$ >$cg/cgroup.procs; while :; do :; done" &
		pids="$pids $!"
	done
	sleep 1
	kill -STOP $pids
	SCHEDIO_RUNQLAT_ATTACH=$mode schedio-agent --once --duration $run_s --stdout \
		>$VM_OUT/report-$mode.json 2>$VM_OUT/agent-$mode.err &
	agent=$!
	n=0
	until grep -q "first interval started" $VM_OUT/agent-$mode.err; do
		n=$((n + 1))
		if [ $n -gt 600 ] || ! kill -0 $agent 2>/dev/null; then
			echo "FAIL: $mode: the agent never started collecting"
			cat $VM_OUT/agent-$mode.err
			kill -KILL $pids $agent 2>/dev/null
			return 1
		fi
		sleep 0.1
	done
	before=$(schedsum $pids)
	kill -CONT $pids
	sleep $busy_s
	kill -STOP $pids
	sleep 0.5
	after=$(schedsum $pids)
	echo "$before $after" >$VM_OUT/schedstat-$mode.txt
	wait $agent
	rc=$?
	kill -KILL $pids
	wait 2>/dev/null
	echo "$mode: agent exit $rc, schedstat before/after: $before / $after"
	cat $VM_OUT/agent-$mode.err
	return $rc
}

echo "kernel $(uname -r)"
measure tp_btf || failed=1
measure raw_tp || failed=1
exit $failed
