#!/usr/bin/env bash
# ingest_tail.sh - the ack latency's tail at the top rate over more than one
# staging period, this tree against BASE in one run (issue 18). Each round
# starts a Release server on a fresh SQLite database and sends RATE (default
# 5,000) realistic reports/s from HOSTS (default 20,000) hosts for
# SECONDS_PER_RUN (default 130: two freezes of the writer's staging table,
# whose period is 60 s, and the index of its keys grown to a minute's reports)
# with the open-loop generator (--gzip when MODE=gzip). Rounds (RUNS, default 2)
# alternate the builds. Prints each run's ack p50, p99 and max, the worst
# second's p99 and how many seconds had a p99 over 50 ms (loadgen --timeline,
# by when requests were due), then the median per build, and each run's
# refusals by the server's shedding reason (/metrics schedio_ingest_shed_total)
# and its commits that took over 50 ms (schedio_ingest_commit_seconds): a slow
# second with no slow commit was held up before the writer's queue.
# With TIMELINES=DIR each run's timeline is kept there as LABEL-ROUND.txt.
#   usage: tests/bench/ingest_tail.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
base_rev=${BASE:-c0f9df6}
rate=${RATE:-5000}
secs=${SECONDS_PER_RUN:-130}
runs=${RUNS:-2}
hosts=${HOSTS:-20000}
gzip=
[ "${MODE:-plain}" = gzip ] && gzip=--gzip
export SCHEDIO_BUILD_REL=${1:-${SCHEDIO_BUILD_REL:-$top/build-rel}}
work=$(mktemp -d /tmp/schedio-tail.XXXXXX)
pid=
trap 'bench_server_stop; rm -rf "$work"' EXIT
bench_build_rel "$work" schedio-server loadgen
base=$(bench_baseline_build "$base_rev" "$work/base" schedio-server)

# round $3 of server binary $2, labelled $1: appends "LABEL p50 p99 max worst_second slow_seconds errors shed
# slow_commits" to $work/figures (shed: reason=count for each shedding reason /metrics counts, - when it has
# none; slow_commits: commits over 50 ms, - when /metrics has no such histogram, as an older base)
one_run() {
	local label=$1 server=$2 round=$3 line shed slow
	rm -f "$work"/run.db*
	bench_server_start "$work" "$server" "$work/run.db" --blob-dict-grace 0
	line=$("$rel/bench/loadgen" --url "$url" --rate "$rate" --duration "$secs" --hosts "$hosts" \
		--concurrency 512 --timeline "$work/timeline" $gzip 2>&1) || true
	curl -s -o "$work/metrics" "$url/metrics" || : >"$work/metrics"
	shed=$(sed -n 's/^schedio_ingest_shed_total{reason="\([a-z_]*\)"} \([0-9]*\)$/\1=\2/p' "$work/metrics" |
		paste -sd, -)
	slow=$(awk '$1 == "schedio_ingest_commit_seconds_bucket{le=\"0.05\"}" {b = $2}
		$1 == "schedio_ingest_commit_seconds_count" {c = $2} END {print c == "" ? "-" : c - b}' "$work/metrics")
	bench_server_stop
	echo "  $label: $line" >&2
	echo "$label $(echo "$line" | bench_field p50) $(echo "$line" | bench_field p99) $(echo "$line" | bench_field max)" \
		"$(awk 'BEGIN {w = 0} $1 ~ /^[0-9]+$/ && $5 + 0 > w {w = $5 + 0} END {print w}' "$work/timeline")" \
		"$(awk '$1 ~ /^[0-9]+$/ && $5 + 0 > 50 {n++} END {print n + 0}' "$work/timeline")" \
		"$(echo "$line" | bench_field errors)" "${shed:--}" "$slow" >>"$work/figures"
	if [ -n "${TIMELINES:-}" ]; then
		mkdir -p "$TIMELINES"
		cp "$work/timeline" "$TIMELINES/$label-$round.txt"
	fi
}

echo "ingest tail: ${MODE:-plain} at $rate/s for $secs s from $hosts hosts, $runs rounds, base $base_rev" >&2
for r in $(seq "$runs"); do
	one_run base "$base/bin/schedio-server" "$r"
	one_run this "$rel/bin/schedio-server" "$r"
done
printf '%-6s %9s %9s %9s %9s %9s %9s\n' build p50_ms p99_ms max_ms worst_s p99_gt50 errors
for b in base this; do
	printf '%-6s' "$b"
	for col in 2 3 4 5 6 7; do
		printf ' %9s' "$(awk -v b="$b" -v c="$col" '$1 == b {print $c}' "$work/figures" | bench_median)"
	done
	printf '\n'
done
echo "runs (build, ack p50, p99 and max in ms, the worst second's p99 in ms, seconds whose p99 passed 50 ms, errors," \
	"the server's refusals by reason, its commits over 50 ms):"
cat "$work/figures"
