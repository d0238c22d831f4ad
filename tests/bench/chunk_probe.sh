#!/usr/bin/env bash
# chunk_probe.sh - the raw level if a host's consecutive reports were stored
# several to a row (issue 18), before such a layout is built: fills a SQLite
# database with realistic reports through this tree's own parse, store and
# rollup code (bench_fill), then rewrites its raw reports as chunks of each
# size in CHUNKS (chunk_probe) and prints bytes per report of the raw level
# as stored today and as chunks (rows, time index and key tables, by dbstat),
# with each part of a chunk per report. Chunk size 1 is the control: it must
# come out close to today's figure.
#   tests/bench/run.sh chunk_probe
# Environment: CHUNKS ("1 6 10 15 20 30 60 360"), STORAGE_HOSTS (20),
# STORAGE_HOURS (6), SCHEDIO_BUILD_REL (default ./build-rel, configured if missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
hosts=${STORAGE_HOSTS:-20}
hours=${STORAGE_HOURS:-6}
chunks=${CHUNKS:-1 6 10 15 20 30 60 360}
rel=${SCHEDIO_BUILD_REL:-$SCHEDIO_SOURCE/build-rel}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -f "$rel/CMakeCache.txt" ] || cmake -S "$SCHEDIO_SOURCE" -B "$rel" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
cmake --build "$rel" -j "$(nproc)" --target bench_fill chunk_probe >"$work/build.log"
"$rel/bench/bench_fill" --db "$work/fill.db" --hosts "$hosts" --hours "$hours" --interval-s 10 2>/dev/null | head -1
printf '%6s %8s %8s %6s %10s %12s %14s %7s\n' chunk stored chunked meta host_hist series_head series_counts iocost
for k in $chunks; do
	rm -f "$work"/chunks.db*
	out=$("$rel/bench/chunk_probe" --db "$work/fill.db" --out "$work/chunks.db" --chunk "$k")
	printf '%6s %8s %8s %6s %10s %12s %14s %7s\n' "$k" "$(echo "$out" | bench_field src_bytes_per_report)" \
		"$(echo "$out" | bench_field chunk_bytes_per_report)" "$(echo "$out" | bench_field meta)" \
		"$(echo "$out" | bench_field host_hist)" "$(echo "$out" | bench_field series_head)" \
		"$(echo "$out" | bench_field series_counts)" "$(echo "$out" | bench_field iocost)"
done
