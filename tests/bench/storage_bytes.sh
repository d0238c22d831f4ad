#!/usr/bin/env bash
# storage_bytes.sh - what a realistic report costs to store, before and after
# issue 18, in one run: builds the baseline revision ($BENCH_BASELINE_REV) and
# this tree (Release), fills a SQLite database through each with the same
# realistic reports (bench_fill: the server's own parse, store and rollup
# code), and prints bytes per report at the raw level (reports table and its
# indexes, by dbstat, over many reports per host), bytes per host-day per level
# and the encode+pack CPU per report (blob_encode_bench, built against each
# tree). Then it serves the baseline's database with both servers and checks
# that every query answers byte for byte the same: old databases keep working.
#   tests/bench/run.sh storage_bytes
# Environment: STORAGE_HOSTS (20), STORAGE_HOURS (6), STORAGE_WORK (a fresh
# temporary folder), SCHEDIO_BUILD_REL (this tree's Release build, default
# ./build-rel, configured if missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
hosts=${STORAGE_HOSTS:-20}
hours=${STORAGE_HOURS:-6}
interval=10
work=${STORAGE_WORK:-$(mktemp -d)}
mkdir -p "$work"
rel=${SCHEDIO_BUILD_REL:-$SCHEDIO_SOURCE/build-rel}
pid=

cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT

echo "storage_bytes: building the baseline $BENCH_BASELINE_REV and this tree (Release) in $work and $rel"
base=$(bench_baseline_build "$BENCH_BASELINE_REV" "$work/base" bench_fill schedio_server_lib schedio-server)
if [ ! -f "$rel/CMakeCache.txt" ]; then
	cmake -S "$SCHEDIO_SOURCE" -B "$rel" -DCMAKE_BUILD_TYPE=Release >"$work/new-configure.log"
fi
cmake --build "$rel" -j "$(nproc)" --target bench_fill blob_encode_bench schedio-server >"$work/new-build.log"

# blob_encode_bench uses only the encode API, the same in both trees: built against the baseline's library
# too, without the blob dictionaries (issue 18) the baseline does not have; this tree's packs with them (-d),
# as a server does once they are trained.
libs="$(pkg-config --libs libcjson sqlite3 zlib libpq nettle libmicrohttpd) -lm -lpthread"
# shellcheck disable=SC2086
cc -O2 -std=gnu11 -DBENCH_NO_DICT -I"$work/base/src-$BENCH_BASELINE_REV" "$SCHEDIO_SOURCE/tests/bench/blob_encode_bench.c" \
	-o "$work/blob_encode_bench.base" "$base/server/libschedio_server_lib.a" "$base/common/libschedio_common.a" $libs

# Prints "name value" lines for one filled database: raw bytes per report and the per-host-day figures.
fill() {
	local tree=$1 db=$2 out
	rm -f "$db" "$db-wal" "$db-shm"
	out=$("$tree/bench/bench_fill" --db "$db" --hosts "$hosts" --hours "$hours" --interval-s "$interval")
	echo "$out" >"$db.fill.txt"
	echo "$out" | sed -n 's/^bytes_per_host_day raw=\([0-9]*\) minute=\([0-9]*\) hour=\([0-9]*\) all_levels=\([0-9]*\).*/raw_day \1\nminute_day \2\nhour_day \3\nall_day \4/p'
	sqlite3 "$db" "SELECT 'payload ' || round(avg(coalesce(length(host_hist), 0) + coalesce(length(series), 0) + \
		coalesce(length(iocost), 0))) || ' ' || round(avg(length(host_hist))) || ' ' || round(avg(length(series))) \
		|| ' ' || round(avg(length(iocost))) FROM reports"
}

get() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

fill "$base" "$work/base.db" >"$work/base.fig"
fill "$rel" "$work/new.db" >"$work/new.fig"
per_day=$((86400 / interval))
printf '%-44s %12s %12s %8s\n' figure baseline "this tree" ratio
for k in raw_day minute_day hour_day all_day; do
	b=$(get $k "$work/base.fig")
	n=$(get $k "$work/new.fig")
	printf '%-44s %12s %12s %8.2f\n' "bytes per host-day, ${k%_day} level" "$b" "$n" "$(echo "$n / $b" | bc -l)"
done
b=$(get raw_day "$work/base.fig")
n=$(get raw_day "$work/new.fig")
printf '%-44s %12.0f %12.0f %8.2f\n' "bytes per report, raw level (row + indexes)" "$(echo "$b / $per_day" | bc -l)" \
	"$(echo "$n / $per_day" | bc -l)" "$(echo "$n / $b" | bc -l)"
read -r _ pb hb sb ib <<<"$(grep '^payload' "$work/base.fig")"
read -r _ pn hn sn in <<<"$(grep '^payload' "$work/new.fig")"
printf '%-44s %12s %12s %8.2f\n' "blob bytes per report (host_hist+series+iocost)" "$pb" "$pn" "$(echo "$pn / $pb" | bc -l)"
printf '%-44s %12s %12s\n' "  host_hist / series / iocost" "$hb/$sb/$ib" "$hn/$sn/$in"

eb=$("$work/blob_encode_bench.base")
en=$("$rel/bench/blob_encode_bench" -d)
ub=${eb#encode_pack_us_per_report=}
ub=${ub%% *}
un=${en#encode_pack_us_per_report=}
un=${un%% *}
printf '%-44s %12s %12s %8.2f\n' "encode+pack CPU us per report (median of 9)" "$ub" "$un" "$(echo "$un / $ub" | bc -l)"
echo "baseline: $eb"
echo "this tree (with dictionaries): $en"

# The baseline's database served by both servers: every answer the same.
from=$(sqlite3 "$work/base.db" "SELECT min(start_ms) FROM reports")
to=$(sqlite3 "$work/base.db" "SELECT max(end_ms) FROM reports")
recent=$((to - 1800000))
urls=(
	"/api/v1/hosts/fill-00003/runqlat?from=$recent&to=$to&step=10000"
	"/api/v1/hosts/fill-00003/runqlat?from=$from&to=$to&step=600000"
	"/api/v1/hosts/fill-00003/runqlat?from=$from&to=$to&step=3600000"
	"/api/v1/hosts/fill-00003/runqlat?from=$from&to=$to&step=600000&cgroup=/system.slice/svc3"
	"/api/v1/hosts/fill-00003/runqlat?from=$recent&to=$to&step=60000&cpu=1"
	"/api/v1/hosts/fill-00003/runqlat?from=$from&to=$to&step=3600000&sched=fair"
	"/api/v1/fleet/runqlat?from=$from&to=$to&step=600000"
	"/api/v1/fleet/runqlat?from=$recent&to=$to&step=60000&group_by=kernel"
	"/api/v1/hosts/fill-00003/iocost?from=$from&to=$to&step=600000"
	"/api/v1/hosts/fill-00003/iocost?from=$recent&to=$to&step=10000"
)
answers() {
	local server=$1 db=$2 out=$3
	cp "$work/base.db" "$db"
	bench_server_start "$work" "$server" "$db"
	: >"$out"
	: >"$out.status"
	for u in "${urls[@]}"; do
		# shellcheck disable=SC2154 # url: set by bench_server_start
		curl -s -o "$out.one" -w '%{http_code}\n' "$url$u" >>"$out.status"
		cat "$out.one" >>"$out"
		echo >>"$out"
	done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
}
answers "$base/bin/schedio-server" "$work/old-served-by-base.db" "$work/answers.base"
answers "$rel/bin/schedio-server" "$work/old-served-by-new.db" "$work/answers.new"
if cmp -s "$work/answers.base" "$work/answers.new" && ! grep -qv '^200$' "$work/answers.base.status"; then
	echo "old database served by this tree: ${#urls[@]} answers ($(wc -c <"$work/answers.new") bytes) identical to the baseline's"
else
	echo "old database served by this tree: answers DIFFER from the baseline's (see $work/answers.*)"
	exit 1
fi
