#!/usr/bin/env bash
# run.sh - builds the libFuzzer targets (clang, ASan+UBSan) and fuzzes each
# for a while, starting from its corpus. New crashers land in
# build-fuzz/crashes/; add them to the target's corpus once fixed, so the
# replay in every ctest run keeps them fixed.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
CC=clang "$top/deploy/build.sh" build-fuzz -DSCHEDIO_FUZZ=ON -DSCHEDIO_WEB=OFF
mkdir -p "$top/build-fuzz/crashes"
status=0
for bin in "$top"/build-fuzz/fuzz/fuzz_*; do
	name=$(basename "$bin")
	work=$(mktemp -d)
	cp -r "$top/tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
	echo "== $name: ${secs}s"
	"$bin" -max_total_time="$secs" -max_len=1048576 -artifact_prefix="$top/build-fuzz/crashes/$name-" "$work" \
		2>&1 | tail -n 3 || status=1
	rm -rf "$work"
done
exit $status
