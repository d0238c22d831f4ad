#!/usr/bin/env bash
# agent_cost.sh - what the agent costs a host in production: schedio-agent in
# daemon mode at a 10 s interval, delivering to the real schedio-server on
# loopback (ingest token, its own SQLite file), for DURATION seconds (default
# 150, at least 120) per run, RUNS runs (default 3; the median is the
# figure). CPU is utime+stime from /proc/<pid>/stat over the measured window
# (after a 5 s start-up), as a share of one core; memory is VmHWM (peak RSS)
# and VmRSS from /proc/<pid>/status. Limits (issue 6): RSS under 20 MiB
# (VmRSS over the run; the start-up peak VmHWM, reached while libbpf parses
# the kernel's BTF, is printed next to it), CPU under 0.1% of one core, both
# on the median. Exits 1 if a limit is broken.
#   usage: tests/bench/agent_cost.sh [BUILD_DIR]   (default: build)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${SCHEDIO_BUILD:-$top/build}}
duration=${DURATION:-150}
runs=${RUNS:-3}
agent=$build/bin/schedio-agent
server=$build/bin/schedio-server
[ -x "$agent" ] && [ -x "$server" ] || { echo "agent_cost.sh: build first ($agent, $server)" >&2; exit 1; }
work=$(mktemp -d /tmp/schedio-bench-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

token=$("$server" token add --db "$work/server.db" --scope ingest bench | tail -n1)
"$server" --listen 127.0.0.1:0 --db "$work/server.db" >"$work/server.out" 2>"$work/server.log" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/server.out" && break; sleep 0.1; done
url=$(sed -n 's|^schedio-server listening on \(http://[^/]*\)/\?$|\1|p' "$work/server.out")
[ -n "$url" ] || { echo "agent_cost.sh: server did not start: $(cat "$work/server.log")" >&2; exit 1; }
hid=$(cat /etc/machine-id)
hz=$(getconf CLK_TCK)
collectors=$(cd "$top" && sed -n 's/^\t&\([a-z_]*\)_collector,$/\1/p' agent/report/collectors.c | tr '\n' ' ')

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >"$work/cpu"; : >"$work/hwm"; : >"$work/rss"
for run in $(seq "$runs"); do
	rm -rf "$work/state"
	"$agent" --config /dev/null --server "$url" --token "$token" --interval 10 --state-dir "$work/state" --verbose \
		2>"$work/agent.log" &
	apid=$!
	pids+=($apid)
	ticks() { awk '{ print $14 + $15 }' "/proc/$apid/stat"; }
	sleep 5
	t0=$(date +%s.%N); c0=$(ticks)
	sleep "$duration"
	t1=$(date +%s.%N); c1=$(ticks)
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$apid/status")
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$apid/status")
	kill "$apid"; wait "$apid" || true
	cpu=$(awk -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.4f", c / hz / (t1 - t0) * 100 }')
	echo "$cpu" >>"$work/cpu"; echo "$hwm" >>"$work/hwm"; echo "$rss" >>"$work/rss"
	printf '  run %d: CPU %s %% (%d ticks in %.0f s), VmHWM %.1f MiB, VmRSS %.1f MiB\n' "$run" "$cpu" \
		"$((c1 - c0))" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(awk -v k="$hwm" 'BEGIN{print k/1024}')" \
		"$(awk -v k="$rss" 'BEGIN{print k/1024}')"
	grep -i "collector\|bpf\|iocost\|runqlat\|attached" "$work/agent.log" | head -5 | sed 's/^/    agent: /' || true
done
delivered=$(curl -sf "$url/api/v1/hosts/$hid/reports?from=0&to=4102444800000" | jq '.reports | length' || echo 0)

cpu_pct=$(median <"$work/cpu")
hwm_mib=$(awk -v k="$(median <"$work/hwm")" 'BEGIN { printf "%.1f", k / 1024 }')
rss=$(median <"$work/rss")
rss_mib=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
printf 'agent_cost: interval 10 s, %d runs of %d s, median; collectors: %s\n' "$runs" "$duration" "$collectors"
printf '  reports stored by schedio-server  %s\n' "$delivered"
printf '  CPU                   %s %% of one core   limit 0.1 %%\n' "$cpu_pct"
printf '  RSS at end (VmRSS)    %s MiB   limit 20 MiB\n' "$rss_mib"
printf '  start-up peak (VmHWM) %s MiB\n' "$hwm_mib"
ok=$(awk -v c="$cpu_pct" -v m="$rss" 'BEGIN { print (c < 0.1 && m < 20 * 1024) ? 1 : 0 }')
[ "$ok" = 1 ] && echo "  within limits" || { echo "  LIMIT EXCEEDED"; exit 1; }
