#!/bin/bash
# vm-lib.sh - the start the agent's VM tests share, sourced by them:
# vm_test_start sets here, repo, bin (SCHEDIO_BIN, else build/bin) and build
# (bin's parent), skips (exit 77) when a tool the test needs is missing,
# fails when schedio-agent is not built, and makes $tmp, removed when the
# test exits; vm_need_scx skips a test whose sched_ext parts are missing.

# Usage: vm_test_start NAME TOOL...   ($tmp is ${TMPDIR:-/tmp}/schedio-vm-NAME.XXXXXX)
vm_test_start() {
	local name=$1 tool pkg
	shift
	here=$(cd "$(dirname "$0")" && pwd)
	repo=$(cd "$here/../.." && pwd)
	bin=${SCHEDIO_BIN:-$repo/build/bin}
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		case $tool in
		qemu-system-x86_64) pkg=qemu-system-x86 ;;
		busybox) pkg=busybox-static ;;
		*) pkg=$tool ;;
		esac
		echo "SKIP: $tool not installed (package: $pkg)"
		exit 77
	done
	[ -x "$bin/schedio-agent" ] || { echo "FAIL: no $bin/schedio-agent (build first)"; exit 1; }
	build=$(cd "$bin/.." && pwd)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-vm-$name.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
}

# Usage: vm_need_scx   (after vm_test_start) - skips when the sched_ext
# schedulers were not built, and in the sanitizer build: the sanitizer
# runtime does not run in the busybox guest, and the normal build runs the
# same code through these tests.
vm_need_scx() {
	if [ -f "$build/bpf/scx/skip-reason.txt" ]; then
		echo "SKIP: the sched_ext schedulers were not built: $(cat "$build/bpf/scx/skip-reason.txt")"
		exit 77
	fi
	if [ "${SCHEDIO_SANITIZE:-0}" = 1 ]; then
		echo "SKIP: VM tests run the normal build's binaries"
		exit 77
	fi
}
