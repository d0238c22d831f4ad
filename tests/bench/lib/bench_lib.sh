#!/usr/bin/env bash
# bench_lib.sh - what the benchmark scripts share, sourced by them (kept out
# of tests/bench/ itself, whose *.sh run.sh runs as benchmarks).

# Exports SCHEDIO_SOURCE, SCHEDIO_BUILD, SCHEDIO_BIN and SCHEDIO_DATA, each
# kept when already set, else for this checkout and its ./build.
bench_env() {
	export SCHEDIO_SOURCE=${SCHEDIO_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
	export SCHEDIO_BUILD=${SCHEDIO_BUILD:-$SCHEDIO_SOURCE/build}
	export SCHEDIO_BIN=${SCHEDIO_BIN:-$SCHEDIO_BUILD/bin}
	export SCHEDIO_DATA=${SCHEDIO_DATA:-$SCHEDIO_SOURCE/../shared/data}
}

# Usage: bench_server_start WORK SERVER DB [ARGS...]
# Starts SERVER (a schedio-server binary) on a free loopback port with open
# ingest, its output in WORK; sets pid and url, or exits 1 if it does not start.
bench_server_start() {
	local work=$1 server=$2 db=$3 out
	shift 3
	out=$(mktemp "$work/server.XXXXXX") # a fresh file: never read the previous server's line
	"$server" --listen 127.0.0.1:0 --db "$db" --open-ingest "$@" >"$out" 2>"$work/server.err" &
	pid=$!
	for _ in $(seq 100); do
		url=$(sed -n 's|^schedio-server listening on \(http://[^/]*\)/$|\1|p' "$out")
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	echo "bench: server did not start: $(cat "$work/server.err")" >&2
	exit 1
}

# Usage: bench_build_rel WORK TARGET...
# Sets rel to this tree's Release build ($SCHEDIO_BUILD_REL, default
# ./build-rel), configures it if missing and builds TARGETs (logs in WORK).
bench_build_rel() {
	local work=$1
	shift
	rel=${SCHEDIO_BUILD_REL:-$SCHEDIO_SOURCE/build-rel}
	[ -f "$rel/CMakeCache.txt" ] ||
		cmake -S "$SCHEDIO_SOURCE" -B "$rel" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
	cmake --build "$rel" -j "$(nproc)" --target "$@" >"$work/build.log"
}

# Usage: bench_server_stop   stops the server bench_server_start started, if any, and clears pid.
bench_server_stop() {
	if [ -n "${pid:-}" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	pid=
}

# Usage: bench_baseline_build REV DIR TARGET...
# Builds TARGETs of git revision REV of this checkout (Release) under DIR: the
# source is extracted and configured once, later calls only build what is
# missing. Prints the build folder. The baseline for issue 18's figures is the
# first commit the Release build compiles on (SCHEDIO_BASELINE overrides), so
# "before" and "after" are built alike and measured in the same run.
bench_baseline_build() {
	local rev=$1 dir=$2 src
	shift 2
	src=$dir/src-$rev
	if [ ! -f "$dir/build-$rev/.configured" ]; then
		rm -rf "$src" "$dir/build-$rev"
		mkdir -p "$src"
		git -C "$SCHEDIO_SOURCE" archive "$rev" | tar -x -C "$src"
		cmake -S "$src" -B "$dir/build-$rev" -DCMAKE_BUILD_TYPE=Release >"$dir/build-$rev.log" 2>&1 ||
			{ echo "bench: baseline $rev did not configure, see $dir/build-$rev.log" >&2; return 1; }
		touch "$dir/build-$rev/.configured"
	fi
	cmake --build "$dir/build-$rev" -j "$(nproc)" --target "$@" >>"$dir/build-$rev.log" 2>&1 ||
		{ echo "bench: baseline $rev did not build, see $dir/build-$rev.log" >&2; return 1; }
	echo "$dir/build-$rev"
}

# The revision issue 18's figures compare against (before any of its changes).
BENCH_BASELINE_REV=${SCHEDIO_BASELINE:-9933161}

# Usage: ... | bench_field NAME   prints the number after NAME= on each line.
bench_field() { sed -n "s/\(^\|.* \)$1=\([0-9.]*\).*/\2/p"; }

# Usage: ... | bench_median   the median of numbers, one a line (the lower
# middle one for an even count).
bench_median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# Usage: bench_thread_ticks PID [NAME]
# Prints "NAME TICKS" per thread name of process PID (utime+stime summed over
# the threads that share a name, e.g. MHD-worker), or with NAME only the
# ticks of the threads so named (0 if none), read with shell builtins only so
# that reading forks nothing beside the process it measures.
bench_thread_ticks() {
	local t name st f
	local -A sum=()
	for t in /proc/"$1"/task/*; do
		# a thread may end between the listing and the reads
		{ read -r name <"$t/comm" && read -r st <"$t/stat"; } 2>/dev/null || continue
		read -r -a f <<<"${st##*) }" # the fields after "(comm)": f[11] utime, f[12] stime
		name=${name// /_}
		sum[$name]=$((${sum[$name]:-0} + f[11] + f[12]))
	done
	if [ $# -gt 1 ]; then
		echo "${sum[$2]:-0}"
		return
	fi
	for name in "${!sum[@]}"; do
		echo "$name ${sum[$name]}"
	done
}
