#!/bin/bash
# vm-run.sh - boot a throwaway qemu VM on a Debian kernel, run one script in
# it, and return that script's exit status.
#
# Usage: vm-run.sh [options] SCRIPT
#   -s SUITE      kernel of this suite (bookworm|sid), fetched into the cache
#                 ($SCHEDIO_VM_CACHE, default <repo>/.cache/vm) if not there
#   -k DIR        kernel dir printed by fetch-kernel.sh (instead of -s)
#   -b ELF        host program to run in the guest (on PATH, with its libraries)
#   -f FILE       data file, copied into /vm, the script's working directory
#   -m MODULE     extra kernel module to load at boot (with its dependencies)
#   -e NAME=VAL   environment variable for the script
#   -o DIR        host dir that receives what the script leaves in $VM_OUT
#   -t SECONDS    kill the VM after this long (default $SCHEDIO_VM_TIMEOUT or 120)
#   -l FILE       keep the whole serial console log here
#   -n SPEC       attach one more disk as an emulated NVMe controller
#                 (repeatable; the guest gets their names in $VM_NVME, in the
#                 order given). SPEC is a comma-separated list of size=BYTES
#                 (default 1G; suffixes K M G as for truncate) and qemu
#                 throttling options, e.g. 'size=2G,throttling.iops-read=2000'
#                 (qemu's -drive throttling.*: iops-total, iops-read,
#                 iops-write, bps-*, their -max and -max-length, iops-size,
#                 group). The image is sparse, in the run's tmp dir, opened
#                 with cache=unsafe; the controller's serial is schedioN
#                 (N from 0 in the order given). Not with -R.
#   -R IMAGE      boot this ext4 root disk image (e.g. a Debian made by
#                 make-rootfs.sh) with systemd as PID 1 and run SCRIPT there as
#                 a oneshot service after multi-user.target, from /vm, as root
#                 (guest-init-systemd.sh). The image is changed by the run
#                 (give a throwaway copy); it is /dev/vda, the scratch disk
#                 /dev/vdb ($VM_DISK), the /out disk /dev/vdc.
# The script runs as root under busybox sh with cgroup2 at /sys/fs/cgroup
# (io and cpu enabled at the root), bpf, debugfs and tracefs mounted, and a
# 1 GiB sparse scratch disk $VM_DISK (/dev/vda, MAJ:MIN in $VM_DISK_DEV),
# and the -n disks' block devices in $VM_NVME (space-separated, in order).
# Its stdout and stderr become vm-run.sh's stdout. Exit status: the script's,
# or 124 when the VM timed out, 125 when the VM gave no result.
# Env: SCHEDIO_VM_MEM (MiB, default 1536), SCHEDIO_VM_CPUS (default 2),
# SCHEDIO_VM_SMP (a whole -smp value with topology, instead of the CPU count),
# SCHEDIO_VM_NVME_DIR (where -n images go instead of the run's tmp dir, e.g.
# /dev/shm: a tmpfs has no writeback to wait for when they are removed),
# SCHEDIO_VM_APPEND (more kernel command line; `loglevel=7` with -l shows the
# whole boot).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${SCHEDIO_VM_CACHE:-$repo/.cache/vm}
timeout=${SCHEDIO_VM_TIMEOUT:-120}
mem=${SCHEDIO_VM_MEM:-1536}
cpus=${SCHEDIO_VM_SMP:-${SCHEDIO_VM_CPUS:-2}}

die() { echo "vm-run: $*" >&2; exit 125; }
usage() { sed -n '5,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 125; }

suite= kdir= outdir= log= rootimg=
initramfs_args=()
nvme_specs=()
while getopts 's:k:b:f:m:e:o:t:l:R:n:h' opt; do
	case $opt in
	s) suite=$OPTARG ;;
	k) kdir=$OPTARG ;;
	b | f | m | e) initramfs_args+=("-$opt" "$OPTARG") ;;
	o) outdir=$OPTARG ;;
	t) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	R) rootimg=$OPTARG ;;
	n) nvme_specs+=("$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
script=$1
[ -f "$script" ] || die "no such script: $script"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
if [ -z "$kdir" ]; then
	[ -n "$suite" ] || die "give -s SUITE or -k KERNEL_DIR"
	kdir=$("$here/fetch-kernel.sh" "$suite" "$cache") || die "fetching the $suite kernel failed"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-vm.XXXXXX")
nvme_dir=$tmp
qemu_pid=
cleanup() {
	[ -z "$qemu_pid" ] || kill -KILL "$qemu_pid" 2>/dev/null || true
	rm -rf "$tmp"
	[ "$nvme_dir" = "$tmp" ] || rm -rf "$nvme_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A fresh nonce per run, so nothing the script prints can pass for a marker.
nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
drives=()
append="console=ttyS0 cgroup_no_v1=all panic=-1 oops=panic rdinit=/init quiet"
if [ -n "$rootimg" ]; then
	[ -f "$rootimg" ] || die "no such root image: $rootimg"
	# ext4 is a module in Debian's kernels; 6.1's ext4 also wants the crypto
	# API's crc32c (a module), later kernels' take crc32c from the builtin lib.
	initramfs_args+=(-i "$here/guest-init-systemd.sh")
	if grep -q '/crc32c_generic\.ko:' "$kdir/lib/modules/$(cat "$kdir/version")/modules.dep"; then
		initramfs_args+=(-m crc32c_generic)
	fi
	initramfs_args+=(-m ext4)
	drives+=(-drive "file=$rootimg,format=raw,if=virtio,cache=unsafe")
	# No status lines from systemd on the console the results are read from.
	append+=" systemd.unit=multi-user.target systemd.show_status=false"
fi
# Emulated NVMe disks (-n): each a sparse image behind its own controller,
# with the throttling options of its SPEC on the drive. The guest finds them
# by serial (schedioN), as the nvme driver probes controllers asynchronously
# and their names need not follow the order given here.
nvme_drives=()
if [ ${#nvme_specs[@]} -gt 0 ]; then
	[ -z "$rootimg" ] || die "-n (NVMe disks) is not supported with -R"
	initramfs_args+=(-m nvme -e "VM_NVME_COUNT=${#nvme_specs[@]}")
	if [ -n "${SCHEDIO_VM_NVME_DIR:-}" ]; then
		nvme_dir=$(mktemp -d "$SCHEDIO_VM_NVME_DIR/schedio-vm-nvme.XXXXXX") ||
			die "cannot make a dir in SCHEDIO_VM_NVME_DIR=$SCHEDIO_VM_NVME_DIR"
	fi
	i=0
	for spec in "${nvme_specs[@]}"; do
		size=1G throttle=
		IFS=, read -r -a parts <<<"$spec"
		for part in "${parts[@]}"; do
			case $part in
			size=[0-9]*) size=${part#size=} ;;
			throttling.[a-z-]*=[0-9a-z]*) throttle+=",$part" ;;
			*) die "-n '$spec': '$part' is neither size=BYTES nor a throttling.NAME=VALUE option" ;;
			esac
		done
		truncate -s "$size" "$nvme_dir/nvme$i.img" 2>/dev/null || die "-n '$spec': bad size '$size'"
		nvme_drives+=(-drive "file=$nvme_dir/nvme$i.img,if=none,id=nvme$i,format=raw,cache=unsafe$throttle"
			-device "nvme,drive=nvme$i,serial=schedio$i")
		i=$((i + 1))
	done
fi
"$here/make-initramfs.sh" "$kdir" "$tmp/initramfs.cpio" "$script" \
	"${initramfs_args[@]}" -e "VM_NONCE=$nonce" || die "building the initramfs failed"
truncate -s 1G "$tmp/scratch.img"
drives+=(-drive "file=$tmp/scratch.img,format=raw,if=virtio,cache=unsafe")
if [ -n "$outdir" ]; then
	truncate -s 512M "$tmp/out.img"
	drives+=(-drive "file=$tmp/out.img,format=raw,if=virtio,cache=unsafe")
fi

kernel=$kdir/vmlinuz
[ ! -f "$kdir/vmlinux" ] || kernel=$kdir/vmlinux
console=$tmp/console.log
start=$(date +%s.%N)
# TCG, not KVM: a KVM boot hung on the development machines. One host thread
# for all vCPUs: with multi-threaded TCG, sid's kernel oopsed on int3 in about
# 1 boot of 4 (another vCPU ran stale code after a static-key text poke).
qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp "$cpus" -m "$mem" \
	-display none -monitor none -serial "file:$console" -nic none -no-reboot \
	-kernel "$kernel" -initrd "$tmp/initramfs.cpio" \
	-append "$append ${SCHEDIO_VM_APPEND:-}" \
	"${drives[@]}" "${nvme_drives[@]}" </dev/null >"$tmp/qemu.out" 2>&1 &
qemu_pid=$!

# Poll rather than wait: a hung guest must not hang the caller, and a guest
# that printed its result but does not power off is killed shortly after.
timed_out=0
deadline=$(($(date +%s) + timeout))
end_seen=
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ -z "$end_seen" ] && grep -q "SCHEDIO-VM-END $nonce" "$console" 2>/dev/null; then
		end_seen=$(date +%s)
	fi
	if [ -n "$end_seen" ] && [ "$(date +%s)" -gt $((end_seen + 10)) ]; then
		break
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		break
	fi
	sleep 0.2
done
kill -KILL "$qemu_pid" 2>/dev/null || true
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')

[ -z "$log" ] || tr -d '\r' <"$console" >"$log"
tr -d '\r' <"$console" | awk -v b="SCHEDIO-VM-BEGIN $nonce" -v e="SCHEDIO-VM-END $nonce" '
	index($0, e) { exit } inside { print } index($0, b) { inside = 1 }'
end=$(tr -d '\r' <"$console" | grep -o "SCHEDIO-VM-END $nonce rc=[0-9]* uptime=[0-9.]*" || true)
begin=$(tr -d '\r' <"$console" | grep -o "SCHEDIO-VM-BEGIN $nonce uptime=[0-9.]*" || true)

if [ -z "$end" ]; then
	echo "vm-run: no result from the guest after ${elapsed}s$([ $timed_out = 1 ] && echo " (timed out after ${timeout}s, VM killed)"); console tail:" >&2
	tr -d '\r' <"$console" | tail -n 30 | sed 's/^/  | /' >&2
	sed 's/^/  qemu: /' "$tmp/qemu.out" >&2
	[ $timed_out = 1 ] && exit 124
	exit 125
fi
rc=${end#*rc=}
rc=${rc%% *}
echo "vm-run: $(cat "$kdir/version"): script started at guest uptime ${begin##*=}s, ended at ${end##*=}s; ${elapsed}s wall from qemu start to exit; rc=$rc" >&2

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	tar -xf "$tmp/out.img" -C "$outdir" || die "reading the guest's VM_OUT files failed"
fi
exit "$rc"
