# smoke_sid.sh - guest side of test_vm_smoke.sh on the sid (7.x) kernel:
# sched_ext is built in and idle, and the kernel has BTF and the io controller.
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

state=$(cat /sys/kernel/sched_ext/state 2>/dev/null) || state="(missing)"
[ "$state" = disabled ] && ok "/sys/kernel/sched_ext/state reads disabled" ||
	fail "/sys/kernel/sched_ext/state is '$state', want disabled"
[ -s /sys/kernel/btf/vmlinux ] && ok "/sys/kernel/btf/vmlinux, $(wc -c </sys/kernel/btf/vmlinux) bytes" ||
	fail "no /sys/kernel/btf/vmlinux"
grep -qw io /sys/fs/cgroup/cgroup.controllers && ok "cgroup.controllers has io" ||
	fail "cgroup.controllers lacks io: $(cat /sys/fs/cgroup/cgroup.controllers)"
exit $failed
