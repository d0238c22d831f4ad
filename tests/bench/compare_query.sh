#!/usr/bin/env bash
# compare_query.sh - GET /api/v1/compare end to end (issue 15: a comparison
# over 1,000 hosts and 24 h answers in under 1 s): a SQLite database filled
# with 24 h of history for 1,000 hosts (bench_fill: one report per host per
# 10 min, rolled up), then, median of 20 sequential requests each:
#   1. both arms the whole fleet over the last 24 h (one read of the window,
#      1,000 hosts per arm, 2,000 resamples), per-sample scheduler matching on;
#   2. before/after: the same 1,000 hosts in two 12 h windows (two reads, paired);
#   3. one workload's cgroups over 24 h (the per-cgroup blobs are read).
# Usage: tests/bench/compare_query.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
build=${1:-$top/build}
server=$build/bin/schedio-server
loadgen=$build/bench/loadgen
fill=$build/bench/bench_fill
work=$(mktemp -d /tmp/schedio-bench-compare.XXXXXX)
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

"$fill" --db "$work/fleet.db" --hosts 1000 --hours 24 --interval-s 600
bench_server_start "$work" "$server" "$work/fleet.db"
now=$(($(date +%s) * 1000))
from=$((now - 86400000))
mid=$((now - 43200000))
echo "== 1,000 hosts per arm over 24 h: sched=fair against kernel=6.1"
"$loadgen" --url "$url" --get "/api/v1/compare?a=sched%3Dfair&b=kernel%3D6.1&from=$from&to=$now" --repeat 20
echo "== before/after: the same 1,000 hosts, 12 h against 12 h (paired)"
"$loadgen" --url "$url" --get "/api/v1/compare?a=kernel%3D6.1&b=kernel%3D6.1&a_from=$mid&a_to=$now&b_from=$from&b_to=$mid" \
	--repeat 20
echo "== one workload's cgroups over 24 h: cgroup=/system.slice"
"$loadgen" --url "$url" --get "/api/v1/compare?a=sched%3Dfair&b=kernel%3D6.1&from=$from&to=$now&cgroup=%2Fsystem.slice" \
	--repeat 20
