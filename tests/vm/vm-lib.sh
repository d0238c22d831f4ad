#!/bin/bash
# vm-lib.sh - the start the agent's VM tests share, sourced by them:
# vm_test_start sets here, repo and bin (SCHEDIO_BIN, else build/bin), skips
# (exit 77) when a tool the test needs is missing, fails when schedio-agent
# is not built, and makes $tmp, removed when the test exits.

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
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-vm-$name.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
}
