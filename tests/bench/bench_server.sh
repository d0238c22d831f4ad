#!/usr/bin/env bash
# bench_server.sh - schedio-server ingest and query figures (issue 5), with
# the server and the load generator on loopback:
#   1. sustained ingest of realistic reports at --rate (default 2000/s, i.e.
#      20,000 hosts at a 10 s interval): achieved rate, ack latency p50/p99,
#      errors, server CPU per report; median of 3 runs, and the p99 ratio to a
#      baseline run at a tenth of the rate measured in the same invocation;
#   2. 1,000 connections opened and held at once, rounds of simultaneous reports;
#   3. fleet runqueue p99 over 24 h for 1,000 hosts (history filled through the
#      store and rollup code), default step and one 24 h step, median of 20;
#   4. database bytes per host-day per storage level and at default retention.
# Usage: tests/bench/bench_server.sh [BUILD_DIR]   (RATE, SECONDS, RUNS override)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
build=${1:-$top/build}
server=$build/bin/schedio-server
loadgen=$build/bench/loadgen
fill=$build/bench/bench_fill
rate=${RATE:-2000}
secs=${SECONDS_PER_RUN:-20}
runs=${RUNS:-3}
work=$(mktemp -d /tmp/schedio-bench.XXXXXX)
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

start_server() { bench_server_start "$work" "$server" "$@"; } # DB [ARGS...]: sets $pid and $url

stop_server() {
	kill "$pid"
	wait "$pid" || true
	pid=
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

ingest_run() { # RATE: one fresh-database run; prints "rate p50 p99 errors cpu_us_per_report"
	local r=$1 out t0 t1 n
	start_server "$work/ingest.db"
	t0=$(cpu_ticks)
	out=$("$loadgen" --url "$url" --rate "$r" --duration "$secs" --hosts 20000 --concurrency 512 || true)
	t1=$(cpu_ticks)
	stop_server
	rm -f "$work"/ingest.db*
	echo "  $out" >&2
	n=$(echo "$out" | field reports)
	echo "$(echo "$out" | field rate) $(echo "$out" | field p50) $(echo "$out" | field p99)" \
		"$(echo "$out" | field errors) $(( (t1 - t0) * 10000 / (n > 0 ? n : 1) ))"
}

echo "== sustained ingest: $rate reports/s for $secs s, 20,000 hosts, realistic reports, $runs runs"
echo "baseline at $((rate / 10)) reports/s:"
base=$(ingest_run $((rate / 10)))
: >"$work/runs"
echo "at $rate reports/s:"
for _ in $(seq "$runs"); do
	ingest_run "$rate" >>"$work/runs"
done
m_rate=$(cut -d' ' -f1 "$work/runs" | median)
m_p50=$(cut -d' ' -f2 "$work/runs" | median)
m_p99=$(cut -d' ' -f3 "$work/runs" | median)
errors=$(awk '{s += $4} END {print s}' "$work/runs")
m_cpu=$(cut -d' ' -f5 "$work/runs" | median)
b_p99=$(echo "$base" | cut -d' ' -f3)
echo "ingest median: rate=${m_rate}/s ack_p50_ms=$m_p50 ack_p99_ms=$m_p99 errors_total=$errors" \
	"server_cpu_us_per_report=$m_cpu p99_vs_baseline=$(awk -v a="$m_p99" -v b="$b_p99" 'BEGIN {printf "%.1fx", (b > 0 ? a / b : 0)}')"

echo "== 1,000 connections held at once (5 rounds of 1,000 simultaneous reports)"
start_server "$work/conn.db" --max-connections 2048
"$loadgen" --url "$url" --burst 1000 --rounds 5 --hosts 20000 --host-prefix conn || echo "connections: ERRORS"
stop_server

echo "== fleet runqueue latency over 24 h for 1,000 hosts (history: one report per host per 10 min)"
"$fill" --db "$work/fleet.db" --hosts 1000 --hours 24 --interval-s 600
start_server "$work/fleet.db"
now=$(($(date +%s) * 1000))
from=$((now - 86400000))
"$loadgen" --url "$url" --get "/api/v1/fleet/runqlat?from=$from&to=$now&group_by=none" --repeat 20
"$loadgen" --url "$url" --get "/api/v1/fleet/runqlat?from=$from&to=$now&step=86400000&group_by=none" --repeat 20
"$loadgen" --url "$url" --get "/api/v1/fleet/runqlat?from=$from&to=$now&group_by=sched_ext" --repeat 20
"$loadgen" --url "$url" --get "/api/v1/hosts" --repeat 5
stop_server

echo "== database growth per host-day (10 hosts, 24 h of realistic reports every 10 s)"
"$fill" --db "$work/growth.db" --hosts 10 --hours 24 --interval-s 10
