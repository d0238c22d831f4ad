#!/bin/bash
# fetch-btf.sh - get a Debian kernel's BTF (/sys/kernel/btf/vmlinux as the
# booted kernel exposes it), e.g. to generate sched_ext types for vmlinux.h
# with `bpftool btf dump file OUT_FILE format c`.
#
# Usage: fetch-btf.sh SUITE OUT_FILE
# Boots SUITE's kernel (see vm-run.sh) once and keeps the BTF in the cache
# ($SCHEDIO_VM_CACHE, default <repo>/.cache/vm) next to that kernel; later
# runs just copy it. Prints the kernel version.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${SCHEDIO_VM_CACHE:-$here/../../.cache/vm}

[ $# -eq 2 ] || { echo "usage: fetch-btf.sh bookworm|sid OUT_FILE" >&2; exit 2; }
suite=$1 out=$2
kdir=$("$here/fetch-kernel.sh" "$suite" "$cache")
btf=$kdir/vmlinux.btf
if [ ! -s "$btf" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-btf.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	"$here/vm-run.sh" -k "$kdir" -o "$tmp" "$here/guest/copy_btf.sh" >&2
	[ -s "$tmp/vmlinux.btf" ] || { echo "fetch-btf: the guest left no BTF" >&2; exit 1; }
	mv "$tmp/vmlinux.btf" "$btf"
	chmod 644 "$btf"
fi
cp "$btf" "$out"
cat "$kdir/version"
