#!/usr/bin/env bash
# chunk_pass.sh - what the SQLite chunk pass (issue 18, report_chunks.c)
# costs a report in a fleet of many hosts, against the pass of PASS_BASELINE
# built in the same run. Fills a database with MINUTES of HOSTS hosts' reports
# as rows (bench_fill, the pass off), then, RUNS times each and alternating,
# serves a copy with nothing to ingest and the pass eager (every row due, a
# pass right after the last, chunked rows swept at once) until the rollup
# thread idles or SECONDS pass, and prints per run: the reports chunked, the
# rows left, the rollup thread's CPU and the server's bytes written (wchar:
# WAL frames and checkpoints), each per chunked report.
#   tests/bench/run.sh chunk_pass
# Environment: HOSTS (2000), MINUTES (30), RUNS (2), SECONDS_PER_RUN (90),
# PASS_BASELINE (541f84d, the pass that deleted each chunked row at once),
# SCHEDIO_BUILD_REL (default ./build-rel, configured if missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
hosts=${HOSTS:-2000}
minutes=${MINUTES:-30}
runs=${RUNS:-2}
secs=${SECONDS_PER_RUN:-90}
base_rev=${PASS_BASELINE:-541f84d}
work=$(mktemp -d)
pid=
cleanup() {
	bench_server_stop
	rm -rf "$work"
}
trap cleanup EXIT

bench_build_rel "$work" bench_fill schedio-server
base=$(bench_baseline_build "$base_rev" "$work/baseline" schedio-server)
SCHEDIO_SQLITE_CHUNK_AFTER_MS=-1 "$rel/bench/bench_fill" --db "$work/fill.db" --hosts "$hosts" \
	--minutes "$minutes" --interval-s 10 2>/dev/null | head -1
hz=$(getconf CLK_TCK)

# The rollup thread's utime+stime of server $pid, in ticks (the loop below samples it every second
# beside the server it measures).
rollup_ticks() {
	bench_thread_ticks "$pid" rollup
}

printf '%-9s %4s %8s %9s %8s %10s %14s %9s\n' build run chunked rows_left cpu_s us_report wchar_report seconds
for run in $(seq "$runs"); do
	for build in baseline this; do
		bin=$rel/bin
		[ "$build" = baseline ] && bin=$base/bin
		rm -f "$work"/run.db*
		cp "$work/fill.db" "$work/run.db"
		SCHEDIO_SQLITE_CHUNK_AFTER_MS=0 SCHEDIO_SQLITE_CHUNK_PERIOD_MS=0 SCHEDIO_SQLITE_CHUNK_SWEEP_MS=0 \
			bench_server_start "$work" "$bin/schedio-server" "$work/run.db" --blob-dict-grace 0
		t0=$(rollup_ticks)
		w0=$(awk '/^wchar/ {print $2}' "/proc/$pid/io")
		start=$(date +%s)
		last=$t0
		idle=0
		for _ in $(seq "$secs"); do # done when the thread took under 2% of a core for 3 s
			sleep 1
			now=$(rollup_ticks)
			if [ $((now - last)) -le $((hz / 50)) ]; then idle=$((idle + 1)); else idle=0; fi
			last=$now
			[ "$idle" -ge 3 ] && break
		done
		t1=$(rollup_ticks)
		w1=$(awk '/^wchar/ {print $2}' "/proc/$pid/io")
		took=$(($(date +%s) - start))
		bench_server_stop
		chunked=$(sqlite3 "$work/run.db" "SELECT coalesce(sum(n), 0) FROM report_chunks")
		left=$(sqlite3 "$work/run.db" "SELECT count(*) FROM reports")
		printf '%-9s %4s %8s %9s %8.2f %10.1f %14.0f %9s\n' "$build" "$run" "$chunked" "$left" \
			"$(awk "BEGIN {print ($t1 - $t0) / $hz}")" \
			"$(awk "BEGIN {print $chunked ? ($t1 - $t0) * 1000000 / $hz / $chunked : 0}")" \
			"$(awk "BEGIN {print $chunked ? ($w1 - $w0) / $chunked : 0}")" "$took"
	done
done
