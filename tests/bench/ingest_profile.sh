#!/usr/bin/env bash
# ingest_profile.sh - where a report's server CPU goes in the steady state, by
# library, this tree against BASE in one run (issue 18). Each round starts a
# Release server on a fresh SQLite database, sends RATE (default 1,500)
# realistic reports/s from HOSTS (default 20,000) hosts with the open-loop
# generator, and after WARM_S (default 14) s samples the server with perf for
# SECONDS_PER_RUN (default 20) s. perf's CPU-clock total over the window,
# split by shared object (and malloc's share of libc, by symbol), divided by
# the window's RATE x SECONDS_PER_RUN reports, gives µs of CPU per report for
# each: the server's own code, libc, malloc, zstd, the gzip inflate, SQLite,
# libmicrohttpd, cJSON, the kernel. MODE=gzip sends the reports
# gzip-compressed, as agents do (inflate: zlib before session 32, libdeflate since).
# Rounds (RUNS, default 3) alternate the builds; the table is the median per
# build. Unlike a hot-loop microbenchmark it shows what caches that other
# work keeps refilling cost. Needs perf (linux-perf).
#   usage: tests/bench/ingest_profile.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
command -v perf >/dev/null || {
	echo "bench: ingest_profile needs perf (Debian package linux-perf)" >&2
	exit 1
}
base_rev=${BASE:-240588b}
rate=${RATE:-1500}
secs=${SECONDS_PER_RUN:-20}
warm=${WARM_S:-14}
runs=${RUNS:-3}
hosts=${HOSTS:-20000}
gzip=
[ "${MODE:-plain}" = gzip ] && gzip=--gzip
export SCHEDIO_BUILD_REL=${1:-${SCHEDIO_BUILD_REL:-$top/build-rel}}
work=$(mktemp -d /tmp/schedio-profile.XXXXXX)
pid=
lg=
trap '[ -n "$lg" ] && kill "$lg" 2>/dev/null; bench_server_stop; rm -rf "$work"' EXIT
bench_build_rel "$work" schedio-server loadgen
base=$(bench_baseline_build "$base_rev" "$work/base" schedio-server)
parts="server libc malloc zstd inflate sqlite mhd cjson kernel other"

# one round of server binary $2, labelled $1: appends "LABEL PART US" lines to $work/figures
one_run() {
	local label=$1 server=$2 n=$((rate * secs)) ns
	rm -f "$work"/run.db*
	bench_server_start "$work" "$server" "$work/run.db" --blob-dict-grace 0
	"$rel/bench/loadgen" --url "$url" --rate "$rate" --duration $((warm + secs + 2)) --hosts "$hosts" \
		--concurrency 512 $gzip >"$work/lg.out" 2>&1 &
	lg=$!
	sleep "$warm"
	perf record -q -F 2000 -p "$pid" -o "$work/perf.data" -- sleep "$secs" >/dev/null 2>&1
	wait "$lg" || true
	lg=
	bench_server_stop
	echo "  $label: $(cat "$work/lg.out")" >&2
	ns=$(perf report -i "$work/perf.data" --stdio --sort dso 2>/dev/null | sed -n 's/^# Event count (approx.): //p')
	{
		perf report -i "$work/perf.data" --no-children --stdio --sort dso 2>/dev/null |
			awk '/^ +[0-9.]+%/ {print "dso", $1, $2}'
		perf report -i "$work/perf.data" --no-children --stdio --sort dso,sym 2>/dev/null |
			awk '/^ +[0-9.]+%/ && $2 ~ /^libc/ {print "sym", $1, $NF}'
	} | awk -v l="$label" -v ns="$ns" -v n="$n" '
		{ pct = $2; sub(/%/, "", pct); us = ns * pct / 100 / 1000 / n }
		$1 == "dso" { p = $3
			if (p ~ /^schedio-server/) p = "server"; else if (p ~ /^libc\./) p = "libc"
			else if (p ~ /zstd/) p = "zstd"; else if (p ~ /^libz\.|^libdeflate/) p = "inflate"
			else if (p ~ /sqlite/) p = "sqlite"
			else if (p ~ /microhttpd/) p = "mhd"; else if (p ~ /cjson/) p = "cjson"
			else if (p ~ /kernel/) p = "kernel"; else p = "other"
			a[p] += us; tot += us }
		$1 == "sym" && $3 ~ /malloc|free|realloc|calloc|consolidate|unlink_chunk|tcache|memalign/ { a["malloc"] += us }
		END { for (p in a) printf "%s %s %.1f\n", l, p, a[p]; printf "%s total %.1f\n", l, tot }' \
		>>"$work/figures"
}

echo "== server CPU per report by library: $rate ${MODE:-plain} reports/s, $secs s sampled after $warm s, $runs rounds; base $base_rev"
: >"$work/figures"
for _ in $(seq "$runs"); do
	one_run base "$base/bin/schedio-server"
	one_run this "$rel/bin/schedio-server"
done
printf '%-6s' build
for p in total $parts; do printf ' %7s' "$p"; done
echo
for b in base this; do
	printf '%-6s' "$b"
	for p in total $parts; do
		printf ' %7s' "$(awk -v b="$b" -v p="$p" '$1 == b && $2 == p {print $3}' "$work/figures" | bench_median)"
	done
	echo
done
echo "(µs of CPU per report, median of $runs; malloc is the part of libc in malloc and free)"
