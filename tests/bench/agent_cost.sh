#!/usr/bin/env bash
# agent_cost.sh - what the agent costs a host in production: schedio-agent in
# daemon mode at a 10 s interval, delivering to a receiver on loopback, for
# DURATION seconds (default 150, at least 120). CPU is utime+stime from
# /proc/<pid>/stat over the measured window (after a 5 s start-up), as a share
# of one core; memory is VmHWM (peak RSS) and VmRSS from /proc/<pid>/status.
# Limits (issue 6): RSS under 20 MiB, CPU under 0.1% of one core. Exits 1 if
# a limit is broken.
#   usage: tests/bench/agent_cost.sh [BUILD_DIR]   (default: build)
# The receiver is tests/integration/delivery.py's ReportReceiver, a stand-in
# for the server's ingest; the agent's side of delivery is the real one.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${SCHEDIO_BUILD:-$top/build}}
duration=${DURATION:-150}
agent=$build/bin/schedio-agent
[ -x "$agent" ] || { echo "agent_cost.sh: build first ($agent missing)" >&2; exit 1; }
work=$(mktemp -d /tmp/schedio-bench-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PYTHONPATH=$top/tests/integration python3 -c "
import time, delivery
r = delivery.ReportReceiver(port=$port).start()
while True:
    time.sleep(1)
    open('$work/count.tmp', 'w').write(str(len(r.stored)))
" &
pids+=($!)
sleep 1
"$agent" --config /dev/null --server "http://127.0.0.1:$port" --interval 10 --state-dir "$work/state" \
	2>"$work/agent.log" &
apid=$!
pids+=($apid)
hz=$(getconf CLK_TCK)
ticks() { awk '{ print $14 + $15 }' "/proc/$apid/stat"; }
sleep 5
t0=$(date +%s.%N); c0=$(ticks)
sleep "$duration"
t1=$(date +%s.%N); c1=$(ticks)
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$apid/status")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$apid/status")
delivered=$(cat "$work/count.tmp" 2>/dev/null || echo 0)
collectors=$(cd "$top" && sed -n 's/^\t&\([a-z_]*\),$/\1/p' agent/collectors.c | tr '\n' ' ')

cpu_pct=$(awk -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.4f", c / hz / (t1 - t0) * 100 }')
hwm_mib=$(awk -v k="$hwm" 'BEGIN { printf "%.1f", k / 1024 }')
rss_mib=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
printf 'agent_cost: interval 10 s, measured %.0f s, collectors: %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$collectors"
printf '  reports delivered     %s\n' "$delivered"
printf '  CPU                   %s %% of one core (%d ticks at %d Hz)   limit 0.1 %%\n' "$cpu_pct" "$((c1 - c0))" "$hz"
printf '  peak RSS (VmHWM)      %s MiB   limit 20 MiB\n' "$hwm_mib"
printf '  RSS at end (VmRSS)    %s MiB\n' "$rss_mib"
ok=$(awk -v c="$cpu_pct" -v m="$hwm" 'BEGIN { print (c < 0.1 && m < 20 * 1024) ? 1 : 0 }')
[ "$ok" = 1 ] && echo "  within limits" || { echo "  LIMIT EXCEEDED"; exit 1; }
