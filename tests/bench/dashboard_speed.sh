#!/usr/bin/env bash
# dashboard_speed.sh - the dashboard's speed in Chromium against a real
# server (issue 8): fleet page with 1,000 hosts, host page over 24 h, the
# largest response, each against the empty Submit page as baseline. The
# browser test does the measuring; this runs it with the benchmark env.
set -euo pipefail
. "$(dirname "$0")/lib/bench_lib.sh"
bench_env
exec node "$SCHEDIO_SOURCE/tests/web/test_dashboard_speed.mjs"
