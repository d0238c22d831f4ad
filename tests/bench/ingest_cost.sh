#!/usr/bin/env bash
# ingest_cost.sh - issue 18's ingest figures, before and after in one run.
# Builds the baseline revision ($BENCH_BASELINE_REV, see lib/bench_lib.sh) and
# this tree in Release (tests/bench/lib's bench_baseline_build; this tree's
# Release build goes to BUILD_DIR, default ./build-rel), then:
#   1. server CPU per realistic report (20 cgroups, 2 CPUs, 2 disks x 10 iocost
#      rows, uncompressed JSON): utime+stime of schedio-server over an
#      open-loop run at CPU_RATE reports/s (default 1000, below both builds'
#      capacity, so the figure is cost, not saturation), RUNS runs per build
#      (default 3), baseline and current alternating; the median per build and
#      the ratio;
#   2. sustained ingest on the current build at RATE (default 5000/s) for
#      SECONDS_PER_RUN (default 60) from 20,000 simulated hosts, plain and gzip
#      (loadgen --gzip, level 6 as the agent sends), SUSTAINED_RUNS runs of
#      each (default 3, plain and gzip alternating): per mode the median of
#      achieved rate, ack p50/p99 and CPU per report, the most errors of a
#      run, and every run's p99 (an answer waits for its commit's WAL write
#      and fsync, which on a shared disk now and then take 100 ms or more, so
#      single runs vary);
#   3. with CURVE_RATES (e.g. "1000 1500 2500 3500 5000"): the current build's
#      CPU per report at each of those rates, 20 s runs, RUNS rounds over the
#      rates; the median per rate. It shows the fixed costs per commit and per
#      wake-up that fewer reports share at lower rates.
# Every run starts on a fresh SQLite database.
#   usage: tests/bench/ingest_cost.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
build=${1:-$top/build-rel}
cpu_rate=${CPU_RATE:-1000}
rate=${RATE:-5000}
secs=${SECONDS_PER_RUN:-60}
runs=${RUNS:-3}
work=$(mktemp -d /tmp/schedio-ingest.XXXXXX)
cache=${SCHEDIO_BENCH_CACHE:-$top/.cache/bench}
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

echo "== building: baseline $BENCH_BASELINE_REV and this tree (Release)"
base=$(bench_baseline_build "$BENCH_BASELINE_REV" "$cache" schedio-server loadgen)
[ -f "$build/CMakeCache.txt" ] || cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target schedio-server loadgen >/dev/null
loadgen=$build/bench/loadgen

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

run() { # SERVER_BUILD RATE SECONDS [LOADGEN_ARGS...]: prints "rate p50 p99 errors cpu_us"
	local sb=$1 r=$2 s=$3 out t0 t1 n
	shift 3
	rm -f "$work"/ingest.db*
	# This tree's server packs with blob dictionaries once trained on the first 1,000 reports;
	# with no grace (one server) they are in use from a few seconds into a run.
	if [ "$sb" = "$build" ]; then
		bench_server_start "$work" "$sb/bin/schedio-server" "$work/ingest.db" --blob-dict-grace 0
	else
		bench_server_start "$work" "$sb/bin/schedio-server" "$work/ingest.db"
	fi
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	out=$("$loadgen" --url "$url" --rate "$r" --duration "$s" --hosts 20000 --concurrency 512 "$@" || true)
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill "$pid"
	wait "$pid" || true
	pid=
	echo "  $out" >&2
	n=$(echo "$out" | field reports)
	echo "$(echo "$out" | field rate) $(echo "$out" | field p50) $(echo "$out" | field p99)" \
		"$(echo "$out" | field errors) $(((t1 - t0) * 10000 / (n > 0 ? n : 1)))"
}

echo "== server CPU per report at $cpu_rate reports/s, 20 s, $runs runs per build (alternating)"
: >"$work/base" && : >"$work/cur"
for _ in $(seq "$runs"); do
	echo " baseline:" >&2
	run "$base" "$cpu_rate" 20 >>"$work/base"
	echo " current:" >&2
	run "$build" "$cpu_rate" 20 >>"$work/cur"
done
b=$(cut -d' ' -f5 "$work/base" | median)
c=$(cut -d' ' -f5 "$work/cur" | median)
echo "cpu_per_report_us baseline=$b current=$c ratio=$(awk -v b="$b" -v c="$c" 'BEGIN {printf "%.2f", c / b}')"

sustained_runs=${SUSTAINED_RUNS:-3}
echo "== sustained: $rate reports/s for $secs s, 20,000 hosts, plain and gzip, $sustained_runs runs each (alternating)"
: >"$work/plain" && : >"$work/gzip"
for _ in $(seq "$sustained_runs"); do
	for mode in plain gzip; do
		args=()
		[ "$mode" = gzip ] && args=(--gzip)
		echo " $mode:" >&2
		run "$build" "$rate" "$secs" "${args[@]}" >>"$work/$mode"
	done
done
col() { cut -d' ' -f"$2" "$work/$1"; } # MODE FIELD: that field of every run
for m in plain gzip; do
	echo "sustained_$m rate=$(col $m 1 | median)/s ack_p50_ms=$(col $m 2 | median) ack_p99_ms=$(col $m 3 | median)" \
		"errors=$(col $m 4 | sort -n | tail -1) cpu_per_report_us=$(col $m 5 | median)" \
		"p99_each_run=$(col $m 3 | paste -sd/)"
done

if [ -n "${CURVE_RATES:-}" ]; then
	echo "== server CPU per report by rate: $CURVE_RATES reports/s, 20 s, $runs rounds"
	for _ in $(seq "$runs"); do
		for r in $CURVE_RATES; do
			run "$build" "$r" 20 | cut -d' ' -f5 >>"$work/curve-$r"
		done
	done
	for r in $CURVE_RATES; do
		echo "cpu_per_report_us rate=$r/s median=$(median <"$work/curve-$r") runs=$(paste -sd/ "$work/curve-$r")"
	done
fi
