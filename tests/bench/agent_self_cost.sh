#!/usr/bin/env bash
# agent_self_cost.sh - what reporting the agent's own cost costs (issue 17):
# five agents side by side for DURATION s (default 120) after a 5 s start-up,
# each printing its reports (--stdout): the default (agent_cost collector on,
# BPF run-time statistics 1 s of every 10 s), the collector on with
# statistics never sampled (bpf_stats_sample_ms = 0), and the collector left
# out (--disable agent_cost). Prints each agent's on-CPU time over the window
# (the sum of /proc/PID/task/*/schedstat, ns) as a share of one core, and the
# differences: the collector's own work (the fd scan and counter reads) and
# the sampling (each window takes and drops BPF_ENABLE_STATS, which patches
# the kernel's static key). Then two agents with no BPF collectors, one
# sampling 100 ms of every second and one never: their difference over the
# number of windows is the cost of one on/off pair. Run alone on a quiet
# machine; the figures are noisy.
#   tests/bench/agent_self_cost.sh [BUILD_DIR]   (DURATION, INTERVAL override)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${SCHEDIO_BUILD:-$top/build}}
secs=${DURATION:-120}
interval=${INTERVAL:-10}
agent=$build/bin/schedio-agent
[ "$(id -u)" -eq 0 ] || { echo "agent_self_cost.sh: needs root (BPF)" >&2; exit 1; }
[ -x "$agent" ] || { echo "agent_self_cost.sh: build first ($agent)" >&2; exit 1; }
work=$(mktemp -d /tmp/schedio-selfcost-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

printf 'bpf_stats_sample_ms = 0\n' >"$work/nosample.conf"
printf 'bpf_stats_sample_ms = 100\nbpf_stats_period = 1\n' >"$work/fast.conf"
start() { "$agent" "$@" --stdout >/dev/null 2>>"$work/agent.log" & pids+=($!); }
start --config /dev/null --interval "$interval"
start --config "$work/nosample.conf" --interval "$interval"
start --config /dev/null --interval "$interval" --disable agent_cost
start --config "$work/fast.conf" --interval "$interval" --disable runqlat,iocost
start --config "$work/nosample.conf" --interval "$interval" --disable runqlat,iocost
oncpu() { local t=0 ns _; for f in /proc/"$1"/task/*/schedstat; do read -r ns _ <"$f"; t=$((t + ns)); done; echo "$t"; }
sleep 5
declare -a c0 c1
for i in 0 1 2 3 4; do c0[i]=$(oncpu "${pids[i]}"); done
sleep "$secs"
for i in 0 1 2 3 4; do c1[i]=$(oncpu "${pids[i]}"); done
d() { echo $((c1[$1] - c0[$1])); }
share() { awk -v ns="$1" -v s="$secs" 'BEGIN { printf "%.4f", 100 * ns / 1e9 / s }'; }
printf 'agent --interval %s, %s s, on-CPU time (schedstat) as %% of one core:\n' "$interval" "$secs"
printf '  default (statistics 1 s of every 10 s)  %8.1f ms  %s %%\n' "$(awk -v n="$(d 0)" 'BEGIN{print n/1e6}')" "$(share "$(d 0)")"
printf '  agent_cost, never sampling              %8.1f ms  %s %%\n' "$(awk -v n="$(d 1)" 'BEGIN{print n/1e6}')" "$(share "$(d 1)")"
printf '  --disable agent_cost                    %8.1f ms  %s %%\n' "$(awk -v n="$(d 2)" 'BEGIN{print n/1e6}')" "$(share "$(d 2)")"
printf '  no BPF collectors, 100 ms of every 1 s  %8.1f ms\n' "$(awk -v n="$(d 3)" 'BEGIN{print n/1e6}')"
printf '  no BPF collectors, never sampling       %8.1f ms\n' "$(awk -v n="$(d 4)" 'BEGIN{print n/1e6}')"
printf '  the collector: %s %% of a core; its sampling: %s %%; one on/off pair of the statistics: %.2f ms\n' \
	"$(share $(($(d 1) - $(d 2))))" "$(share $(($(d 0) - $(d 1))))" \
	"$(awk -v a="$(d 3)" -v b="$(d 4)" -v n="$secs" 'BEGIN { print (a - b) / n / 1e6 }')"
