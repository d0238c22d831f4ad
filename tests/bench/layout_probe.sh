#!/usr/bin/env bash
# layout_probe.sh - the SQLite layout for a fleet's sustained ingest (issue
# 18): layout_probe's variants side by side on a database that holds
# FILL_PER_HOST (default 60) reports of each of HOSTS (default 50,000) hosts,
# at RATE (default 5,000) reports/s: a fleet of HOSTS agents at 10 s, each at
# its own phase of the interval, in an order unrelated to the hosts' numbers
# (agents restart at different times); SECONDS_PER_RUN (default 100) a run,
# RUNS (default 2) rounds alternating. Per variant the median of each figure over its runs (CPU of
# the probe's process per report, bytes it wrote per report, ack p50/p99, and
# right after the run, a host's last 15 minutes and the hosts list's last
# report times read), and every run's p99:
#   direct             the store's layout today: reports with its per-host indexes,
#                      the host's row updated by every report
#   staged             arrivals appended to a staging table; every MERGE_S (default 60)
#                      it is frozen and merged into reports in host order in
#                      transactions of their own between the ingest commits
#   staged-piggyback   the same, the merge's steps inside the ingest commits
#   staged-piggyback-arrival
#                      the same, the staging tables indexed by arrival second and host
#                      instead of report time, host and end (what a host's read seeks)
# VARIANTS (default all four) picks some of them.
# The database is filled once (about a minute, 460 MB for the default) and
# copied before each run; every run starts after a sync.
#   usage: tests/bench/layout_probe.sh [BUILD_DIR]   (default ./build-rel)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
build=${1:-$top/build-rel}
hosts=${HOSTS:-50000}
per_host=${FILL_PER_HOST:-60}
rate=${RATE:-5000}
secs=${SECONDS_PER_RUN:-100}
runs=${RUNS:-2}
merge_s=${MERGE_S:-60}
work=$(mktemp -d /tmp/schedio-layout.XXXXXX)
trap 'rm -rf "$work"' EXIT

[ -f "$build/CMakeCache.txt" ] || cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target layout_probe >/dev/null
probe=$build/bench/layout_probe
common=(--hosts "$hosts" --fill-per-host "$per_host")

echo "== filling: $hosts hosts x $per_host reports"
"$probe" --db "$work/filled.db" --fill "${common[@]}"

read -ra variants <<<"${VARIANTS:-direct staged staged-piggyback staged-piggyback-arrival}"
for ((r = 1; r <= runs; r++)); do
	for v in "${variants[@]}"; do
		args=(--layout "${v%%-*}" --rate "$rate" --seconds "$secs" --merge-s "$merge_s")
		case $v in *-piggyback*) args+=(--piggyback) ;; esac
		case $v in *-arrival) args+=(--stage-key arrival) ;; esac
		rm -f "$work"/run.db*
		cp "$work/filled.db" "$work/run.db"
		sync
		"$probe" --db "$work/run.db" "${common[@]}" "${args[@]}" | tee -a "$work/$v.out"
	done
done

echo "== medians of $runs runs at $rate reports/s for $secs s, $hosts hosts, merge every $merge_s s"
printf '%-24s %8s %10s %8s %8s %12s %13s %s\n' variant cpu_us written_B p50_ms p99_ms host_read_ms hosts_list_ms \
	"p99 of each run"
for v in "${variants[@]}"; do
	f=$work/$v.out
	printf '%-24s %8s %10s %8s %8s %12s %13s %s\n' "$v" \
		"$(bench_field cpu_us_per_report <"$f" | bench_median)" \
		"$(bench_field written_bytes_per_report <"$f" | bench_median)" \
		"$(bench_field p50_ms <"$f" | bench_median)" \
		"$(bench_field p99_ms <"$f" | bench_median)" \
		"$(bench_field host_read_ms <"$f" | bench_median)" \
		"$(bench_field hosts_list_ms <"$f" | bench_median)" \
		"$(bench_field p99_ms <"$f" | paste -sd/)"
done
