#!/bin/bash
# make-initramfs.sh - build the VM test bed's initramfs (an uncompressed cpio).
#
# Usage: make-initramfs.sh KERNEL_DIR OUT_CPIO SCRIPT [-m MODULE]... [-b ELF]... [-f FILE]...
#   KERNEL_DIR  a dir printed by fetch-kernel.sh
#   SCRIPT      the guest script, run as /vm/script.sh
#   -m MODULE   load this module (and its modules.dep dependencies) at boot;
#               virtio_pci and virtio_blk always are, unless builtin
#   -b ELF      host program, on the guest's PATH with its shared libraries
#               and dynamic loader (as ldd finds them)
#   -f FILE     data file, copied into /vm (the script's working directory)
#   -e NAME=VAL environment variable for the guest script
#   -i INIT     use INIT as /init instead of guest-init.sh (guest-init-systemd.sh
#               boots a root disk's systemd and runs SCRIPT there)
set -euo pipefail

die() { echo "make-initramfs: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: make-initramfs.sh KERNEL_DIR OUT_CPIO SCRIPT [-m MODULE]... [-b ELF]... [-f FILE]... [-e NAME=VAL]..."
kdir=$1 out=$2 script=$3
shift 3
modules=(virtio_pci virtio_blk)
bins=()
files=()
envs=()
init=$(dirname "$0")/guest-init.sh
while [ $# -gt 0 ]; do
	case $1 in
	-m) modules+=("$2") ;;
	-b) bins+=("$2") ;;
	-f) files+=("$2") ;;
	-e) envs+=("$2") ;;
	-i) init=$2 ;;
	*) die "unknown option '$1'" ;;
	esac
	shift 2
done

ver=$(cat "$kdir/version")
moddir=$kdir/lib/modules/$ver
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,usr/local/bin,vm,proc,sys,dev,tmp,out,root}

# Copies an ELF and everything ldd says it needs, at the same paths.
copy_elf() {
	local elf=$1 dest=$2 lib
	cp -L "$elf" "$stage$dest"
	for lib in $(ldd "$elf" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

busybox=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
copy_elf "$busybox" /bin/busybox
ln -s busybox "$stage/bin/sh"
for b in "${bins[@]}"; do
	[ -f "$b" ] || die "no such program: $b"
	copy_elf "$b" "/usr/local/bin/$(basename "$b")"
done
for f in "${files[@]}"; do
	[ -f "$f" ] || die "no such file: $f"
	cp -L "$f" "$stage/vm/"
done
for e in "${envs[@]}"; do
	[[ $e == [A-Za-z_]*=* ]] || die "bad environment assignment '$e'"
	printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
done >"$stage/vm/env"
cp "$init" "$stage/init"
cp "$script" "$stage/vm/script.sh"
chmod +x "$stage/init"

# Load order: every module after its dependencies (modules.dep lists the full
# closure, but not in a load order busybox insmod could follow).
declare -A seen=()
load=()
add_module() {
	local path=$1 dep
	[ -z "${seen[$path]:-}" ] || return 0
	seen[$path]=1
	for dep in $(awk -v m="$path:" '$1 == m { $1 = ""; print }' "$moddir/modules.dep"); do
		add_module "$dep"
	done
	load+=("$path")
}
for m in "${modules[@]}"; do
	m=${m//-/_}
	if grep -qE "/${m}\.ko\$" "$moddir/modules.builtin"; then
		continue
	fi
	path=$(awk -v m="$m" '{ p = $1; sub(/:$/, "", p); n = p; sub(/.*\//, "", n); gsub(/-/, "_", n)
		if (n == m ".ko") { print p; exit } }' "$moddir/modules.dep")
	[ -n "$path" ] || die "module $m is neither builtin nor in $moddir"
	add_module "$path"
done
for path in "${load[@]}"; do
	mkdir -p "$stage/lib/modules/$(dirname "$path")"
	cp "$moddir/$path" "$stage/lib/modules/$path"
done
printf '%s\n' "${load[@]}" >"$stage/vm/modules.load"

(cd "$stage" && find . | busybox cpio -o -H newc 2>/dev/null) >"$out"
