# scx_fleet_guest.sh - guest side of scx_fleet.sh (sid's kernel): for EEVDF,
# scx_fifo and scx_llc in turn, the agent measures one interval of SECONDS
# while the wakeup-heavy workload (pingpong) runs next to one busy loop per
# vCPU; each scheduler's report lands in $VM_OUT/report_<sched>.json.
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
