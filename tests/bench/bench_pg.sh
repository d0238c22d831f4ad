#!/usr/bin/env bash
# bench_pg.sh - PostgreSQL scale-out figures (issue 10), all measured in one
# run against the same load so they can be read as ratios:
#   SQLite, one server  |  PostgreSQL, one server  |  PostgreSQL, two servers
# Ingest: the issue-5 load generator (tests/bench/loadgen.c) sends realistic
# reports open-loop at RATE/s for SECONDS (two servers: two generators at
# RATE/2 each, on distinct halves of the 2,000 hosts); achieved reports/s and
# ack latency.
# Queries: after the ingest, the hosts list and the fleet runqueue query, each
# repeated 20 times, median latency (two servers: both asked, the median of
# the two medians). The PostgreSQL is a throwaway one from tests/pg/pg-start.sh
# (fsync off: this compares the servers' work, not the disks).
# Usage: tests/bench/bench_pg.sh [BUILD_DIR]   (RATE, SECONDS_PER_RUN override)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
server=$build/bin/schedio-server
loadgen=$build/bench/loadgen
rate=${RATE:-3000}
secs=${SECONDS_PER_RUN:-10}
work=$(mktemp -d /tmp/schedio-bench-pg.XXXXXX)
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	"$top/tests/pg/pg-stop.sh" "$work/pg.state"
	rm -rf "$work"
}
trap cleanup EXIT

pg=$("$top/tests/pg/pg-start.sh" "$work/pg.state")
pgbase=${pg%/*}

start_server() { # N DB: starts server N on DB, sets url[N]
	"$server" --listen 127.0.0.1:0 --db "$2" --open-ingest >"$work/s$1.out" 2>"$work/s$1.err" &
	pids+=($!)
	for _ in $(seq 100); do
		url[$1]=$(sed -n 's|^schedio-server listening on \(http://[^/]*\)/$|\1|p' "$work/s$1.out")
		[ -n "${url[$1]}" ] && return 0
		sleep 0.1
	done
	echo "bench: server did not start: $(cat "$work/s$1.err")" >&2
	exit 1
}

stop_servers() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	pids=()
}

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# CONFIG NSERVERS DB: prints "rate p50 p99 errors hosts_ms fleet_ms"
measure() {
	local name=$1 n=$2 db=$3 i gens=() r=0 e=0 p50s=() p99s=()
	for i in $(seq "$n"); do start_server "$i" "$db"; done
	for i in $(seq "$n"); do
		"$loadgen" --url "${url[$i]}" --rate $((rate / n)) --duration "$secs" --hosts $((2000 / n)) --concurrency 256 \
			--host-prefix "b$i-" >"$work/lg$i" 2>/dev/null &
		gens+=($!)
	done
	for g in "${gens[@]}"; do wait "$g" || true; done
	for i in $(seq "$n"); do
		echo "  $name server $i ingest: $(cat "$work/lg$i")" >&2
		r=$(awk -v a="$r" -v b="$(field rate <"$work/lg$i")" 'BEGIN {print a + b}')
		e=$((e + $(field errors <"$work/lg$i")))
		p50s+=("$(field p50 <"$work/lg$i")")
		p99s+=("$(field p99 <"$work/lg$i")")
	done
	local now from hq=() fq=()
	now=$(($(date +%s) * 1000))
	from=$((now - 3600000))
	for i in $(seq "$n"); do
		hq+=("$("$loadgen" --url "${url[$i]}" --get "/api/v1/hosts" --repeat 20 | field median)")
		fq+=("$("$loadgen" --url "${url[$i]}" --get "/api/v1/fleet/runqlat?from=$from&to=$now&group_by=none" \
			--repeat 20 | field median)")
	done
	stop_servers
	echo "$r $(printf '%s\n' "${p50s[@]}" | median) $(printf '%s\n' "${p99s[@]}" | sort -n | tail -n1) $e" \
		"$(printf '%s\n' "${hq[@]}" | median) $(printf '%s\n' "${fq[@]}" | median)"
}

echo "== ingest at $rate reports/s offered for $secs s (2,000 hosts), then query latency"
sq=$(measure sqlite 1 "$work/bench.db")
psql -qAtX "$pg" -c "CREATE DATABASE bench1" -c "CREATE DATABASE bench2" >/dev/null
p1=$(measure pg-1 1 "$pgbase/bench1")
p2=$(measure pg-2 2 "$pgbase/bench2")

printf '%-22s %10s %10s %10s %7s %12s %12s\n' config "reports/s" ack_p50_ms ack_p99_ms errors hosts_q_ms fleet_q_ms
for row in "sqlite-1-server:$sq" "postgresql-1-server:$p1" "postgresql-2-servers:$p2"; do
	# shellcheck disable=SC2086
	printf '%-22s %10s %10s %10s %7s %12s %12s\n' "${row%%:*}" ${row#*:}
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", (b > 0 ? a / b : 0)}'; }
set -- $sq; s_rate=$1 s_hq=$5 s_fq=$6
set -- $p1; echo "postgresql-1-server vs sqlite: ingest $(ratio "$1" "$s_rate"), hosts query latency $(ratio "$5" "$s_hq"), fleet query latency $(ratio "$6" "$s_fq")"
set -- $p2; echo "postgresql-2-servers vs sqlite: ingest $(ratio "$1" "$s_rate"), hosts query latency $(ratio "$5" "$s_hq"), fleet query latency $(ratio "$6" "$s_fq")"
