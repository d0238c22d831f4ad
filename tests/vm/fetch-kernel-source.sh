#!/bin/bash
# fetch-kernel-source.sh - the kernel's own example sched_ext schedulers
# (tools/sched_ext) from a Debian suite's linux-source package, for building
# them with deploy/scx-build-object.sh: `apt-get download` into a cache
# folder, and only tools/sched_ext taken out of the package's source tarball.
# Nothing is installed and the machine's apt configuration is not touched.
#
# Usage: fetch-kernel-source.sh SUITE CACHE_DIR
#   SUITE  a Debian suite with sched_ext in its kernel (sid). The machine's own
#          release comes from its apt lists; any other suite from the private
#          apt sources file and lists dir in CACHE_DIR that fetch-kernel.sh uses.
# The package is linux-source-X.Y of the kernel fetch-kernel.sh keeps in
# CACHE_DIR/kernel-SUITE (its exact version when the suite still has it, else
# the suite's newest of that X.Y), or the suite's `linux-source` when no
# kernel is cached. Prints the dir of the extracted tools/sched_ext; the
# package's version is in its parent's `version` file.
# A second run with the cache present does nothing (delete
# CACHE_DIR/sched_ext-SUITE to take a newer source). Concurrent runs wait for
# each other.
# Env: SCHEDIO_DEBIAN_MIRROR overrides the mirror for other suites (default:
# the mirror that serves the machine's own Debian release in its apt sources).
set -euo pipefail

die() { echo "fetch-kernel-source: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: fetch-kernel-source.sh SUITE CACHE_DIR"
suite=$1
cache=$2
[[ $suite =~ ^[a-z][a-z0-9-]*$ ]] || die "bad suite name '$suite'"

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
root=$cache/sched_ext-$suite
[ -f "$root/.complete" ] && { echo "$root/tools/sched_ext"; exit 0; }
exec 9>"$cache/.fetch-source-$suite.lock"
flock 9
[ -f "$root/.complete" ] && { echo "$root/tools/sched_ext"; exit 0; }

. "$(dirname "$0")/debian-apt.sh"
debian_apt_setup "$suite" "$cache"

# The cached test kernel's version (7.2.13+deb14-amd64) names the source
# package (linux-source-7.2) and the upstream release to match (7.2.13).
pkg=
want=
if [ -f "$cache/kernel-$suite/version" ]; then
	kver=$(cat "$cache/kernel-$suite/version")
	upstream=${kver%%[+-]*}
	pkg=linux-source-$(echo "$upstream" | cut -d. -f1-2)
	want=$(apt-cache "${apt_opts[@]}" madison "$pkg" |
		awk -F' *[|] *' -v u="$upstream" 'index($2, u "-") == 1 || index($2, u "+") == 1 { print $2; exit }')
	[ -n "$want" ] || echo "fetch-kernel-source: $suite no longer has the source of $kver; taking its newest $pkg" >&2
fi
if [ -z "$pkg" ] || ! apt-cache "${apt_opts[@]}" show "$pkg" >/dev/null 2>&1; then
	# linux-source is a metapackage; the source is its linux-source-X.Y dependency.
	pkg=$(apt-cache "${apt_opts[@]}" depends linux-source |
		awk '$1 == "Depends:" && $2 ~ /^linux-source-[0-9]/ { print $2; exit }')
	want=
	[ -n "$pkg" ] || die "cannot resolve linux-source in $suite"
fi

debs=$cache/src-$suite
mkdir -p "$debs"
tmp=$(mktemp -d "$cache/.unpack-source-$suite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$debs" && apt-get "${apt_opts[@]}" -qq download "$pkg${want:+=$want}" >&2) || die "apt-get download $pkg failed"
deb=$(ls -t "$debs/${pkg}_${want:-}"*.deb | head -n1)
ver=$(dpkg-deb -f "$deb" Version)
# The package holds one tarball of the whole tree (~150 MB compressed);
# stream it and keep only tools/sched_ext.
tarball=./usr/src/$pkg.tar.xz
dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" | xz -dc |
	tar -x -C "$tmp" --strip-components=1 --wildcards "$pkg/tools/sched_ext/*" ||
	die "no tools/sched_ext in $tarball of $deb"
[ -f "$tmp/tools/sched_ext/include/scx/common.bpf.h" ] || die "$pkg $ver has no sched_ext schedulers"
echo "$pkg $ver" >"$tmp/version"
touch "$tmp/.complete"

rm -rf "$root"
mv "$tmp" "$root"
trap - EXIT
rm -rf "$debs"
echo "$root/tools/sched_ext"
