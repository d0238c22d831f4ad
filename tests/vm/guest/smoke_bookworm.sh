# smoke_bookworm.sh - guest side of test_vm_smoke.sh on the 6.1 kernel: the
# io controller, iocost tracepoints and BTF are there, and iocost splits a
# saturated disk 1:3 between cgroups of io.weight 100 and 300.
# Needs randread on PATH. Env: LOAD_SECONDS (default 15).
cg=/sys/fs/cgroup
dev=$VM_DISK_DEV
secs=${LOAD_SECONDS:-15}
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

grep -qw io $cg/cgroup.controllers && ok "cgroup.controllers has io" ||
	fail "cgroup.controllers lacks io: $(cat $cg/cgroup.controllers)"
n=$(ls /sys/kernel/tracing/events/iocost 2>/dev/null | grep -c '^iocost_')
[ "$n" -gt 0 ] && ok "$n iocost tracepoints in tracefs: $(ls /sys/kernel/tracing/events/iocost | grep '^iocost_' | tr '\n' ' ')" ||
	fail "no events/iocost in tracefs"
[ -s /sys/kernel/btf/vmlinux ] && ok "/sys/kernel/btf/vmlinux, $(wc -c </sys/kernel/btf/vmlinux) bytes" ||
	fail "no /sys/kernel/btf/vmlinux"

# A budget of 1000 random reads/s, an order of magnitude below what the
# emulated disk does, so both cgroups always have IO waiting on iocost.
echo "$dev enable=1 ctrl=user min=100 max=100" >$cg/io.cost.qos &&
	echo "$dev ctrl=user model=linear rbps=40000000 rseqiops=2000 rrandiops=1000 wbps=40000000 wseqiops=2000 wrandiops=1000" >$cg/io.cost.model ||
	fail "writing io.cost.qos / io.cost.model"
echo "io.cost.qos:   $(grep "^$dev " $cg/io.cost.qos)"
echo "io.cost.model: $(grep "^$dev " $cg/io.cost.model)"
grep -q "^$dev enable=1" $cg/io.cost.qos && ok "iocost enabled on $VM_DISK ($dev)" || fail "iocost not enabled"

for w in 100 300; do
	mkdir $cg/w$w
	echo $w >$cg/w$w/io.weight
	sh -c "echo \$\$ >$cg/w$w/cgroup.procs && exec randread $VM_DISK $secs 8 >/tmp/w$w.reads" &
done
wait

usage() { awk -v d="$dev" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^cost\.usage=/) { sub(/.*=/, "", $i); print $i } }' $cg/$1/io.stat; }
u100=$(usage w100)
u300=$(usage w300)
echo "w100: io.stat $(grep "^$dev " $cg/w100/io.stat); reads $(cat /tmp/w100.reads)"
echo "w300: io.stat $(grep "^$dev " $cg/w300/io.stat); reads $(cat /tmp/w300.reads)"
ratio=$(awk -v a="$u300" -v b="$u100" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
echo "IOCOST_USAGE_RATIO=$ratio (cost.usage w300 $u300 / w100 $u100, ${secs}s of load)"
awk -v r="$ratio" 'BEGIN { exit !(r >= 2.5 && r <= 3.5) }' &&
	ok "cost.usage ratio $ratio is within 2.5-3.5" || fail "cost.usage ratio $ratio is not close to 3"
exit $failed
