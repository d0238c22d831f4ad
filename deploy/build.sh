#!/usr/bin/env bash
# build.sh - configures and builds schedio into a build folder.
# Usage: deploy/build.sh [BUILD_DIR [CMAKE_OPTION...]] (default: build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}
shift || true
case "$dir" in /*) ;; *) dir="$top/$dir" ;; esac
mkdir -p "$dir"
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir/configure.log" 2>&1 ||
	{ cat "$dir/configure.log" >&2; exit 1; }
cmake --build "$dir" -j "$(nproc)"
