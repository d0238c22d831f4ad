#!/bin/bash
# build-libbpf.sh - the pinned libbpf the `schedio` CLI links statically: the
# source package of Debian 13 (Debian 12's libbpf 1.1 cannot open the
# sched_ext objects people write), downloaded through a private apt sources
# file and lists dir in the cache (the machine's apt configuration is never
# changed), checked against the signed index, unpacked with dpkg-source and
# its src/ built with the machine's gcc and Debian's build flags as a static
# library of position-independent code (-fPIE) against the system's libelf
# and zlib.
# (Debian 13's prebuilt libbpf.a cannot be used: it needs its newer glibc.)
#
# Usage: build-libbpf.sh [CACHE_DIR]   (default: .cache/libbpf in the checkout)
# Prints the install prefix: PREFIX/include/bpf/*.h and PREFIX/lib/libbpf.a.
# A second run with the cache present does nothing and needs no network.
# Concurrent runs wait for each other.
# Env: SCHEDIO_DEBIAN_MIRROR overrides the mirror (default: the mirror that
# serves the machine's own Debian release in its apt sources).
set -euo pipefail

# The pin: a version of the source package `libbpf` in Debian's $suite. A
# stable release (trixie, Debian 13) keeps its version for years, where sid
# keeps only its newest upload for days or weeks; when the mirror no longer
# has this one, the script fails and prints what it has: put that here
# (>= 1.4 is required).
version=1.5.0-3
suite=trixie

die() { echo "build-libbpf: $*" >&2; exit 1; }

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-$top/.cache/libbpf}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
prefix=$cache/$version
[ -f "$prefix/.complete" ] && { echo "$prefix"; exit 0; }
exec 9>"$cache/.build.lock"
flock 9
[ -f "$prefix/.complete" ] && { echo "$prefix"; exit 0; }

for tool in apt-get apt-cache dpkg-source dpkg-buildflags gcc make pkg-config sha256sum; do
	command -v "$tool" >/dev/null || die "$tool is missing (deploy/install-deps.sh installs it)"
done
pkg-config --exists libelf zlib || die "libelf and zlib development files are missing (libelf-dev zlib1g-dev)"

host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
mirror=${SCHEDIO_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(SITE) $(RELEASE)' 2>/dev/null |
	awk -v r="$host_release" '$2 == r { print $1; exit }')}
[ -n "$mirror" ] || die "no Debian mirror found in the apt sources; set SCHEDIO_DEBIAN_MIRROR"

# A private apt: deb-src of $suite only, its own lists and archives. Downloads
# go to our cache as root; apt's _apt sandbox user may not reach it.
aptdir=$cache/apt-$suite
mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$aptdir/sources.list"
apt_opts=(-o APT::Sandbox::User=root -o "Dir::Etc::sourcelist=$aptdir/sources.list" -o "Dir::Etc::sourceparts=-"
	-o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache" -o "APT::Get::List-Cleanup=0")
apt-get "${apt_opts[@]}" -qq --error-on=any update >&2 || die "apt-get update for $suite failed ($mirror)"

# The package's record in the signed Sources index (apt checked InRelease's
# signature against Debian's archive keyring).
record=$(apt-cache "${apt_opts[@]}" showsrc libbpf 2>/dev/null |
	awk -v v="$version" '/^Package: /{ keep = 0 } /^Version: /{ keep = ($2 == v) } keep') || true
if [ -z "$record" ]; then
	have=$(apt-cache "${apt_opts[@]}" showsrc libbpf 2>/dev/null | awk '/^Version: /{ print $2 }' | paste -sd' ') || true
	[ -n "$have" ] || die "no libbpf in the Sources index of $suite ($mirror): is the mirror reachable?"
	die "Debian $suite ($mirror) no longer has libbpf $version (it has: $have); move the pin: set version= in deploy/build-libbpf.sh to one of those (>= 1.4) and rebuild"
fi

tmp=$(mktemp -d "$cache/.build-$version.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get "${apt_opts[@]}" -qq source --download-only "libbpf=$version" >/dev/null 2>&1) ||
	die "apt-get source libbpf=$version failed ($mirror)"
# apt verified the downloads against the index; check again, visibly: every
# file's SHA-256 as the signed index lists it.
sums=$(printf '%s\n' "$record" | awk '/^Checksums-Sha256:/{ on = 1; next } /^[^ ]/{ on = 0 } on && NF == 3 { print $1 "  " $3 }')
[ -n "$sums" ] || die "no SHA-256 sums for libbpf $version in the Sources index"
(cd "$tmp" && printf '%s\n' "$sums" | sha256sum --quiet -c -) >&2 || die "libbpf $version: checksum mismatch"
# dpkg-source checks the tarballs against the .dsc and applies Debian's patches.
(cd "$tmp" && dpkg-source -q -x "libbpf_$version.dsc" src >/dev/null 2>"$tmp/dpkg-source.log") ||
	{ cat "$tmp/dpkg-source.log" >&2; die "dpkg-source -x libbpf_$version.dsc failed"; }

# Debian's own flags for the package (its rules: hardening=+all), plus PIE:
# position-independent code for executables (the only place it is linked;
# -fPIC would send its thread-locals through __tls_get_addr and ld.so).
cflags=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)
cppflags=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)
make -C "$tmp/src/src" -j2 CC=gcc BUILD_STATIC_ONLY=y OBJDIR="$tmp/obj" DESTDIR="$tmp/out" PREFIX= LIBDIR=/lib \
	INCLUDEDIR=/include CFLAGS="$cflags" CPPFLAGS="$cppflags" EXTRA_CFLAGS=-fPIE install >"$tmp/make.log" 2>&1 ||
	{ tail -n 30 "$tmp/make.log" >&2; die "building libbpf $version failed"; }
[ -f "$tmp/out/lib/libbpf.a" ] && [ -f "$tmp/out/include/bpf/libbpf.h" ] || die "libbpf $version installed no libbpf.a"
mkdir -p "$tmp/out/src"
cp "$tmp"/libbpf_* "$tmp/out/src/"
echo "$version" >"$tmp/out/version"
touch "$tmp/out/.complete"

rm -rf "$prefix"
mv "$tmp/out" "$prefix"
echo "$prefix"
