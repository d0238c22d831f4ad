#!/usr/bin/env bash
# dashboard_speed.sh - the dashboard's speed in Chromium against a real
# server (issue 8): fleet page with 1,000 hosts, host page over 24 h, the
# largest response, each against the empty Submit page as baseline. The
# browser test does the measuring; this runs it with the benchmark env.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export SCHEDIO_SOURCE=${SCHEDIO_SOURCE:-$(cd "$here/../.." && pwd)}
export SCHEDIO_BUILD=${SCHEDIO_BUILD:-$SCHEDIO_SOURCE/build}
export SCHEDIO_BIN=${SCHEDIO_BIN:-$SCHEDIO_BUILD/bin}
export SCHEDIO_DATA=${SCHEDIO_DATA:-$SCHEDIO_SOURCE/../shared/data}
exec node "$SCHEDIO_SOURCE/tests/web/test_dashboard_speed.mjs"
