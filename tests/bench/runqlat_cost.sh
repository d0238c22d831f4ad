#!/usr/bin/env bash
# runqlat_cost.sh - what runqueue latency costs (issue 3's "Cost" criterion).
#
# Under a context-switch storm (stress-ng --switch) it attaches schedio's
# runqlat programs and the minimal runqlat yardstick at the same time and
# prints the BPF time per context switch of each (kernel.bpf_stats_enabled,
# restored afterwards) and their ratio, median of RUNS runs; the same for
# per-task state in a pid hash instead of task storage, and for the raw_tp
# fallback. Then it runs the agent at a 10 s interval and prints its user
# and system CPU and its RSS, and the BPF map memory for 256 CPUs and 4,096
# cgroups. Exits non-zero if a bound is broken.
#
#   tests/bench/runqlat_cost.sh [BUILD_DIR]   (default $SCHEDIO_BUILD or ./build;
#   RUNS, SECONDS_PER_RUN and AGENT_SECONDS override the defaults 5, 8, 60)
set -euo pipefail
build=${1:-${SCHEDIO_BUILD:-build}}
runs=${RUNS:-5}
seconds=${SECONDS_PER_RUN:-8}
agent_seconds=${AGENT_SECONDS:-60}
bench=$build/bench/runqlat_bench
agent=$build/bin/schedio-agent

if [ "$(id -u)" -ne 0 ]; then
	echo "runqlat_cost.sh: needs root (BPF, bpf_stats)" >&2
	exit 1
fi
for f in "$bench" "$agent"; do
	[ -x "$f" ] || { echo "runqlat_cost.sh: $f not built (cmake --build $build)" >&2; exit 1; }
done
command -v stress-ng >/dev/null || { echo "runqlat_cost.sh: stress-ng not installed" >&2; exit 1; }

prev_stats=$(sysctl -n kernel.bpf_stats_enabled)
stress_pid=
agent_pid=
tmp=$(mktemp -d)
cleanup() {
	[ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null && wait "$stress_pid" 2>/dev/null
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$prev_stats"
	rm -rf "$tmp"
}
trap cleanup EXIT
sysctl -qw kernel.bpf_stats_enabled=1

stress-ng --switch "$(nproc)" --timeout 0 >/dev/null 2>&1 &
stress_pid=$!
sleep 1

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }

status=0
for variant in "task_storage:" "pid_hash:--pid-hash" "raw_tp:--raw-tp"; do
	name=${variant%%:*}
	flag=${variant#*:}
	: >"$tmp/$name"
	for _ in $(seq "$runs"); do
		# shellcheck disable=SC2086
		"$bench" --seconds "$seconds" $flag >>"$tmp/$name"
	done
	ours=$(field ours_ns_per_switch <"$tmp/$name" | median)
	base=$(field baseline_ns_per_switch <"$tmp/$name" | median)
	ratio=$(field ratio <"$tmp/$name" | median)
	sw=$(field switches <"$tmp/$name" | median)
	printf 'bpf %-13s ours %6.1f ns/switch  minimal runqlat %6.1f ns/switch  ratio %.3f  (median of %d x %d s, %.0f switches/run)\n' \
		"$name" "$ours" "$base" "$ratio" "$runs" "$seconds" "$sw"
	if [ "$name" = task_storage ] && awk -v r="$ratio" 'BEGIN { exit !(r > 1.0) }'; then
		echo "FAIL: our programs cost more per switch than the minimal runqlat" >&2
		status=1
	fi
done
map_here=$(field map_bytes_here <"$tmp/task_storage" | head -n1)
map_max=$(field map_bytes_256cpu_4096cg <"$tmp/task_storage" | head -n1)

# The agent at its production interval, under the same storm.
"$agent" --interval 10 --stdout >/dev/null 2>"$tmp/agent.err" &
agent_pid=$!
sleep 3
read -r ut0 st0 < <(awk '{ print $14, $15 }' "/proc/$agent_pid/stat")
read -r ns0 _ < "/proc/$agent_pid/schedstat"
sleep "$agent_seconds"
read -r ut1 st1 < <(awk '{ print $14, $15 }' "/proc/$agent_pid/stat")
read -r ns1 _ < "/proc/$agent_pid/schedstat"
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$agent_pid/status")
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$agent_pid/status")
kill "$agent_pid"
wait "$agent_pid" || true
agent_pid=
hz=$(getconf CLK_TCK)
user_pct=$(awk -v t=$((ut1 - ut0)) -v hz="$hz" -v s="$agent_seconds" 'BEGIN { printf "%.4f", 100 * t / hz / s }')
sys_pct=$(awk -v t=$((st1 - st0)) -v hz="$hz" -v s="$agent_seconds" 'BEGIN { printf "%.4f", 100 * t / hz / s }')
total_pct=$(awk -v ns=$((ns1 - ns0)) -v s="$agent_seconds" 'BEGIN { printf "%.4f", 100 * ns / 1e9 / s }')
# utime/stime tick at 1/CLK_TCK; schedstat's on-CPU time is in ns (user + system).
printf 'agent  user CPU %s%% of a core, system %s%% (clock ticks), user+system %s%% (schedstat ns), over %d s at --interval 10\n' \
	"$user_pct" "$sys_pct" "$total_pct" "$agent_seconds"
printf 'agent  RSS %d KiB (peak %d KiB, while libbpf parses the kernel BTF at load)\n' "$rss" "$hwm"
printf 'maps   %.1f MiB on this host (%d CPUs), %.1f MiB computed for 256 CPUs and 4096 cgroups (+ ~%d B task storage per task)\n' \
	"$(awk -v b="$map_here" 'BEGIN { print b / 1048576 }')" "$(nproc)" "$(awk -v b="$map_max" 'BEGIN { print b / 1048576 }')" 64

awk -v p="$user_pct" 'BEGIN { exit !(p >= 0.1) }' && { echo "FAIL: agent user CPU >= 0.1% of a core" >&2; status=1; }
[ "$rss" -ge $((20 * 1024)) ] && { echo "FAIL: agent RSS >= 20 MiB" >&2; status=1; }
[ "$map_max" -ge $((64 * 1024 * 1024)) ] && { echo "FAIL: map memory >= 64 MiB" >&2; status=1; }
exit $status
