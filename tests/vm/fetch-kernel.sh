#!/bin/bash
# fetch-kernel.sh - download and unpack a Debian kernel for the VM test bed,
# without installing it: `apt-get download` into a cache folder, `dpkg-deb -x`.
#
# Usage: fetch-kernel.sh SUITE CACHE_DIR
#   SUITE  bookworm  Debian 12's kernel (6.1)
#          sid       the kernel of Debian sid (7.x, CONFIG_SCHED_CLASS_EXT=y)
#          The machine's own release comes from its apt lists; any other suite
#          from a private apt sources file and lists dir in CACHE_DIR, so the
#          machine's apt configuration is never changed.
# Prints the unpacked kernel dir: vmlinuz, config, version, lib/modules/<ver>,
# and vmlinux (uncompressed, for a faster boot) when the kernel has PVH.
# A second run with the cache present does nothing (delete CACHE_DIR/kernel-SUITE
# to take a newer kernel). Concurrent runs wait for each other.
# Env: SCHEDIO_DEBIAN_MIRROR overrides the mirror for other suites (default:
# the mirror that serves the machine's own Debian release in its apt sources).
set -euo pipefail

die() { echo "fetch-kernel: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: fetch-kernel.sh bookworm|sid CACHE_DIR"
suite=$1
cache=$2
[[ $suite =~ ^[a-z][a-z0-9-]*$ ]] || die "bad suite name '$suite'"

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
root=$cache/kernel-$suite
[ -f "$root/.complete" ] && { echo "$root"; exit 0; }
exec 9>"$cache/.fetch-$suite.lock"
flock 9
[ -f "$root/.complete" ] && { echo "$root"; exit 0; }

debs=$cache/debs-$suite
mkdir -p "$debs"
. "$(dirname "$0")/debian-apt.sh"
debian_apt_setup "$suite" "$cache"

# linux-image-amd64 is a metapackage; the kernel is its linux-image-<ver>-amd64 dependency.
pkg=$(apt-cache "${apt_opts[@]}" depends linux-image-amd64 |
	awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9].*-amd64$/ { print $2; exit }')
[ -n "$pkg" ] || die "cannot resolve linux-image-amd64 in $suite"

# Newer kernels split the image into linux-{base,binary,modules}-<kver> packages.
kver=${pkg#linux-image-}
pkgs=("$pkg")
for dep in $(apt-cache "${apt_opts[@]}" depends "$pkg" | awk '$1 == "Depends:" { print $2 }'); do
	case $dep in linux-*-"$kver") pkgs+=("$dep") ;; esac
done

tmp=$(mktemp -d "$cache/.unpack-$suite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for p in "${pkgs[@]}"; do
	(cd "$debs" && apt-get "${apt_opts[@]}" -qq download "$p" >&2) || die "apt-get download $p failed"
	dpkg-deb -x "$(ls -t "$debs"/"$p"_*.deb | head -n1)" "$tmp"
done

# Newer packages ship modules under usr/lib; expose lib/modules either way.
if [ ! -d "$tmp/lib/modules" ] && [ -d "$tmp/usr/lib/modules" ]; then
	ln -s usr/lib "$tmp/lib"
fi
ver=$(ls "$tmp/lib/modules" | head -n1)
[ -n "$ver" ] || die "no lib/modules in ${pkgs[*]}"
# vmlinuz and config live in boot/ (6.1) or next to the modules (7.x).
for f in "boot/vmlinuz-$ver" "lib/modules/$ver/vmlinuz"; do
	[ -f "$tmp/$f" ] && ln -s "$f" "$tmp/vmlinuz"
done
for f in "boot/config-$ver" "lib/modules/$ver/config"; do
	[ -f "$tmp/$f" ] && ln -s "$f" "$tmp/config"
done
[ -e "$tmp/vmlinuz" ] && [ -e "$tmp/config" ] || die "no vmlinuz/config in ${pkgs[*]}"
# The package ships no modules.dep (depmod makes it on install). Modules are
# stored uncompressed so the guest's busybox insmod can load them.
find "$tmp/lib/modules/$ver" -name '*.ko.xz' -exec xz -d {} +
find "$tmp/lib/modules/$ver" -name '*.ko.zst' -exec zstd -q -d --rm {} +
busybox depmod -b "$tmp" "$ver"
# Under TCG, decompressing bzImage takes ~4 s of each boot; qemu boots the
# uncompressed ELF vmlinux directly (PVH entry), so keep one when we can.
extract_vmlinux() {
	local magic=$1 unpack=$2 off
	for off in $(LC_ALL=C grep -obUaP "$magic" "$tmp/vmlinuz" | cut -d: -f1 | head -n 3); do
		tail -c +$((off + 1)) "$tmp/vmlinuz" | $unpack >"$tmp/vmlinux" 2>/dev/null || true
		[ "$(head -c 4 "$tmp/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && return 0
	done
	rm -f "$tmp/vmlinux"
	return 1
}
if grep -q '^CONFIG_PVH=y' "$tmp/config"; then
	extract_vmlinux '\xfd7zXZ\x00' 'xz -dcq' ||
		extract_vmlinux '\x28\xb5\x2f\xfd' 'zstd -dcq' ||
		extract_vmlinux '\x1f\x8b\x08' 'gzip -dcq' || true
fi
echo "$ver" >"$tmp/version"
touch "$tmp/.complete"

rm -rf "$root"
mv "$tmp" "$root"
trap - EXIT
rm -rf "$debs"
echo "$root"
