#!/bin/bash
# test_agent_systemd.sh - the packaged agent unit end to end: a bookworm VM
# with systemd as PID 1 (vm-run.sh -R on a cached debootstrap root disk)
# installs this build's schedio-agent and schedio-server .debs and checks,
# under the real units (guest/agent_systemd.sh): (a) the agent's effective
# capabilities are the unit's and README's list, (b) runqlat and iocost
# attached and the server stored the first report, (c) `systemctl reload`
# with a broken agent.conf fails, (d) the agent's warnings reach
# `journalctl -p warning`; then the same on sid's kernel (sched_ext) and (e)
# the service sees kernel addresses for the per-sample scheduler split
# (SCHEDIO_VM_SID=0 leaves sid out).
# The .debs are built with cpack into $SCHEDIO_BUILD/packages when missing or
# older than the programs. Exit 0 pass, 1 fail, 77 skip (qemu, busybox,
# debootstrap, mkfs.ext4, cpack or dpkg-deb not installed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${SCHEDIO_BUILD:-$here/../../build}
export SCHEDIO_BIN=${SCHEDIO_BIN:-$build/bin}
. "$here/vm-lib.sh"
vm_test_start agent-systemd qemu-system-x86_64 busybox debootstrap mkfs.ext4 cpack dpkg-deb
[ "$(id -u)" -eq 0 ] || { echo "SKIP: debootstrap and the root image need root"; exit 77; }
cache=${SCHEDIO_VM_CACHE:-$repo/.cache/vm}
t0=$(date +%s)

# The packages: reused unless a program is newer than them.
pkgdir=$build/packages
deb() { ls -t "$pkgdir"/"$1"_*.deb 2>/dev/null | head -n1; }
if [ -z "$(deb schedio-agent)" ] || [ -z "$(deb schedio-server)" ] ||
	[ "$bin/schedio-agent" -nt "$(deb schedio-agent)" ] || [ "$bin/schedio-server" -nt "$(deb schedio-server)" ] ||
	[ "$repo/deploy/systemd/schedio-agent.service" -nt "$(deb schedio-agent)" ]; then
	rm -rf "$pkgdir"
	(cd "$build" && cpack -G DEB -B "$pkgdir" >"$tmp/cpack.log" 2>&1) || {
		tail -n 20 "$tmp/cpack.log"
		echo "FAIL: cpack -G DEB in $build"
		exit 1
	}
fi
agent_deb=$(deb schedio-agent) server_deb=$(deb schedio-server)
[ -n "$agent_deb" ] && [ -n "$server_deb" ] || { echo "FAIL: cpack made no schedio-agent/schedio-server .deb in $pkgdir"; exit 1; }

# The root file system: systemd plus the packages' runtime Depends, curl and
# jq for the checks (debootstrapped once, then cached).
deps=$(for d in "$agent_deb" "$server_deb"; do dpkg-deb -f "$d" Depends; done |
	tr ',' '\n' | sed 's/([^)]*)//; s/|.*//' | awk 'NF { print $1 }' | sort -u)
# shellcheck disable=SC2086
rootfs=$("$here/make-rootfs.sh" bookworm "$cache" $deps curl jq) || { echo "FAIL: building the root file system"; exit 1; }
t1=$(date +%s)

# README's capabilities: "The unit runs with only CAP_A, CAP_B ... and CAP_C".
caps=$(tr '\n' ' ' <"$repo/README.md" | grep -o 'The unit runs with only [^.]*\.' | grep -o 'CAP_[A-Z_]*' | paste -sd' ' - || true)
[ -n "$caps" ] || { echo "FAIL: README.md has no 'The unit runs with only CAP_...' sentence to check against"; exit 1; }

run() { # SUITE ENV...: a fresh root disk from the cache, booted once.
	local suite=$1 img=$tmp/root-$1.img rc=0 e envs=()
	shift
	for e in "$@"; do envs+=(-e "$e"); done
	truncate -s 1G "$img"
	mkfs.ext4 -q -F -L root -d "$rootfs" "$img"
	echo "== $suite: $(basename "$agent_deb") $(basename "$server_deb") on a systemd root disk (README caps: $caps)"
	"$here/vm-run.sh" -s "$suite" -R "$img" -t 300 -l "$tmp/console-$suite.log" \
		-f "$agent_deb" -f "$server_deb" -e "EXPECTED_CAPS=$caps" "${envs[@]}" \
		"$here/guest/agent_systemd.sh" | tee "$tmp/out-$suite" || rc=$?
	rm -f "$img"
	if [ "$rc" -ne 0 ] || ! grep -q '^ok: (b) the server stored' "$tmp/out-$suite"; then
		[ "$rc" -lt 124 ] || tail -n 40 "$tmp/console-$suite.log" | sed 's/^/  console: /'
		echo "FAIL: test_agent_systemd on $suite (guest exit $rc):"
		grep '^FAIL' "$tmp/out-$suite" | sed 's/^/  /'
		return 1
	fi
}

status=0
run bookworm || status=1
if [ "${SCHEDIO_VM_SID:-1}" = 1 ]; then
	run sid CHECK_KALLSYMS=1 || status=1
fi
echo "timings: packages and root file system $((t1 - t0)) s, VM runs $(($(date +%s) - t1)) s"
[ $status -eq 0 ] && echo "PASS: test_agent_systemd"
exit $status
