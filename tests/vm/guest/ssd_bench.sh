# ssd_bench.sh - guest side of test_ssd_bench.sh (issue 16): `schedio bench`
# on emulated NVMe disks that qemu throttles to known limits, plus its
# refusals. VM_NVME holds four disks, in this order:
#   steady  throttled to R_IOPS/W_IOPS IO/s and R_BPS/W_BPS bytes/s, no burst
#   burst   B_IOPS random-read IO/s sustained after a burst (iops-read-max)
#   spare   unthrottled, for the refusals
#   small   32 MiB, under the bench's minimum
# With FIO=1 (fio on PATH), fio first measures the steady disk under the same
# access patterns: the test bed's own check that qemu holds the limits.
# Leaves in /out: steady.json, burst.json (the results), steady.model and
# burst.model (the io.cost.model lines printed), steady.dev and burst.dev
# (the disks' MAJ:MIN, which the lines must name), steady.stat and
# burst.stat (the disk's /sys/block/DEV/stat before and after the run, to
# tell what reached the disk from what the block layer merged), steady.err and burst.err
# (stderr), runs.txt ("NAME RC SECONDS" per run, guest clock), fio.txt
# ("PARAM RATE" per pattern). Refusals are checked here: FAIL lines and a
# non-zero exit when one does not hold.
set -- $VM_NVME
steady=$1 burst=$2 spare=$3 small=$4
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
now() { read -r up _ </proc/uptime && echo "$up"; }

[ $# -eq 4 ] || { echo "FAIL: expected 4 NVMe disks, VM_NVME='$VM_NVME'"; exit 1; }
echo "disks: steady $steady, burst $burst, spare $spare, small $small ($(cat /sys/block/${steady#/dev/}/device/model | sed 's/ *$//'))"

# --- the test bed's truth: fio on the steady disk (same patterns as the six
# parameters; 1 MiB blocks for bandwidth). Short runs: qemu's leaky bucket
# lets through a tenth of a second's worth more at the start (~2% over 5 s).
if [ "${FIO:-0}" = 1 ]; then
	for p in "rbps read 1M 8" "rseqiops read 4k 16" "rrandiops randread 4k 16" \
		"wbps write 1M 8" "wseqiops write 4k 16" "wrandiops randwrite 4k 16"; do
		set -- $p
		fio --name="$1" --filename="$steady" --direct=1 --ioengine=io_uring --rw="$2" --bs="$3" --iodepth="$4" \
			--runtime=4 --time_based --thread --output-format=terse --terse-version=3 >/tmp/fio.out 2>&1 ||
			fail "fio $1: $(cat /tmp/fio.out)"
		# terse v3: field 7 read KiB/s, 8 read IO/s, 48 write KiB/s, 49 write IO/s
		awk -F';' -v p="$1" 'NF > 50 { r = (p ~ /^r/) ? (p ~ /bps/ ? $7 * 1024 : $8) : (p ~ /bps/ ? $48 * 1024 : $49)
			print p, r }' /tmp/fio.out >>/out/fio.txt
	done
	cat /out/fio.txt | sed 's/^/fio: /'
fi

# run NAME DEV ARGS...: one bench, timed on the guest clock.
run() {
	name=$1 dev=$2
	shift 2
	cat "/sys/block/${dev#/dev/}/dev" >"/out/$name.dev"
	cat "/sys/block/${dev#/dev/}/stat" >"/out/$name.stat"
	t0=$(now)
	schedio bench "$dev" "$@" --output "/out/$name.json" >"/out/$name.model" 2>"/out/$name.err"
	rc=$?
	t1=$(now)
	cat "/sys/block/${dev#/dev/}/stat" >>"/out/$name.stat"
	echo "$name $rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >>/out/runs.txt
	echo "bench $name: exit $rc after $(tail -n 1 /out/runs.txt | cut -d' ' -f3) s; model line: $(cat "/out/$name.model")"
	[ $rc -eq 0 ] || { fail "schedio bench $dev $* exited $rc:"; tail -n 20 "/out/$name.err"; }
}
run steady "$steady" --destructive
# The burst disk: the random-read phase is the one its bucket throttles; the
# bucket is full (a fresh disk), so the burst comes at the phase's start.
run burst "$burst" --phases rrandiops

# --- refusals. Truth: the watched disk's write counter in /sys/block/DEV/stat
# (field 5, writes completed) and a checksum of its first 16 MiB (the spare
# disk's filled with random data first): both unchanged.
writes() { awk '{ print $5 }' "/sys/block/${watch#/dev/}/stat"; }
sum16() { dd if="$watch" bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }
dd if=/dev/urandom of="$spare" bs=1M count=16 2>/dev/null && sync
# refuse NAME WANT_RC MESSAGE_RE ARGS...: schedio bench ARGS must exit
# WANT_RC (any non-zero when "nz"), say something matching MESSAGE_RE on
# stderr, and leave the disk $watch unwritten.
refuse() {
	name=$1 want=$2 re=$3
	shift 3
	sync
	w0=$(writes) s0=$(sum16)
	schedio bench "$@" >/tmp/refuse.out 2>/tmp/refuse.err
	rc=$?
	sync
	w1=$(writes) s1=$(sum16)
	msg=$(head -c 300 /tmp/refuse.err | tr '\n' ' ')
	echo "refusal $name: exit $rc, stderr: $msg"
	if [ "$want" = nz ]; then
		[ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "$name: exit $rc, wanted a refusal (non-zero, not a signal)"
	else
		[ $rc -eq "$want" ] || fail "$name: exit $rc, wanted $want"
	fi
	grep -Eqi "$re" /tmp/refuse.err || fail "$name: the message does not match /$re/"
	[ "$w0" = "$w1" ] || fail "$name: $((w1 - w0)) writes reached $watch"
	[ "$s0" = "$s1" ] || fail "$name: the first 16 MiB of $watch changed"
	[ $rc -ne 0 ] && [ "$w0" = "$w1" ] && [ "$s0" = "$s1" ] && ok "$name refused, nothing written"
}
watch=$spare
refuse no-destructive 2 destructive "$spare"
refuse no-destructive-write-phase 2 destructive "$spare" --phases wrandiops
refuse nonexistent nz "no such|not exist|cannot open" /dev/nvme9n9 --destructive
watch=$small
refuse too-small nz "too small|minimum|at least" "$small" --destructive
watch=$spare
mke2fs -F "$spare" >/tmp/mke2fs.out 2>&1 || fail "mke2fs: $(cat /tmp/mke2fs.out)"
mkdir -p /mnt/spare
# Mounted read-only: a read-write ext2 mount wrote to the disk on its own
# (one write between two syncs with nothing else running), which would blur
# the "nothing written" truth; the refusal must not depend on how it is mounted.
if mount -t ext2 -o ro "$spare" /mnt/spare; then
	refuse mounted nz "mount" "$spare" --destructive
	umount /mnt/spare
else
	fail "cannot mount $spare as ext2"
fi
# A DOS partition table (one Linux partition from sector 2048, 64 MiB) on
# an otherwise zeroed start, re-read so the kernel sees the partition.
dd if=/dev/zero of="$spare" bs=1M count=1 2>/dev/null
printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\000\002\000' |
	dd of="$spare" bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of="$spare" bs=1 seek=510 conv=notrunc 2>/dev/null
sync
blockdev --rereadpt "$spare" || fail "blockdev --rereadpt $spare"
[ -e "/sys/block/${spare#/dev/}/${spare#/dev/}p1" ] || fail "the kernel sees no partition on $spare"
refuse partitioned nz "partition" "$spare" --destructive
exit $failed
