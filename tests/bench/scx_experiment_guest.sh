# scx_experiment_guest.sh - guest side of scx_experiment.sh (sid's kernel):
# the same wakeup-heavy workload (pingpong) under EEVDF, scx_fifo and scx_llc,
# alone and next to one busy loop per CPU, REPS times in rotating order.
# Prints "RESULT sched=S load=L p50_us=.. p99_us=.. rq_wait_avg_us=.." lines.
# Env: REPS, ROUNDS_IDLE, ROUNDS_BUSY.
start_sched() {
	case $1 in
	eevdf) return 0 ;;
	fifo) schedio scx run fifo --interval 3600 >"load_$1.log" 2>&1 & ;;
	llc) schedio scx run llc --domains 0/1 --interval 3600 >"load_$1.log" 2>&1 & ;;
	esac
	loader=$!
	i=0
	while [ "$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" != "scx_$1" ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	[ "$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" = "scx_$1" ] || { echo "scx_$1 did not load"; exit 1; }
}
stop_sched() {
	[ "$1" = eevdf ] && return 0
	kill -INT $loader
	wait $loader || { echo "scx_$1 loader failed"; cat "load_$1.log"; exit 1; }
}
measure() { # SCHED LOAD ROUNDS
	line=$(pingpong "$3" 2) || { echo "pingpong failed under $1"; exit 1; }
	echo "RESULT sched=$1 load=$2 $(echo "$line" | cut -d' ' -f4,5,8)"
}
rep=0
while [ $rep -lt "${REPS:-3}" ]; do
	case $((rep % 3)) in 0) order="eevdf fifo llc" ;; 1) order="fifo llc eevdf" ;; *) order="llc eevdf fifo" ;; esac
	for s in $order; do
		start_sched $s
		measure $s idle "${ROUNDS_IDLE:-3000}"
		sh -c 'while :; do :; done' & hog1=$!
		sh -c 'while :; do :; done' & hog2=$!
		measure $s busy "${ROUNDS_BUSY:-300}"
		kill $hog1 $hog2; wait $hog1 $hog2 2>/dev/null
		stop_sched $s
	done
	rep=$((rep + 1))
done
[ "$(cat /sys/kernel/sched_ext/state)" = disabled ] || { echo "sched_ext left enabled"; exit 1; }
