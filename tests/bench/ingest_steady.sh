#!/usr/bin/env bash
# ingest_steady.sh - ingest at the top rate for long enough that the SQLite
# chunk pass (issue 18, schema 0020) runs as it does on a server that has
# been up a while, second by second. A fresh database is served at RATE
# reports/s for SECONDS_PER_RUN from HOSTS hosts whose reports are one second
# apart (loadgen --interval-ms 1000), so rows pass the minute rollup mark (two
# to three minutes behind the clock) during the run, and the pass takes them
# as soon as they do (SCHEDIO_SQLITE_CHUNK_AFTER_MS=0, a 10 s period) and
# sweeps their rows right after each pass (SCHEDIO_SQLITE_CHUNK_SWEEP_MS=0):
# from about the third minute on it chunks and sweeps as many reports a
# second as arrive, as a server at this rate does from 30 minutes after it
# started. Then the same
# run with the pass off, as the baseline.
# Prints per WINDOW seconds of each run (by when requests were due): the
# seconds whose ack p99 passed 50 ms, the median and worst p99 of a second,
# errors, and each server thread's share of a core (the threads are named:
# MHD-worker, ingest-writer, rollup, checkpointer, ...).
#   tests/bench/run.sh ingest_steady
# Environment: RATE (5000), SECONDS_PER_RUN (300), HOSTS (5000), WINDOW (30),
# SCHEDIO_BUILD_REL (default ./build-rel, configured if missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
rate=${RATE:-5000}
secs=${SECONDS_PER_RUN:-300}
hosts=${HOSTS:-5000}
window=${WINDOW:-30}
work=$(mktemp -d)
pid=
sampler=
cleanup() {
	[ -n "$sampler" ] && kill "$sampler" 2>/dev/null
	bench_server_stop
	rm -rf "$work"
}
trap cleanup EXIT

bench_build_rel "$work" loadgen schedio-server
hz=$(getconf CLK_TCK)

# sample PID: about every second, "SAMPLE MS_SINCE_START THREAD_NAME TICKS" per thread, read with
# shell builtins only, so sampling forks nothing beside the server it measures
sample() {
	local t0=${EPOCHREALTIME/./} i=0 now name st f
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		now=${EPOCHREALTIME/./}
		for t in /proc/"$1"/task/*; do
			# a thread may end between the listing and the reads
			{ read -r name <"$t/comm" && read -r st <"$t/stat"; } 2>/dev/null || continue
			read -r -a f <<<"${st##*) }" # the fields after "(comm)": f[11] utime, f[12] stime
			echo "$i $(((now - t0) / 1000)) ${name// /_} $((f[11] + f[12]))"
		done
		sleep 1
	done
}

for pass in on off; do
	rm -f "$work"/run.db*
	after=0
	[ "$pass" = off ] && after=-1
	SCHEDIO_SQLITE_CHUNK_AFTER_MS=$after SCHEDIO_SQLITE_CHUNK_PERIOD_MS=10000 SCHEDIO_SQLITE_CHUNK_SWEEP_MS=0 \
		bench_server_start "$work" "$rel/bin/schedio-server" "$work/run.db" --blob-dict-grace 0
	sample "$pid" >"$work/cpu.$pass" &
	sampler=$!
	out=$("$rel/bench/loadgen" --url "$url" --rate "$rate" --duration "$secs" --hosts "$hosts" --interval-ms 1000 \
		--concurrency 512 --timeline "$work/timeline.$pass" 2>/dev/null | tail -1 || true)
	bench_server_stop
	wait "$sampler" 2>/dev/null || true
	sampler=
	chunked=$(sqlite3 "$work/run.db" "SELECT coalesce(sum(n), 0) FROM report_chunks")
	rows=$(sqlite3 "$work/run.db" "SELECT count(*) FROM reports")
	echo "pass $pass: $out"
	echo "pass $pass: reports moved into chunks: $chunked; rows left (chunked ones not yet swept among them): $rows"
	printf '%-5s %-9s %8s %10s %10s %7s  %s\n' pass seconds p99_gt50 p99_median p99_worst errors \
		"share of a core by thread"
	# per window: the timeline's figures, then each thread's CPU share from the samples
	awk -v w="$window" -v hz="$hz" -v pass="$pass" '
		FNR == 1 { file++ }
		file == 1 && FNR > 1 {
			b = int($1 / w); n[b]++; e[b] += $3; slow[b] += ($5 > 50)
			p[b, n[b]] = $5; if ($5 > worst[b]) worst[b] = $5; if (b > last) last = b
		}
		file == 2 {
			# ticks per (sample, thread name); thread names repeat (MHD-worker)
			tick[$1, $3] += $4; names[$3] = 1; at[$1] = $2 / 1000; if ($1 > smax) smax = $1
		}
		END {
			for (b = 0; b <= last; b++) {
				m = n[b]; for (i = 1; i <= m; i++) v[i] = p[b, i]
				for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
				# the first and last samples inside the window, but the last of the run (the server may be stopping)
				lo = 0; hi = 0
				for (k = 1; k < smax; k++) {
					if (at[k] < b * w || at[k] > (b + 1) * w)
						continue
					if (!lo)
						lo = k
					hi = k
				}
				share = ""
				for (name in names) {
					if (hi <= lo || !((lo, name) in tick) || !((hi, name) in tick)) continue
					s = (tick[hi, name] - tick[lo, name]) / hz / (at[hi] - at[lo])
					if (s >= 0.01) share = share sprintf(" %s=%.2f", name, s)
				}
				printf "%-5s %4d-%-4d %8d %10.1f %10.1f %7d %s\n", pass, b * w, (b + 1) * w - 1, slow[b],
					v[int((m + 1) / 2)], worst[b], e[b], share
			}
		}' "$work/timeline.$pass" "$work/cpu.$pass"
done
