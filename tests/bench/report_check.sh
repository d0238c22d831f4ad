#!/usr/bin/env bash
# report_check.sh - the server's whole report check (report_parse: JSON parse,
# every field's check, the encoded and packed blobs) on one realistic report
# (loadgen --dump: 20 cgroups and 2 CPUs of 60 buckets, 2 disks x 10 iocost
# rows), CPU time per report for the baseline revision ($BENCH_BASELINE_REV,
# lib/bench_lib.sh) and this tree, both Release, alternating ROUNDS times
# (default 5); prints each build's median and the ratio.
#   usage: tests/bench/report_check.sh [BUILD_DIR]   (default ./build-rel)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
build=${1:-$top/build-rel}
rounds=${ROUNDS:-5}
cache=${SCHEDIO_BENCH_CACHE:-$top/.cache/bench}
work=$(mktemp -d /tmp/schedio-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

base=$(bench_baseline_build "$BENCH_BASELINE_REV" "$cache" report_parse_bench)
[ -f "$build/CMakeCache.txt" ] || cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target report_parse_bench loadgen >/dev/null
"$build/bench/loadgen" --url http://unused --dump >"$work/report.json"
echo "== report check, $(wc -c <"$work/report.json") bytes of JSON, $rounds rounds per build (alternating)"
us() { # BUILD: microseconds per report check (the bench's median of 9 x 2000)
	"$1/bench/report_parse_bench" -n 2000 "$work/report.json" |
		awk '{for (i = 1; i <= NF; i++) if ($i == "us") print $(i - 1)}'
}
for _ in $(seq "$rounds"); do
	us "$base" >>"$work/base"
	us "$build" >>"$work/cur"
done
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
b=$(median <"$work/base")
c=$(median <"$work/cur")
echo "report_check_us baseline=$b current=$c ratio=$(awk -v b="$b" -v c="$c" 'BEGIN {printf "%.2f", c / b}')"
