#!/usr/bin/env bash
# scx_fleet.sh - the experiment loop of issue 9 end to end: in the sid VM the
# agent measures runqueue latency under EEVDF, scx_fifo and scx_llc (one
# report each, the wakeup-heavy workload next to a busy loop per vCPU); the
# reports go to a real schedio-server (the VM has no network, so the host
# posts the agent's reports as the agent would), and the fleet query grouped
# by scheduler returns the three side by side. Prints that query's p50/p99
# per group. Then the same three phases inside one agent interval: the
# agent attributes each sample to the scheduler that ran it
# (runqlat.by_scheduler), so the fleet query over that one report returns
# the three groups too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${SCHEDIO_SOURCE:-$here/../..}
build=${SCHEDIO_BUILD:-$src/build}
bin=${SCHEDIO_BIN:-$build/bin}
[ -f "$build/bpf/scx/skip-reason.txt" ] && { echo "skipped: $(cat "$build/bpf/scx/skip-reason.txt")"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-scx-fleet.XXXXXX")
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
# Prints the groups of a fleet answer (FILE) as a table and fails unless
# there are three: eevdf, scx_fifo and scx_llc. WHAT names the source.
show_groups() {
	local n
	jq -r '.groups[] | [.key, .hosts, (.series | map(.count) | add),
		(.series[0].p50_ns / 1000), (.series[0].p99_ns / 1000)] | @tsv' "$1" |
		awk -F'\t' 'BEGIN { printf "%-10s %6s %10s %12s %12s\n", "group", "hosts", "wakeups", "p50 (us)", "p99 (us)" }
			{ printf "%-10s %6s %10s %12.1f %12.1f\n", $1, $2, $3, $4, $5 }'
	n=$(jq '.groups | length' "$1")
	[ "$n" -eq 3 ] || { echo "FAIL: $2 gave $n groups, want eevdf, scx_fifo and scx_llc"; cat "$1"; exit 1; }
}

gcc -O2 -Wall -Wextra -Werror -o "$tmp/pingpong" "$src/tests/vm/pingpong.c"
"$src/tests/vm/vm-run.sh" -s sid -b "$bin/schedio" -b "$bin/schedio-agent" -b "$tmp/pingpong" \
	-e SECONDS_PER_SCHED="${SECONDS_PER_SCHED:-8}" -o "$tmp/out" -t 600 "$here/scx_fleet_guest.sh"
for s in eevdf fifo llc; do
	jq -e '.runqlat.cgroups | length > 0' "$tmp/out/report_$s.json" >/dev/null 2>&1 ||
		{ echo "pending: the agent's report has no runqlat section (issue 3's collector)"; exit 0; }
done

"$bin/schedio-server" --listen 127.0.0.1:0 --db "$tmp/fleet.db" --open-ingest >"$tmp/server.out" 2>"$tmp/server.err" &
server=$!
for _ in $(seq 100); do grep -q listening "$tmp/server.out" && break; sleep 0.1; done
base=$(sed -n 's|^schedio-server listening on \(http://[^ ]*\)/$|\1|p' "$tmp/server.out")
[ -n "$base" ] || { echo "the server did not start: $(cat "$tmp/server.err")"; exit 1; }
from= to=
for s in eevdf fifo llc; do
	code=$(curl -s -o "$tmp/post.txt" -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary @"$tmp/out/report_$s.json" "$base/api/v1/reports")
	[ "${code:0:1}" = 2 ] || { echo "POST of the $s report: $code $(cat "$tmp/post.txt")"; exit 1; }
	f=$(jq '.interval.start_ms' "$tmp/out/report_$s.json") t=$(jq '.interval.end_ms' "$tmp/out/report_$s.json")
	[ -z "$from" ] || [ "$f" -lt "$from" ] && from=$f
	[ -z "$to" ] || [ "$t" -gt "$to" ] && to=$t
done
code=$(curl -s -o "$tmp/fleet.json" -w '%{http_code}' \
	"$base/api/v1/fleet/runqlat?group_by=sched_ext&from=$from&to=$((to + 1))&step=$((to + 1 - from))")
[ "$code" = 200 ] || { echo "pending: GET /api/v1/fleet/runqlat answered $code (issue 5)"; exit 0; }
echo "GET /api/v1/fleet/runqlat?group_by=sched_ext over the three reports (whole host, all cgroups):"
show_groups "$tmp/fleet.json" "the reports"

one="$tmp/out/report_one.json"
code=$(curl -s -o "$tmp/post.txt" -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @"$one" \
	"$base/api/v1/reports")
[ "${code:0:1}" = 2 ] || { echo "POST of the one-interval report: $code $(cat "$tmp/post.txt")"; exit 1; }
f=$(jq '.interval.start_ms' "$one") t=$(jq '.interval.end_ms' "$one")
curl -s -o "$tmp/fleet_one.json" "$base/api/v1/fleet/runqlat?group_by=sched_ext&from=$f&to=$((t + 1))&step=$((t + 1 - f))"
echo "The same phases in ONE agent interval of $(((t - f) / 1000)) s, split by the scheduler that ran each task:"
show_groups "$tmp/fleet_one.json" "one interval"
