#!/usr/bin/env bash
# ingest_threads.sh - where a report's server CPU goes, by thread, at several
# rates (issue 18): the open-loop generator sends realistic reports at each
# of RATES (default "1000 2500 5000") reports/s for SECONDS_PER_RUN (default
# 20) s from HOSTS (default 20,000) hosts to a Release server on a fresh SQLite
# database, RUNS rounds over the rates (default 3). Each run reads every
# server thread's utime+stime before and after; the table gives per rate the
# median over the runs of each thread name's µs of CPU per report (the HTTP
# threads, the ingest writer, the rollup worker, the checkpointer, the
# shedder) and of their total. What falls as the rate rises is cost per
# wake-up and per commit that more reports share. With WARM_S (default 0)
# the load runs that many seconds before the ticks are read, and the window's
# reports are RATE x SECONDS_PER_RUN (the generator is open loop): the steady
# state, without a fresh server's first page faults and cache fills. (Not the
# accepted counter on /metrics: rendering 5,000 hosts' gauges costs a second
# of CPU, which would land in the window.) VARIANTS, server arguments sets
# separated by ';' (e.g. "--threads 1;--threads 2"), runs each set in turn at
# every rate of every round, so that the sets share the machine's mood; the
# table then has a row per rate and set, with the median ack p99 beside it.
#   usage: tests/bench/ingest_threads.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
rates=${RATES:-1000 2500 5000}
secs=${SECONDS_PER_RUN:-20}
runs=${RUNS:-3}
hosts=${HOSTS:-20000}
warm=${WARM_S:-0}
IFS=';' read -ra variants <<<"${VARIANTS:-}"
[ ${#variants[@]} -gt 0 ] || variants=("")
export SCHEDIO_BUILD_REL=${1:-${SCHEDIO_BUILD_REL:-$top/build-rel}}
work=$(mktemp -d /tmp/schedio-threads.XXXXXX)
pid=
trap 'bench_server_stop; rm -rf "$work"' EXIT
bench_build_rel "$work" schedio-server loadgen
hz=$(getconf CLK_TCK)

# one run at rate $1 with server arguments set $2 (an index of variants):
# appends "RATE/SET THREAD US_PER_REPORT" lines to $work/figures
one_run() {
	local r=$1 v=$2 out n
	rm -f "$work"/run.db*
	# shellcheck disable=SC2086 # a set is several words
	bench_server_start "$work" "$rel/bin/schedio-server" "$work/run.db" --blob-dict-grace 0 ${variants[$v]}
	if [ "$warm" -gt 0 ]; then
		"$rel/bench/loadgen" --url "$url" --rate "$r" --duration $((warm + secs)) --hosts "$hosts" \
			--concurrency 512 >"$work/lg.out" 2>&1 &
		lg=$!
		sleep "$warm"
		bench_thread_ticks "$pid" | sort >"$work/t0"
		sleep "$secs"
		bench_thread_ticks "$pid" | sort >"$work/t1"
		wait "$lg" || true
		out=$(cat "$work/lg.out")
		n=$((r * secs))
	else
		bench_thread_ticks "$pid" | sort >"$work/t0"
		out=$("$rel/bench/loadgen" --url "$url" --rate "$r" --duration "$secs" --hosts "$hosts" \
			--concurrency 512 || true)
		bench_thread_ticks "$pid" | sort >"$work/t1"
		n=$(echo "$out" | bench_field reports)
	fi
	bench_server_stop
	echo "  $r/s ${variants[$v]:-default}: $out" >&2
	[ "${n:-0}" -gt 0 ] || {
		echo "bench: no report was sent: $out" >&2
		exit 1
	}
	echo "$r/$v p99 $(echo "$out" | bench_field p99)" >>"$work/p99"
	join -a 2 -e 0 -o 0,1.2,2.2 "$work/t0" "$work/t1" |
		awk -v r="$r/$v" -v n="$n" -v hz="$hz" '{ us = ($3 - $2) * 1e6 / hz / n; tot += us
			printf "%s %s %.1f\n", r, $1, us } END { printf "%s total %.1f\n", r, tot }' >>"$work/figures"
}

echo "== server CPU per report by thread: rates $rates, $secs s measured after $warm s, $runs rounds, $hosts hosts"
: >"$work/figures"
: >"$work/p99"
for _ in $(seq "$runs"); do
	for r in $rates; do
		for v in "${!variants[@]}"; do
			one_run "$r" "$v"
		done
	done
done
printf '%-8s %-20s' "rate/s" "server arguments"
threads=$(awk '$2 != "total" {print $2}' "$work/figures" | sort -u)
for t in $threads total "p99(ms)"; do printf ' %14s' "$t"; done
echo
for r in $rates; do
	for v in "${!variants[@]}"; do
		printf '%-8s %-20s' "$r" "${variants[$v]:-default}"
		for t in $threads total p99; do
			printf ' %14s' "$(cat "$work/figures" "$work/p99" |
				awk -v k="$r/$v" -v t="$t" '$1 == k && $2 == t {print $3}' | bench_median)"
		done
		echo
	done
done
echo "(µs of CPU per report and ack p99, median of $runs runs; each run on a fresh database)"
