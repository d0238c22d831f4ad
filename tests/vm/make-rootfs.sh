#!/bin/bash
# make-rootfs.sh - a Debian root file system with systemd as PID 1 for the VM
# test bed's systemd tests, made by `debootstrap --variant=minbase` and cached.
#
# Usage: make-rootfs.sh SUITE CACHE_DIR [PACKAGE]...
#   SUITE     Debian suite of the userland (bookworm)
#   PACKAGE   more packages to include (the runtime Depends of the packages
#             under test, tools the checks use), names without versions
# Prints the root file system's dir, CACHE_DIR/rootfs-SUITE-<key>, where key
# hashes the suite and the package list: a changed list builds a new one, the
# same list reuses it at once. It is built in a temporary dir and renamed
# only when complete, so an interrupted run leaves nothing that looks cached.
# Concurrent runs wait for each other. Nothing of the machine's apt
# configuration is used or changed: debootstrap reads the mirror directly.
# Env: SCHEDIO_DEBIAN_MIRROR (default: the mirror of the machine's own release
# in its apt sources, else http://deb.debian.org/debian).
set -euo pipefail

die() { echo "make-rootfs: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: make-rootfs.sh SUITE CACHE_DIR [PACKAGE]..."
suite=$1 cache=$2
shift 2
[[ $suite =~ ^[a-z][a-z0-9-]*$ ]] || die "bad suite name '$suite'"
command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"

# systemd as init, dbus for systemctl, and what the image's checks use.
pkgs=(systemd systemd-sysv dbus "$@")
for p in "${pkgs[@]}"; do
	[[ $p =~ ^[a-z0-9][a-z0-9+.-]*$ ]] || die "bad package name '$p'"
done
list=$(printf '%s\n' "${pkgs[@]}" | sort -u | paste -sd, -)
# Bump the version when what this script does to the tree changes.
key=$(printf 'v1 %s %s\n' "$suite" "$list" | sha256sum | cut -c1-12)

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
root=$cache/rootfs-$suite-$key
[ -f "$root/.complete" ] && { echo "$root"; exit 0; }
exec 9>"$cache/.rootfs-$suite.lock"
flock 9
[ -f "$root/.complete" ] && { echo "$root"; exit 0; }

mirror=${SCHEDIO_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(SITE) $(RELEASE)' 2>/dev/null |
	awk -v r="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" '$2 == r && $1 !~ /security/ { print $1; exit }')}
mirror=${mirror:-http://deb.debian.org/debian}

# Left by a killed run (we hold the lock: nobody is building them).
rm -rf "$cache"/.rootfs-"$suite".??????
tmp=$(mktemp -d "$cache/.rootfs-$suite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "make-rootfs: debootstrap $suite from $mirror with $list (a few minutes, once)" >&2
debootstrap --variant=minbase --include="$list" "$suite" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 || {
	tail -n 30 "$tmp/debootstrap.log" >&2
	die "debootstrap failed"
}
r=$tmp/root
# Smaller: downloaded archives, docs and manuals are of no use in the VM.
rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/* "$r"/usr/share/doc/* \
	"$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/usr/share/locale/*
# Each image gets its own machine-id; an empty one here.
: >"$r/etc/machine-id"
echo "schedio-vm" >"$r/etc/hostname"
touch "$tmp/root/.complete"

rm -rf "$root"
mv "$tmp/root" "$root"
echo "$root"
