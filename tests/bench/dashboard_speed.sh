#!/usr/bin/env bash
# dashboard_speed.sh - the dashboard's speed in Chromium against a real
# server (issue 8): fleet page with 1,000 hosts, host page over 24 h, the
# largest response, each against the empty Submit page as baseline. The
# browser test does the measuring; this runs it with the benchmark env.
#
# With BASE=REV, git revision REV is built too (server, agent and dashboard, in
# Release) and the two are measured in turn, ROUNDS times each (default 3),
# so both see the same machine; the medians of each figure over the rounds
# are printed per build.
set -euo pipefail
. "$(dirname "$0")/lib/bench_lib.sh"
bench_env
test=$SCHEDIO_SOURCE/tests/web/test_dashboard_speed.mjs
if [ -z "${BASE:-}" ]; then
	exec node "$test"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench_build_rel "$work" schedio-server schedio-agent schedio_web
base=$(bench_baseline_build "$BASE" "${BENCH_CACHE:-/tmp/schedio-bench-baseline}" schedio-server schedio-agent schedio_web)
rounds=${ROUNDS:-3}
for r in $(seq "$rounds"); do
	for which in base this; do
		b=$rel
		[ "$which" = base ] && b=$base
		# the test is this tree's in both runs: only the server, agent and dashboard differ
		SCHEDIO_BUILD=$b SCHEDIO_BIN=$b/bin node "$test" >"$work/$which.$r" 2>&1 || true
		echo "round $r $which: $(grep '^# SUMMARY' "$work/$which.$r" || tail -3 "$work/$which.$r")"
	done
done
for which in base this; do
	line="$which ($([ "$which" = base ] && echo "$BASE" || git -C "$SCHEDIO_SOURCE" describe --always --dirty)):"
	for f in empty_page_ready_ms fleet_1000_hosts_ready_ms host_24h_ready_ms; do
		line+=" $f=$(cat "$work/$which".* | bench_field "$f" | bench_median)"
	done
	echo "$line"
done
