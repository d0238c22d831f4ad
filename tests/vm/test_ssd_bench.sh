#!/bin/bash
# test_ssd_bench.sh - `schedio bench` against known limits (issue 16): in a
# bookworm VM, emulated NVMe disks that qemu throttles (vm-run.sh -n) stand
# in for SSDs whose model is known in advance. One boot, three disks:
#
#   steady: throttling.iops-read=R_IOPS, iops-write=W_IOPS, bps-read=R_BPS,
#           bps-write=W_BPS. Each parameter must be limited by the throttle
#           meant for it. qemu counts one request as one IO whatever its size
#           (no throttling.iops-size), so 4 KiB IO hits the IOPS limit first
#           (1800 IO/s x 4 KiB = 7.4 MB/s, well under 48 MB/s; writes 4.9
#           under 32) and large IO the bandwidth limit (48 MB/s in 1 MiB
#           blocks is 46 IO/s, under 1800; the bandwidth limit binds for any
#           block over R_BPS/R_IOPS = 27 KB, and for writes W_BPS/W_IOPS =
#           27 KB). So rseqiops and rrandiops must come out at R_IOPS,
#           wseqiops and wrandiops at W_IOPS, rbps at R_BPS and wbps at W_BPS.
#           Without -max options qemu allows a burst of only a tenth of a
#           second's worth (its bucket is avg/10), which no phase should
#           call a burst.
#   burst:  throttling.iops-read=B_IOPS, iops-read-max=B_MAX,
#           iops-read-max-length=B_LEN: a full bucket of B_MAX*B_LEN IOs
#           drains at B_IOPS while reads go at B_MAX, so a fresh disk reads
#           at B_MAX for B_MAX*B_LEN/(B_MAX-B_IOPS) s (10.5 s) and at B_IOPS
#           after that. Only the rrandiops phase runs on it.
#   spare:  unthrottled, for the refusals (guest/ssd_bench.sh checks them:
#           exit status, message, nothing written): no --destructive, a
#           device that does not exist, mounted, holding a partition table;
#   small:  32 MiB, under the bench's 64 MiB minimum: refused as too small.
#
# The limits sit well below what the emulation delivers unthrottled (on a
# 2-core development machine under TCG: 4 KiB reads 3300 IO/s at depth 1 and
# 4400-6200 at 8-32, 4 KiB writes ~7000, 1 MiB reads 390 MB/s at depth 4 and
# more deeper, 1 MiB writes ~900 MB/s), and fio in the same boot measures
# the steady disk first: the test bed's own truth (each within 5% of its
# limit, else the test bed is broken, not the bench).
# Passes when every parameter is within 10% of its limit, the burst disk's
# sustained rate within 15% of B_IOPS with a `burst` warning, the steady
# disk without one, each run under 4 minutes (check_ssd_bench.py), and the
# refusals hold. Exit 0 pass, 1 fail, 77 skip.
set -euo pipefail

. "$(dirname "$0")/vm-lib.sh"
vm_test_start ssdbench qemu-system-x86_64 busybox
if [ "${SCHEDIO_SANITIZE:-0}" = 1 ]; then
	echo "SKIP: VM tests run the normal build's binaries"
	exit 77
fi
[ -x "$bin/schedio" ] || { echo "FAIL: no $bin/schedio (build first)"; exit 1; }

R_IOPS=1800 W_IOPS=1200 R_BPS=48000000 W_BPS=32000000
B_IOPS=1000 B_MAX=3000 B_LEN=7
SIZE=1G

fio_args=(-e FIO=0)
if command -v fio >/dev/null; then
	fio_args=(-b "$(command -v fio)" -e FIO=1)
else
	echo "note: fio not installed (package fio): the test bed's limits are taken on trust"
fi
# The NVMe images on a tmpfs when there is one: the steady disk takes ~0.5 GB
# of writes, ~20000 of them random 4 KiB, and removing the image from a disk
# file system waited for their writeback (up to a minute after the VM).
if [ -z "${SCHEDIO_VM_NVME_DIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export SCHEDIO_VM_NVME_DIR=/dev/shm
fi
t_vm=$SECONDS
set +e
"$here/vm-run.sh" -s bookworm -t 600 -b "$bin/schedio" "${fio_args[@]}" -m crc32c_generic -m ext4 \
	-n "size=$SIZE,throttling.iops-read=$R_IOPS,throttling.iops-write=$W_IOPS,throttling.bps-read=$R_BPS,throttling.bps-write=$W_BPS" \
	-n "size=$SIZE,throttling.iops-read=$B_IOPS,throttling.iops-read-max=$B_MAX,throttling.iops-read-max-length=$B_LEN" \
	-n "size=$SIZE" -n size=32M \
	-o "$tmp/out" "$here/guest/ssd_bench.sh" | tee "$tmp/out.txt"
rc=${PIPESTATUS[0]}
set -e
echo "time: $((t_vm)) s before the VM, $((SECONDS - t_vm)) s for vm-run"
checked=0
if [ -f "$tmp/out/runs.txt" ]; then
	/usr/bin/python3 "$here/check_ssd_bench.py" "$tmp/out" --size "$SIZE" \
		--steady "rbps=$R_BPS,rseqiops=$R_IOPS,rrandiops=$R_IOPS,wbps=$W_BPS,wseqiops=$W_IOPS,wrandiops=$W_IOPS" \
		--burst "rrandiops=$B_IOPS,max=$B_MAX,length=$B_LEN" && checked=1
fi
echo "time: ${SECONDS} s in all"
if [ "$rc" -eq 0 ] && [ $checked = 1 ]; then
	echo "PASS: test_ssd_bench"
	exit 0
fi
echo "FAIL: test_ssd_bench (guest exit $rc, results $([ $checked = 1 ] && echo ok || echo wrong or missing))"
exit 1
