#!/usr/bin/env bash
# overload.sh - schedio-server under a closed loop that asks for more than it
# can take (issue 18): loadgen --closed N senders, each posting its next
# realistic report the moment the previous one is answered, 500 hosts, for
# SECONDS_PER_RUN s on a fresh database. For the baseline revision
# ($BENCH_BASELINE_REV, built here in Release) and this build, in one run:
# answers per status, reports stored per second, latency p50/p99/max, and
# server CPU per stored report; the median of RUNS runs per server and
# sender count (SENDERS, default "32 1000").
# Usage: tests/bench/overload.sh [BUILD_DIR]   (SENDERS, SECONDS_PER_RUN, RUNS override)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
build=${1:-$top/build}
loadgen=$build/bench/loadgen
senders=${SENDERS:-32 1000}
secs=${SECONDS_PER_RUN:-20}
runs=${RUNS:-3}
work=$(mktemp -d /tmp/schedio-overload.XXXXXX)
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

run_once() { # SERVER N: prints "ok_rate p50 p99 max shed shed_without_retry_after other cpu_us_per_stored"
	local server=$1 n=$2 out t0 t1 ok
	bench_server_start "$work" "$server" "$work/overload.db"
	t0=$(cpu_ticks)
	out=$("$loadgen" --url "$url" --closed "$n" --hosts 500 --duration "$secs" 2>/dev/null || true)
	t1=$(cpu_ticks)
	kill "$pid"
	wait "$pid" || true
	pid=
	rm -f "$work"/overload.db*
	echo "    $out" >&2
	ok=$(echo "$out" | field ok)
	echo "$(echo "$out" | field ok_rate) $(echo "$out" | field p50) $(echo "$out" | field p99)" \
		"$(echo "$out" | field max) $(echo "$out" | field shed) $(echo "$out" | field shed_without_retry_after)" \
		"$(echo "$out" | field other)" \
		"$(( (t1 - t0) * 10000 / (ok > 0 ? ok : 1) ))"
}

measure() { # LABEL SERVER N
	local label=$1 server=$2 n=$3 lines col
	echo "  $label:"
	lines=$(for _ in $(seq "$runs"); do run_once "$server" "$n"; done)
	printf '  %-8s median of %s: stored %s/s, latency ms p50 %s p99 %s max %s, 503 %s (%s without Retry-After), other %s, CPU %s us/stored report\n' \
		"$label" "$runs" $(for col in 1 2 3 4 5 6 7 8; do echo "$lines" | awk -v c=$col '{print $c}' | median; done)
}

base=$(bench_baseline_build "$BENCH_BASELINE_REV" "${SCHEDIO_BENCH_CACHE:-/tmp/schedio-bench-baseline}" schedio-server)
for n in $senders; do
	echo "== closed loop: $n senders, 500 hosts, $secs s, $runs runs each (loadgen --closed $n --hosts 500 --duration $secs)"
	measure before "$base/bin/schedio-server" "$n"
	measure after "$build/bin/schedio-server" "$n"
done
