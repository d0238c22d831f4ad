#!/bin/bash
# test_vm_smoke.sh - proves the VM test bed: vm-run.sh's contract (exit
# status, files out, timeout), iocost on Debian 12's 6.1 kernel (weights
# 100:300 give a 1:3 cost.usage split), and sched_ext plus BTF on sid's 7.x.
# Exit 0 pass, 1 fail, 77 skip (only when qemu or busybox is not installed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
for tool in qemu-system-x86_64 busybox gcc; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP: $tool not installed (packages: qemu-system-x86 busybox-static gcc)"
		exit 77
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedio-vm-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

# Kernels come first so their one-time download is not counted as boot time.
for suite in bookworm sid; do
	t=$(now)
	"$here/fetch-kernel.sh" $suite "${SCHEDIO_VM_CACHE:-$here/../../.cache/vm}" >/dev/null
	echo "kernel $suite ready in $(since "$t")s"
done

echo "== vm-run.sh contract (bookworm)"
printf 'echo hello >"$VM_OUT/hello.txt"\nexit 7\n' >"$tmp/exit7.sh"
set +e
"$here/vm-run.sh" -s bookworm -o "$tmp/out" "$tmp/exit7.sh"
rc=$?
set -e
[ $rc -eq 7 ] && ok "the guest script's exit status 7 is vm-run's" || fail "vm-run returned $rc, want 7"
[ "$(cat "$tmp/out/hello.txt" 2>/dev/null)" = hello ] && ok "a file left in \$VM_OUT reached the host" ||
	fail "\$VM_OUT/hello.txt did not reach the host"
echo 'sleep 600' >"$tmp/hang.sh"
t=$(now)
set +e
"$here/vm-run.sh" -s bookworm -t 15 "$tmp/hang.sh" 2>"$tmp/hang.err"
rc=$?
set -e
took=$(since "$t")
[ $rc -eq 124 ] && ok "a hung guest was killed at the 15 s timeout (returned 124 after ${took}s)" ||
	{ fail "hung guest: vm-run returned $rc after ${took}s, want 124"; cat "$tmp/hang.err"; }

echo "== bookworm (6.1): io controller, iocost tracepoints, BTF, iocost weights"
# Built dynamically on purpose: proves host programs run with their libraries.
gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/randread" "$here/randread.c"
t=$(now)
set +e
"$here/vm-run.sh" -s bookworm -b "$tmp/randread" "$here/guest/smoke_bookworm.sh" | tee "$tmp/bookworm.out"
rc=${PIPESTATUS[0]}
set -e
[ $rc -eq 0 ] && ok "bookworm guest checks passed (boot to result $(since "$t")s)" || fail "bookworm guest checks: rc $rc"
ratio=$(sed -n 's/^IOCOST_USAGE_RATIO=\([0-9.]*\).*/\1/p' "$tmp/bookworm.out")
echo "iocost cost.usage ratio, weight 300 : weight 100 = ${ratio:-none}"

echo "== sid (7.x): sched_ext, BTF"
t=$(now)
if "$here/vm-run.sh" -s sid "$here/guest/smoke_sid.sh"; then
	ok "sid guest checks passed (boot to result $(since "$t")s)"
else
	fail "sid guest checks failed"
fi
t=$(now)
if ver=$("$here/fetch-btf.sh" sid "$tmp/sid.btf") && grep -qa sched_ext_ops "$tmp/sid.btf"; then
	ok "fetch-btf.sh sid: $(wc -c <"$tmp/sid.btf") bytes of $ver BTF with sched_ext_ops ($(since "$t")s)"
else
	fail "fetch-btf.sh sid gave no BTF with sched_ext_ops"
fi

[ $failed -eq 0 ] && echo "PASS: test_vm_smoke" || echo "FAIL: test_vm_smoke"
exit $failed
