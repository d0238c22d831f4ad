#!/usr/bin/env bash
# scx_experiment.sh - the sched_ext experiment of issue 9 in a VM on sid's
# kernel: one wakeup-heavy workload (tests/vm/pingpong.c, 2 pairs passing a
# byte over pipes; a round trip is two wakeups) under EEVDF, scx_fifo and
# scx_llc (2 domains: --domains 0/1), alone ("idle") and next to a busy loop
# per vCPU ("busy"). Prints the median over REPS runs of each run's round-trip
# p50 and p99, the ratio against EEVDF measured in the same boot, and the
# workload's mean runqueue wait per switch-in from schedstat (run_delay).
# Caveat: TCG, 2 vCPUs on one host thread: absolute figures are emulator
# time, ratios between schedulers are what to read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${SCHEDIO_SOURCE:-$here/../..}
build=${SCHEDIO_BUILD:-$src/build}
[ -f "$build/bpf/scx/skip-reason.txt" ] && { echo "skipped: $(cat "$build/bpf/scx/skip-reason.txt")"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-scx-exp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -Wextra -Werror -o "$tmp/pingpong" "$src/tests/vm/pingpong.c"
reps=${REPS:-3}
"$src/tests/vm/vm-run.sh" -s sid -b "$build/bin/schedio" -b "$tmp/pingpong" -e REPS="$reps" \
	-e ROUNDS_IDLE="${ROUNDS_IDLE:-3000}" -e ROUNDS_BUSY="${ROUNDS_BUSY:-300}" -t 900 \
	"$here/scx_experiment_guest.sh" >"$tmp/out.txt"
grep '^RESULT' "$tmp/out.txt" | sed 's/[a-z0-9_]*=//g' | awk -v reps="$reps" '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $2 " " $3; p50[k] = p50[k] " " $4; p99[k] = p99[k] " " $5; rqw[k] = rqw[k] " " $6 }
END {
	printf "%-6s %-5s %12s %12s %10s %10s %14s\n", "load", "sched", "p50 (us)", "p99 (us)", "p50/eevdf", "p99/eevdf",
		"rq wait (us)"
	split("idle busy", loads, " "); split("eevdf fifo llc", scheds, " ")
	for (l = 1; l <= 2; l++) for (s = 1; s <= 3; s++) {
		k = scheds[s] " " loads[l]; b = "eevdf " loads[l]
		printf "%-6s %-5s %12.1f %12.1f %10.2f %10.2f %14.1f\n", loads[l], scheds[s], median(p50[k]), median(p99[k]),
			median(p50[k]) / median(p50[b]), median(p99[k]) / median(p99[b]), median(rqw[k])
	}
	printf "(median of %d runs each; pingpong round trips, 2 pairs; rq wait: schedstat run_delay per switch-in)\n", reps
}'
