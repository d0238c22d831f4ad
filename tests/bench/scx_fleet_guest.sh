# scx_fleet_guest.sh - guest side of scx_fleet.sh (sid's kernel): for EEVDF,
# scx_fifo and scx_llc in turn, the agent measures one interval of SECONDS
# while the wakeup-heavy workload (pingpong) runs next to one busy loop per
# vCPU; each scheduler's report lands in $VM_OUT/report_<sched>.json. Then
# the same three phases inside ONE agent interval ($VM_OUT/report_one.json):
# the agent splits it by the scheduler that ran each task.
mkdir -p /etc /tmp/agent
[ -s /etc/machine-id ] || echo 5c7e0000000000000000000000000009 >/etc/machine-id
secs=${SECONDS_PER_SCHED:-8}
for s in eevdf fifo llc; do
	case $s in
	fifo) schedio scx run fifo --interval 3600 >"load_$s.log" 2>&1 & loader=$! ;;
	llc) schedio scx run llc --domains 0/1 --interval 3600 >"load_$s.log" 2>&1 & loader=$! ;;
	esac
	if [ $s != eevdf ]; then
		i=0
		while [ "$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" != "scx_$s" ] && [ $i -lt 300 ]; do
			sleep 0.1; i=$((i + 1))
		done
		[ "$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" = "scx_$s" ] || { echo "scx_$s did not load"; exit 1; }
	fi
	sh -c 'while :; do :; done' & hog1=$!
	sh -c 'while :; do :; done' & hog2=$!
	schedio-agent --once --duration "$secs" --stdout --state-dir /tmp/agent >"$VM_OUT/report_$s.json" 2>agent_$s.err &
	agent=$!
	while kill -0 $agent 2>/dev/null; do pingpong 100 2 >>"pp_$s.txt" || break; done
	wait $agent || { echo "agent failed under $s: $(cat agent_$s.err)"; exit 1; }
	kill $hog1 $hog2; wait $hog1 $hog2 2>/dev/null
	if [ $s != eevdf ]; then
		kill -INT $loader
		wait $loader || { echo "scx_$s loader failed"; cat "load_$s.log"; exit 1; }
	fi
	echo "$s: report $(wc -c <"$VM_OUT/report_$s.json") bytes, $(wc -l <"pp_$s.txt") pingpong runs"
done

# One interval, three phases: EEVDF, scx_fifo, scx_llc, SECONDS each.
schedio-agent --once --duration $((3 * secs + 12)) --stdout --state-dir /tmp/agent -v >"$VM_OUT/report_one.json" 2>agent_one.err &
agent=$!
i=0
while ! grep -q 'first interval started' agent_one.err && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 3 # the rest of the collectors open and the interval starts
sh -c 'while :; do :; done' & hog1=$!
sh -c 'while :; do :; done' & hog2=$!
for s in eevdf fifo llc; do
	loader=
	case $s in
	fifo) schedio scx run fifo --interval 3600 >"one_$s.log" 2>&1 & loader=$! ;;
	llc) schedio scx run llc --domains 0/1 --interval 3600 >"one_$s.log" 2>&1 & loader=$! ;;
	esac
	end=$(($(date +%s) + secs))
	while [ "$(date +%s)" -lt $end ]; do pingpong 100 2 >>"pp_one_$s.txt" || break; done
	if [ -n "$loader" ]; then
		kill -INT $loader
		wait $loader || { echo "scx_$s loader failed (one interval)"; cat "one_$s.log"; exit 1; }
	fi
done
kill $hog1 $hog2; wait $hog1 $hog2 2>/dev/null
wait $agent || { echo "agent failed (one interval): $(cat agent_one.err)"; exit 1; }
echo "one interval: report $(wc -c <"$VM_OUT/report_one.json") bytes"
