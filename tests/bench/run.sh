#!/usr/bin/env bash
# run.sh - runs every benchmark under tests/bench/ (each prints its figures)
# against the build in ./build. Benchmarks are not part of ctest: they take
# minutes and want a quiet machine.
#   tests/bench/run.sh [NAME...]   e.g. tests/bench/run.sh runqlat_cost
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
status=0
if [ $# -gt 0 ]; then
	scripts=()
	for n in "$@"; do scripts+=("$here/$n.sh"); done
else
	scripts=("$here"/*.sh)
fi
for s in "${scripts[@]}"; do
	[ "$(basename "$s")" = run.sh ] && continue
	echo "=== $(basename "$s" .sh)"
	bash "$s" || { echo "=== $(basename "$s" .sh) FAILED"; status=1; }
done
exit $status
