#!/usr/bin/env bash
# agent_cost.sh - what the agent costs a host in production: schedio-agent in
# daemon mode at a 10 s interval, delivering to the real schedio-server on
# loopback (ingest token, its own SQLite file), for DURATION seconds (default
# 150, at least 120) per run, RUNS runs (default 3; the median is the
# figure), for the baseline revision of issue 18 ($BENCH_BASELINE_REV, built
# in Release by bench_baseline_build) and for BUILD_DIR, their runs taking
# turns so that both see the same machine. CPU is utime+stime from
# /proc/<pid>/stat over the measured window (after a 5 s start-up), as a
# share of one core, and the same window's on-CPU time of all the agent's
# threads from /proc/<pid>/task/*/schedstat in ms (nanosecond clock: at
# 100 Hz the ticks of a 0.03 % process are too few to compare); memory is
# VmRSS at the end of the run (steady) and VmHWM (peak, the start-up's) from
# /proc/<pid>/status. The agent is one process: nothing of it runs
# elsewhere. Limits: issue 6 (RSS under 20 MiB, CPU under 0.1 % of one core)
# and issue 18 (steady RSS at most 8 MiB, peak at most 12 MiB, CPU not above
# the baseline's by more than the noise: 10 % of its on-CPU ms), on the
# medians of BUILD_DIR. Exits 1 if a limit is broken. BASELINE=0 skips the
# baseline.
#   usage: tests/bench/agent_cost.sh [BUILD_DIR]   (default: build)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
build=${1:-${SCHEDIO_BUILD:-$top/build}}
duration=${DURATION:-150}
runs=${RUNS:-3}
[ -x "$build/bin/schedio-agent" ] && [ -x "$build/bin/schedio-server" ] ||
	{ echo "agent_cost.sh: build first ($build/bin/schedio-agent, schedio-server)" >&2; exit 1; }
work=$(mktemp -d /tmp/schedio-bench-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

builds=(current)
declare -A dir=([current]=$build)
if [ "${BASELINE:-1}" != 0 ]; then
	dir[baseline]=$(bench_baseline_build "$BENCH_BASELINE_REV" "${BENCH_CACHE:-/tmp/schedio-bench-baseline}" \
		schedio-agent schedio-server)
	builds=(baseline current)
fi

# One server for every run (the current build's): the agents are what is measured.
server=$build/bin/schedio-server
token=$("$server" token add --db "$work/server.db" --scope ingest bench | tail -n1)
"$server" --listen 127.0.0.1:0 --db "$work/server.db" >"$work/server.out" 2>"$work/server.log" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/server.out" && break; sleep 0.1; done
url=$(sed -n 's|^schedio-server listening on \(http://[^/]*\)/\?$|\1|p' "$work/server.out")
[ -n "$url" ] || { echo "agent_cost.sh: server did not start: $(cat "$work/server.log")" >&2; exit 1; }
hid=$(cat /etc/machine-id)
hz=$(getconf CLK_TCK)
collectors=$(cd "$top" && sed -n 's/^\t&\([a-z_]*\)_collector,$/\1/p' agent/report/collectors.c | tr '\n' ' ')

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# On-CPU ns of every thread of $1.
oncpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }

# Usage: run_once NAME RUN - one daemon of build NAME for DURATION s; appends to $work/NAME.*.
run_once() {
	local name=$1 run=$2 apid t0 t1 c0 c1 n0 n1 hwm rss cpu ms
	rm -rf "$work/state"
	"${dir[$name]}/bin/schedio-agent" --config /dev/null --server "$url" --token "$token" --interval 10 \
		--state-dir "$work/state" --verbose 2>"$work/agent.log" &
	apid=$!
	pids+=($apid)
	sleep 5
	t0=$(date +%s.%N); c0=$(awk '{ print $14 + $15 }' "/proc/$apid/stat"); n0=$(oncpu_ns "$apid")
	sleep "$duration"
	t1=$(date +%s.%N); c1=$(awk '{ print $14 + $15 }' "/proc/$apid/stat"); n1=$(oncpu_ns "$apid")
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$apid/status")
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$apid/status")
	kill "$apid"; wait "$apid" || true
	cpu=$(awk -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.4f", c / hz / (t1 - t0) * 100 }')
	ms=$(awk -v a="$n0" -v b="$n1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
	echo "$cpu" >>"$work/$name.cpu"; echo "$ms" >>"$work/$name.ms"
	echo "$hwm" >>"$work/$name.hwm"; echo "$rss" >>"$work/$name.rss"
	printf '  %-8s run %d: CPU %s %% (%d ticks, %s ms on CPU in %.0f s), VmRSS %s MiB, VmHWM %s MiB\n' "$name" \
		"$run" "$cpu" "$((c1 - c0))" "$ms" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(mib "$rss")" \
		"$(mib "$hwm")"
	grep -q "runqlat: collecting" "$work/agent.log" ||
		grep -i "runqlat\|bpf" "$work/agent.log" | head -3 | sed 's/^/    agent: /' || true
}

for run in $(seq "$runs"); do
	for name in "${builds[@]}"; do
		run_once "$name" "$run"
	done
done
delivered=$(curl -sf "$url/api/v1/hosts/$hid/reports?from=0&to=4102444800000" | jq '.reports | length' || echo 0)

printf 'agent_cost: interval 10 s, %d runs of %d s each, median; collectors: %s\n' "$runs" "$duration" "$collectors"
printf '  reports stored by schedio-server  %s\n' "$delivered"
printf '  %-26s' ""; for name in "${builds[@]}"; do printf '%14s' "$name"; done; printf '%12s\n' limit
declare -A med
for name in "${builds[@]}"; do
	for k in cpu ms rss hwm; do med[$name.$k]=$(median <"$work/$name.$k"); done
done
row() { # LABEL KEY FORMAT LIMIT
	printf '  %-26s' "$1"
	for name in "${builds[@]}"; do printf "%14s" "$(eval "$3" "${med[$name.$2]}")"; done
	printf '%12s\n' "$4"
}
pct() { echo "$1 %"; }
msf() { echo "$1 ms"; }
mibf() { echo "$(mib "$1") MiB"; }
row "CPU, share of one core" cpu pct "0.1 %"
row "CPU time in the window" ms msf "baseline"
row "steady RSS (VmRSS at end)" rss mibf "8 MiB"
row "start-up peak (VmHWM)" hwm mibf "12 MiB"
if [ -n "${dir[baseline]:-}" ]; then
	awk -v b="${med[baseline.ms]}" -v c="${med[current.ms]}" -v br="${med[baseline.rss]}" -v cr="${med[current.rss]}" \
		-v bh="${med[baseline.hwm]}" -v ch="${med[current.hwm]}" 'BEGIN {
		printf "  current / baseline: CPU time %.2f, steady RSS %.2f, peak %.2f\n", c / b, cr / br, ch / bh }'
fi
ok=$(awk -v c="${med[current.cpu]}" -v m="${med[current.rss]}" -v h="${med[current.hwm]}" \
	-v ms="${med[current.ms]}" -v bms="${med[baseline.ms]:-0}" 'BEGIN {
	ok = c < 0.1 && m < 20 * 1024 && m <= 8 * 1024 && h <= 12 * 1024
	if (bms > 0 && ms > bms * 1.10) ok = 0
	print ok ? 1 : 0 }')
[ "$ok" = 1 ] && echo "  within limits" || { echo "  LIMIT EXCEEDED"; exit 1; }
