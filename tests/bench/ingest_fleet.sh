#!/usr/bin/env bash
# ingest_fleet.sh - sustained ingest as a fleet that has run for a while
# sends it, against the flattering case ingest_cost.sh measures (a fresh
# database, hosts arriving in the order the server numbered them, so the
# reports of one commit are neighbours in every per-host index and share its
# pages). For each case: the current Release build at RATE (default 5000)
# reports/s for SECONDS_PER_RUN (default 30), RUNS rounds (default 2) over
# the cases, alternating; per case the median (the lower middle run for an
# even count) of server CPU per report (utime+stime), bytes the server wrote
# per report (wchar: WAL, checkpoints and answers), ack p50/p99 and errors,
# and every run's p99. The cases:
#   fresh-ordered   fresh database, 20,000 hosts in numbering order (as ingest_cost.sh)
#   fresh-shuffled  fresh database, 20,000 hosts, each round in a new random order
#                   (loadgen --shuffle: agents whose intervals started at different times)
#   filled          a database holding FILL_HOURS (default 3) of FILL_HOSTS (default
#                   1,000) hosts at 10 s (bench_fill), continued by those hosts in order,
#                   so every host's newest index entries are on pages of their own
#   fleet           the fleet that RATE reports/s at 10 s stands for: a database holding
#                   FLEET_MINUTES (default 10) of FLEET_HOSTS (default 50,000) hosts at
#                   10 s, continued by those hosts, each round in a new random order
#                   (so a commit's reports land on unrelated pages of every per-host
#                   index and of hosts). Not in the default CASES: its fill takes ~8 min
#                   and 6.5 GB a build, and a BASE_BUILD's bench_fill must know --minutes.
# A filled database is made once a build (about 2.5 min and 2.3 GB for the default)
# and copied before each run; every run starts after a sync, so the writeback
# of that copy does not stall the server's fsyncs.
# CASES picks some of them (default the first three). BASE_BUILD names a second
# build, already built (another checkout's, e.g. main against a change, as the
# base): every case then runs
# on both, alternating, each build on a database it filled itself, and the
# summary has a line per case and build (case@base, case@build).
#   usage: tests/bench/ingest_fleet.sh [BUILD_DIR]   (default ./build-rel)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
build=${1:-$top/build-rel}
rate=${RATE:-5000}
secs=${SECONDS_PER_RUN:-30}
runs=${RUNS:-2}
fill_hosts=${FILL_HOSTS:-1000}
fill_hours=${FILL_HOURS:-3}
fill_interval_s=10
fleet_hosts=${FLEET_HOSTS:-50000}
fleet_minutes=${FLEET_MINUTES:-10}
work=$(mktemp -d /tmp/schedio-fleet.XXXXXX)
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

[ -f "$build/CMakeCache.txt" ] || cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target schedio-server loadgen bench_fill >/dev/null
loadgen=$build/bench/loadgen
cases=${CASES:-fresh-ordered fresh-shuffled filled}
builds=build
declare -A dir=([build]=$build)
if [ -n "${BASE_BUILD:-}" ]; then
	dir[base]=$(cd "$BASE_BUILD" && pwd)
	builds="base build"
fi

fill() { # CASE BUILD HOSTS SPAN...: fills CASE's database for BUILD
	local c=$1 b=$2 hosts=$3
	shift 3
	case " $cases " in *" $c "*) ;; *) return 0 ;; esac
	echo "== filling the $c database with the $b: $hosts hosts ($*) at $fill_interval_s s (bench_fill)"
	"${dir[$b]}/bench/bench_fill" --db "$work/$c-$b.db" --hosts "$hosts" "$@" --interval-s "$fill_interval_s" |
		sed -n 1p
}
for b in $builds; do
	fill filled "$b" "$fill_hosts" --hours "$fill_hours"
	fill fleet "$b" "$fleet_hosts" --minutes "$fleet_minutes"
done

run() { # CASE BUILD: prints "cpu_us wbytes p50 p99 errors"
	local c=$1 b=$2 out t0 t1 w0 w1 n args=(--hosts 20000)
	rm -f "$work"/run.db*
	case $c in
	fresh-shuffled) args+=(--shuffle) ;;
	filled)
		cp "$work/filled-$b.db" "$work/run.db"
		# bench_fill sent each host one report an interval, seq 1 upwards
		args=(--hosts "$fill_hosts" --host-prefix fill --seq-from $((fill_hours * 3600 / fill_interval_s + 1)))
		;;
	fleet)
		cp "$work/fleet-$b.db" "$work/run.db"
		args=(--hosts "$fleet_hosts" --host-prefix fill --shuffle
			--seq-from $((fleet_minutes * 60 / fill_interval_s + 1)))
		;;
	esac
	sync # the copy's (and earlier runs') writeback must not stall this run's fsyncs
	bench_server_start "$work" "${dir[$b]}/bin/schedio-server" "$work/run.db"
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	w0=$(awk '/^wchar/ {print $2}' "/proc/$pid/io")
	out=$("$loadgen" --url "$url" --rate "$rate" --duration "$secs" --concurrency 512 "${args[@]}" 2>/dev/null || true)
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	w1=$(awk '/^wchar/ {print $2}' "/proc/$pid/io")
	kill "$pid"
	wait "$pid" || true
	pid=
	echo "  $c@$b: $out" >&2
	n=$(echo "$out" | bench_field reports)
	n=$((n > 0 ? n : 1))
	echo "$(((t1 - t0) * 10000 / n)) $(((w1 - w0) / n))" \
		"$(echo "$out" | bench_field p50) $(echo "$out" | bench_field p99) $(echo "$out" | bench_field errors)"
}

echo "== $rate reports/s for $secs s, $runs rounds over: $cases (builds: $builds)"
for _ in $(seq "$runs"); do
	for c in $cases; do
		for b in $builds; do
			run "$c" "$b" >>"$work/$c@$b"
		done
	done
done
for c in $cases; do
	for b in $builds; do
		[ "$builds" = build ] && label=$c || label=$c@$b
		f=$work/$c@$b
		printf '%s cpu_per_report_us=%s written_bytes_per_report=%s ack_p50_ms=%s ack_p99_ms=%s errors=%s p99_runs=%s\n' \
			"$label" "$(cut -d' ' -f1 "$f" | bench_median)" "$(cut -d' ' -f2 "$f" | bench_median)" \
			"$(cut -d' ' -f3 "$f" | bench_median)" "$(cut -d' ' -f4 "$f" | bench_median)" \
			"$(cut -d' ' -f5 "$f" | bench_median)" "$(cut -d' ' -f4 "$f" | paste -sd/)"
	done
done
