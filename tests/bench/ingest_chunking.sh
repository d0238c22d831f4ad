#!/usr/bin/env bash
# ingest_chunking.sh - ingest at the top rate while the SQLite chunk pass
# (issue 18, schema 0020) has a backlog: fills a database with 6 h of 20
# hosts' reports as rows (bench_fill, the pass off), then, RUNS times each and
# alternating, serves a copy of it with the pass off and on
# (SCHEDIO_SQLITE_CHUNK_AFTER_MS=-1 / its default) under loadgen at RATE
# reports/s for SECONDS (20,000 hosts, 512 connections), and prints per run
# the errors, ack p50/p99, the server's CPU per report and the reports the
# pass moved into chunks meanwhile. With the pass on, the whole fill (older
# than 15 minutes) is due at once: the worst the pass does to ingest.
#   tests/bench/run.sh ingest_chunking
# Environment: RATE (5000), SECONDS_PER_RUN (60), RUNS (2), SCHEDIO_BUILD_REL
# (default ./build-rel, configured if missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
rate=${RATE:-5000}
secs=${SECONDS_PER_RUN:-60}
runs=${RUNS:-2}
work=$(mktemp -d)
pid=
cleanup() {
	bench_server_stop
	rm -rf "$work"
}
trap cleanup EXIT

bench_build_rel "$work" bench_fill loadgen schedio-server
SCHEDIO_SQLITE_CHUNK_AFTER_MS=-1 "$rel/bench/bench_fill" --db "$work/fill.db" --hosts 20 --hours 6 --interval-s 10 \
	2>/dev/null | head -1
hz=$(getconf CLK_TCK)
printf '%-5s %4s %8s %8s %8s %8s %12s %8s\n' pass run errors p50_ms p99_ms max_ms cpu_us_report chunked
for run in $(seq "$runs"); do
	for pass in off on; do
		rm -f "$work"/run.db*
		cp "$work/fill.db" "$work/run.db"
		after=
		[ "$pass" = off ] && after=-1
		SCHEDIO_SQLITE_CHUNK_AFTER_MS=$after bench_server_start "$work" "$rel/bin/schedio-server" "$work/run.db"
		sleep 2
		t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		out=$("$rel/bench/loadgen" --url "$url" --rate "$rate" --duration "$secs" --hosts 20000 \
			--concurrency 512 2>/dev/null | tail -1 || true) # loadgen exits 1 when a request failed
		t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		bench_server_stop
		n=$(echo "$out" | bench_field reports)
		chunked=$(sqlite3 "$work/run.db" "SELECT coalesce(sum(n), 0) FROM report_chunks")
		printf '%-5s %4s %8s %8s %8s %8s %12.0f %8s\n' "$pass" "$run" "$(echo "$out" | bench_field errors)" \
			"$(echo "$out" | bench_field p50)" "$(echo "$out" | bench_field p99)" \
			"$(echo "$out" | bench_field max)" "$(awk "BEGIN {print ($t1 - $t0) * 1000000 / $hz / $n}")" "$chunked"
	done
done
