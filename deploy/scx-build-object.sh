#!/bin/bash
# scx-build-object.sh - compiles a sched_ext scheduler's BPF half (NAME.bpf.c)
# into the object `schedio scx run --object` loads, the way the kernel's
# tools/sched_ext and the community build theirs:
#   - the newest clang Debian 12 ships (clang-22 from bookworm-security, else
#     clang-21, clang-20, clang-19): clang 14 drops the kptr type tags, so
#     schedulers that keep task or cpumask kptrs fail the verifier, and
#     clang-19 loses an address-space cast on arena pointers (the kernel's
#     scx_qmap then fails the verifier: "invalid mem access 'scalar'");
#     for BPF CPU v3 (32-bit jumps and atomics), with debug info (BTF: the
#     loader reads the ops, enum globals and exit record through it) and
#     -fms-extensions (the sched_ext headers embed anonymous structs);
#   - vmlinux.h dumped by bpftool from the BTF of the kernel it will run on;
#   - the headers of the pinned libbpf the CLI links (deploy/build-libbpf.sh);
#   - then `bpftool gen object`, which links the object statically as the
#     kernel's Makefile does (one object, its subprograms and BTF resolved).
#
# Usage: scx-build-object.sh [-b BTF] [-o OUT] [-I DIR]... [-D NAME[=VAL]]... SRC.bpf.c
#   -b BTF  the kernel's BTF: a raw BTF file or a vmlinux ELF with a .BTF
#           section (default /sys/kernel/btf/vmlinux, the running kernel's)
#   -o OUT  the object (default: SRC's name with .bpf.o, in the current dir)
#   -I DIR  one more include dir, e.g. the kernel tree's tools/sched_ext/include
#           and tools/sched_ext/include/bpf-compat
#   -D DEF  a preprocessor definition
#   -p      only print the compiler it would use (its --version line)
# The compiler's messages go to stderr; exit 1 when it fails.
# Env: SCHEDIO_BPF_CLANG (the compiler; default the newest above), BPFTOOL (default bpftool),
# SCHEDIO_LIBBPF_CACHE (build-libbpf.sh's cache dir).
set -euo pipefail

die() { echo "scx-build-object: $*" >&2; exit 1; }
usage() { die "usage: scx-build-object.sh [-p] [-b BTF] [-o OUT] [-I DIR]... [-D NAME[=VAL]]... SRC.bpf.c"; }

here=$(cd "$(dirname "$0")" && pwd)
btf=/sys/kernel/btf/vmlinux
out=
extra=()
print_clang=
while getopts "b:o:I:D:ph" opt; do
	case $opt in
	p) print_clang=1 ;;
	b) btf=$OPTARG ;;
	o) out=$OPTARG ;;
	I) [ -d "$OPTARG" ] || die "-I $OPTARG: no such dir"; extra+=("-I$OPTARG") ;;
	D) extra+=("-D$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
clang=${SCHEDIO_BPF_CLANG:-}
if [ -z "$clang" ]; then
	for c in clang-22 clang-21 clang-20 clang-19; do
		command -v "$c" >/dev/null && { clang=$c; break; }
	done
	[ -n "$clang" ] || die "no clang-19 or newer (Debian 12: apt-get install clang-22; deploy/install-deps.sh)"
fi
command -v "$clang" >/dev/null || die "$clang is not installed"
[ -z "$print_clang" ] || { "$clang" --version | head -n1; exit 0; }
[ $# -eq 1 ] || usage
src=$1
[ -f "$src" ] || die "$src: no such file"
[ -n "$out" ] || out=$(basename "$src" .c).o
[ -r "$btf" ] || die "$btf: cannot read the kernel's BTF (a kernel without CONFIG_DEBUG_INFO_BTF? give one with -b)"
bpftool=${BPFTOOL:-bpftool}
command -v "$bpftool" >/dev/null || [ -x "/usr/sbin/$bpftool" ] || die "bpftool is not installed (package bpftool)"
command -v "$bpftool" >/dev/null || bpftool=/usr/sbin/$bpftool

case $(uname -m) in
x86_64) arch=x86 ;;
aarch64) arch=arm64 ;;
s390x) arch=s390 ;;
ppc64le) arch=powerpc ;;
riscv64) arch=riscv ;;
*) die "no BPF target arch known for $(uname -m)" ;;
esac

libbpf=$("$here/build-libbpf.sh" ${SCHEDIO_LIBBPF_CACHE:+"$SCHEDIO_LIBBPF_CACHE"}) ||
	die "the pinned libbpf's headers are missing (deploy/build-libbpf.sh failed)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-build-object.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bpftool" btf dump file "$btf" format c >"$tmp/vmlinux.h" 2>"$tmp/bpftool.err" ||
	die "bpftool cannot read BTF from $btf: $(head -n 3 "$tmp/bpftool.err")"
grep -q '^struct sched_ext_ops {' "$tmp/vmlinux.h" ||
	die "the BTF in $btf has no struct sched_ext_ops (a kernel without CONFIG_SCHED_CLASS_EXT)"

# Under -target bpf the compiler does not search the host's multiarch include
# dir, where <asm/...> of the C library's headers live; -idirafter adds it
# behind everything else (the kernel's bpf-compat stubs come first).
multiarch=$(gcc -dumpmachine 2>/dev/null || true)
sys=()
[ -n "$multiarch" ] && [ -d "/usr/include/$multiarch" ] && sys=(-idirafter "/usr/include/$multiarch")

"$clang" -target bpf -g -O2 -mcpu=v3 -D__TARGET_ARCH_$arch \
	-fms-extensions -Wall -Wno-compare-distinct-pointer-types -Wno-microsoft-anon-tag \
	-I"$tmp" "${extra[@]}" -I"$libbpf/include" "${sys[@]}" \
	-c "$src" -o "$tmp/unlinked.o" || die "$clang failed on $src"
"$bpftool" gen object "$out" "$tmp/unlinked.o" 2>"$tmp/link.err" ||
	die "bpftool gen object failed on $src: $(cat "$tmp/link.err")"
echo "$out"
