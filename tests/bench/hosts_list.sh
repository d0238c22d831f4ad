#!/usr/bin/env bash
# hosts_list.sh - GET /api/v1/hosts latency with 1,000 hosts that all
# reported in the last 5 minutes, on SQLite and on PostgreSQL, for two server
# binaries on the same databases (a baseline and a candidate, e.g. before and
# after a change to the hosts list). Each binary answers 20 requests per
# round, the rounds alternate ABAB (3 each), and the figure is the median
# of the round medians; the ratio is candidate over baseline, < 1 is faster.
# The PostgreSQL is a throwaway one from tests/pg/pg-start.sh.
# GET_PATH times another read instead (e.g. the fleet query:
# GET_PATH='/api/v1/fleet/runqlat?group_by=sched_ext').
# Usage: tests/bench/hosts_list.sh BASELINE_SERVER CANDIDATE_SERVER [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
base=$1 cand=$2
build=${3:-$top/build}
loadgen=$build/bench/loadgen
work=$(mktemp -d /tmp/schedio-bench-hosts.XXXXXX)
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	"$top/tests/pg/pg-stop.sh" "$work/pg.state" || true
	rm -rf "$work"
}
trap cleanup EXIT

start() { bench_server_start "$work" "$1" "$2"; } # BINARY DB: sets pid and url

stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
get_path=${GET_PATH:-/api/v1/hosts}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# DB: fills it (1,000 hosts, 3 reports each), prints "baseline_ms candidate_ms"
measure() {
	local db=$1 a=() b=()
	start "$cand" "$db"
	"$loadgen" --url "$url" --rate 500 --duration 6 --hosts 1000 --concurrency 64 >"$work/fill" 2>/dev/null
	stop
	for _ in 1 2 3; do
		start "$base" "$db"
		a+=("$("$loadgen" --url "$url" --get "$get_path" --repeat 20 | sed -n 's/.*median=\([0-9.]*\).*/\1/p')")
		stop
		start "$cand" "$db"
		b+=("$("$loadgen" --url "$url" --get "$get_path" --repeat 20 | sed -n 's/.*median=\([0-9.]*\).*/\1/p')")
		stop
	done
	echo "  rounds: baseline ${a[*]}; candidate ${b[*]} (fill: $(cat "$work/fill"))" >&2
	echo "$(printf '%s\n' "${a[@]}" | median) $(printf '%s\n' "${b[@]}" | median)"
}

pg=$("$top/tests/pg/pg-start.sh" "$work/pg.state")
psql -qAtX "$pg" -c "CREATE DATABASE hosts_bench" >/dev/null
echo "GET $get_path"
printf '%-12s %12s %13s %7s\n' backend baseline_ms candidate_ms ratio
for row in "sqlite:$work/bench.db" "postgresql:${pg%/*}/hosts_bench"; do
	set -- $(measure "${row#*:}")
	printf '%-12s %12s %13s %7s\n' "${row%%:*}" "$1" "$2" "$(awk -v a="$2" -v b="$1" 'BEGIN {printf "%.2fx", a / b}')"
done
