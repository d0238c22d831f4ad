#!/usr/bin/env bash
# ssdbench_vs_fio.sh - `schedio bench --read-only` on a file against fio, the
# independent yardstick, on the same file with the same patterns: for each
# read phase (rbps: sequential 1 MiB, rseqiops: sequential 4 KiB, rrandiops:
# random 4 KiB) fio runs with direct IO through io_uring at the queue depth
# schedio bench chose. First one whole `schedio bench --read-only` (its run
# time, model line and depths); then ROUNDS rounds of pairs, one pair per
# phase, `schedio bench --phases P --depth D` and fio P at depth D back to
# back (the same depth, so the pair compares the measurements, not two
# saturation searches on a noisy host), in alternating order
# (ABBA), so each pair sees the same host; the headline is the median of the
# pairs' fio/bench ratios. Prints every figure, the ratios and the run times.
#   tests/bench/ssdbench_vs_fio.sh   (DIR=/var/tmp SIZE=2G ROUNDS=2 FIO_SECONDS=10 by default)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
dir=${DIR:-/var/tmp}
size=${SIZE:-2G}
fio_seconds=${FIO_SECONDS:-10}
command -v fio >/dev/null || { echo "ssdbench_vs_fio: fio is missing (deploy/install-deps.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d "$dir/schedio-bench-fio.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
file=$tmp/target

# the file written once with incompressible data: reads of never-written blocks cost nothing
fio --name=fill --filename="$file" --size="$size" --rw=write --bs=1M --direct=1 --ioengine=io_uring --iodepth=16 \
	--refill_buffers --output-format=terse >/dev/null

run_bench() { # run_bench OUT.json [ARG...]
	local out=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$SCHEDIO_BIN/schedio" bench --read-only "$@" --output "$out" "$file" >"$out.line" 2>"$out.err"
	t1=$(date +%s.%N)
	echo "$t0 $t1" >"$out.time"
}

run_fio() { # run_fio OUT.json RW BS DEPTH
	local t0 t1
	t0=$(date +%s.%N)
	fio --name=cmp --filename="$file" --rw="$2" --bs="$3" --iodepth="$4" --direct=1 --ioengine=io_uring \
		--time_based --runtime="$fio_seconds" --ramp_time=1 --randrepeat=0 --norandommap \
		--output-format=json --output="$1" >/dev/null
	t1=$(date +%s.%N)
	echo "$t0 $t1" >"$1.time"
}

depth() { # depth BENCH.json PARAM
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(next(p["queue_depth"] for p in d["phases"] if p["param"]==sys.argv[2]))' "$1" "$2"
}

run_bench "$tmp/full.json"
rounds=${ROUNDS:-2}
for r in $(seq "$rounds"); do
	for spec in "rbps read 1M" "rseqiops read 4k" "rrandiops randread 4k"; do
		set -- $spec
		d=$(depth "$tmp/full.json" "$1")
		if [ $((r % 2)) -eq 1 ]; then
			run_bench "$tmp/b-$1-$r.json" --phases "$1" --depth "$d"
			run_fio "$tmp/f-$1-$r.json" "$2" "$3" "$d"
		else
			run_fio "$tmp/f-$1-$r.json" "$2" "$3" "$d"
			run_bench "$tmp/b-$1-$r.json" --phases "$1" --depth "$d"
		fi
	done
done

/usr/bin/python3 - "$tmp" "$size" "$rounds" <<'PY'
import json, statistics, sys

tmp, size, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
secs = lambda p: (lambda a, b: float(b) - float(a))(*open(p + ".time").read().split())
full = json.load(open(f"{tmp}/full.json"))
print(f"file target of {size} on {full['device']['name']} (kernel {full['kernel']})")
print(f"schedio bench --read-only (defaults): {secs(f'{tmp}/full.json'):.1f} s; "
      + open(f"{tmp}/full.json.line").read().strip())
for p in full["phases"]:
    print(f"  {p['param']:9} {p['value']:>12} depth {p['queue_depth']:3} {p['duration_s']:5.1f} s "
          f"{'steady' if p['steady'] else 'NOT steady'}")
for w in full["warnings"]:
    print(f"  warning: {w['message']}")
print(f"\npairs, {rounds} rounds (odd: bench then fio; even: fio then bench):")
print(f"{'param':10} {'round':>5} {'schedio bench':>14} {'fio':>14} {'fio/bench':>9} {'depth':>5} {'bench s':>8} {'fio s':>6}")
for param, unit in (("rbps", 1e6), ("rseqiops", 1), ("rrandiops", 1)):
    ratios = []
    for r in range(1, rounds + 1):
        b = json.load(open(f"{tmp}/b-{param}-{r}.json"))["phases"][0]
        job = json.load(open(f"{tmp}/f-{param}-{r}.json"))["jobs"][0]["read"]
        fio = job["bw_bytes"] if param == "rbps" else job["iops"]
        ratios.append(fio / b["value"])
        name = param + (" MB/s" if unit > 1 else "")
        print(f"{name:10} {r:5} {b['value'] / unit:14.1f} {fio / unit:14.1f} {ratios[-1]:9.3f} {b['queue_depth']:5} "
              f"{b['duration_s']:8.1f} {secs(f'{tmp}/f-{param}-{r}.json'):6.1f}"
              + ("" if b["steady"] else "  (bench not steady)"))
    print(f"{'':10} median fio/bench ratio {statistics.median(ratios):.3f}")
PY
