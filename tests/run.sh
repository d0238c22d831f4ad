#!/usr/bin/env bash
# run.sh - the README's second command and all that CI runs: installs what is
# needed, builds the normal and the sanitizer (ASan+UBSan) configuration, and
# runs the whole suite through ctest in both. Exits non-zero on any failure.
#   SCHEDIO_TEST_LABELS  ctest -L regex to run a subset (default: everything)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$(id -u)" -ne 0 ]; then
	echo "tests/run.sh: run as root: BPF, cgroup and VM tests need it" >&2
	exit 1
fi
deploy/install-deps.sh
start=$(date +%s)
labels=()
[ -n "${SCHEDIO_TEST_LABELS:-}" ] && labels=(-L "$SCHEDIO_TEST_LABELS")

status=0
deploy/build.sh build
(cd build && ctest --output-on-failure --timeout 900 "${labels[@]}") || status=1

# The sanitizer build runs everything that exercises our own C code; the VM
# and browser suites run once, above (they test the same code in a guest or
# through Chromium, where the sanitizer adds nothing but minutes).
deploy/build.sh build-asan -DSCHEDIO_SANITIZE=ON
(cd build-asan && ctest --output-on-failure --timeout 900 -LE 'vm|web' "${labels[@]}") || status=1

echo "tests/run.sh: finished in $(( $(date +%s) - start )) s, status $status"
exit $status
