#!/bin/bash
# iocost_cost.sh - what the agent's iocost BPF programs cost a saturating IO
# load: in a Debian 12 (6.1) VM with iocost enabled, random-read throughput
# of two cgroups with and without schedio-agent running, alternating runs;
# prints the medians and their ratio (the issue's bar: at most 2% slowdown).
#   tests/bench/iocost_cost.sh     (RUNS=5 RUN_SECONDS=4 by default)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${SCHEDIO_BIN:-$repo/build/bin}
runs=${RUNS:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-bench-iocost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/randread" "$repo/tests/vm/randread.c"
"$repo/tests/vm/vm-run.sh" -s bookworm -t 300 -b "$bin/schedio-agent" -b "$tmp/randread" -b "$(command -v bpftool)" \
	-e RUNS="$runs" -e RUN_SECONDS="${RUN_SECONDS:-4}" "$here/iocost_cost.guest" | tee "$tmp/out"
/usr/bin/python3 - "$tmp/out" "${RUN_SECONDS:-4}" <<'PY'
import statistics, sys

runs = {"with": [], "without": []}
bpf_ns = bpf_cnt = 0
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4 and f[0] == "BPF":
        bpf_ns += int(f[2])
        bpf_cnt += int(f[3])
    if len(f) == 3 and f[0] == "RUN" and f[1] in runs:
        runs[f[1]].append(int(f[2]))
if not runs["with"] or not runs["without"]:
    sys.exit("no runs")
w, wo = statistics.median(runs["with"]), statistics.median(runs["without"])
print(f"reads/s without agent: median {wo:.0f} of {runs['without']}")
print(f"reads/s with agent:    median {w:.0f} of {runs['with']}")
secs = float(sys.argv[2])
print(f"BPF programs: {bpf_cnt} runs, {bpf_ns / 1e6:.1f} ms in {len(runs['with'])} runs of {secs:.0f} s "
      f"= {100 * bpf_ns / (len(runs['with']) * secs * 1e9):.3f}% of one CPU")
print(f"ratio of the medians: {w / wo:.3f}")
# Runs alternate ABBA, so the i-th run with and the i-th without are neighbours
# in time: their ratio cancels the host's drift, which on a TCG guest is larger
# than the effect measured; the median of those ratios is the headline figure.
pairs = [a / b for a, b in zip(runs["with"], runs["without"])]
r = statistics.median(pairs)
print("paired ratios: " + " ".join(f"{x:.3f}" for x in pairs))
print(f"IOCOST_COST_RATIO={r:.3f} (median of paired with/without; slowdown {100 * (1 - r):.1f}%)")
PY
