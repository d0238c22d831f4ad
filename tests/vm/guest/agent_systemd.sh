#!/bin/bash
# agent_systemd.sh - guest side of test_agent_systemd.sh, run by systemd in a
# Debian VM (vm-run.sh -R): installs the project's .debs from /vm, starts
# schedio-server and the packaged schedio-agent unit, and checks (a) the
# agent's effective capabilities, (b) both BPF collectors attached and the
# first report stored, (c) a reload with a broken config fails, (d) the
# agent's warnings reach the journal at warning priority. One "ok:" or
# "FAIL:" line per check; exit 1 if any failed.
# Env: EXPECTED_CAPS (README's list, space-separated CAP_ names),
# CHECK_KALLSYMS=1 (also: the service sees kernel addresses, sched_ext split).
# vm-run.sh starts scripts with sh; this one wants bash. No -e: every check
# runs and reports, whatever the others gave.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -uo pipefail

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# Polls COMMAND every second for up to SECONDS.
wait_for() {
	local n=$1
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 1
		n=$((n - 1))
	done
	return 1
}
journal() { journalctl -u schedio-agent --no-pager -o cat "$@"; }
api() { curl -fsS "http://127.0.0.1:8080$1"; }

# --- install
if ! dpkg -i /vm/schedio-agent_*.deb /vm/schedio-server_*.deb >/tmp/dpkg.log 2>&1; then
	tail -n 20 /tmp/dpkg.log
	echo "FAIL: dpkg -i of the packages"
	exit 1
fi
ok "dpkg -i schedio-agent schedio-server"

# --- the server (dynamic user): an ingest token made before its first start;
# systemd hands the state dir over to the dynamic user when it starts.
mkdir -p /var/lib/private/schedio
chmod 700 /var/lib/private /var/lib/private/schedio
token=$(schedio-server token add --db /var/lib/private/schedio/schedio.db --scope ingest vm 2>/tmp/token.err | tail -n1)
[ -n "$token" ] || { cat /tmp/token.err; echo "FAIL: schedio-server token add"; exit 1; }
systemctl start schedio-server || { journalctl -u schedio-server --no-pager | tail -n 20; }
if ! wait_for 30 api /healthz; then
	journalctl -u schedio-server --no-pager | tail -n 20
	echo "FAIL: schedio-server does not answer on 127.0.0.1:8080"
	exit 1
fi
ok "schedio-server.service answers"

# --- the agent, as README says: token in agent.conf, enable --now.
printf 'token = %s\ninterval = 5\n' "$token" >>/etc/schedio/agent.conf
systemctl enable --now schedio-agent >/dev/null 2>&1 || fail "systemctl enable --now schedio-agent"
wait_for 20 systemctl is-active schedio-agent || {
	journal | tail -n 20
	echo "FAIL: schedio-agent.service is not active"
	exit 1
}
pid=$(systemctl show -p MainPID --value schedio-agent)

# --- (a) capabilities: CapEff of the main process, decoded.
capname() {
	case $1 in
	2) echo CAP_DAC_READ_SEARCH ;; 24) echo CAP_SYS_RESOURCE ;; 34) echo CAP_SYSLOG ;;
	38) echo CAP_PERFMON ;; 39) echo CAP_BPF ;; 21) echo CAP_SYS_ADMIN ;; *) echo "CAP_#$1" ;;
	esac
}
capeff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status")
have=()
for bit in $(seq 0 63); do
	(((16#$capeff >> bit) & 1)) && have+=("$(capname "$bit")")
done
have_s=" ${have[*]} "
# What the unit grants: AmbientCapabilities= as systemd parsed it.
unit_caps=$(systemctl show -p AmbientCapabilities --value schedio-agent | tr 'a-z' 'A-Z')
caps_ok=1
for c in $unit_caps; do
	if [[ $have_s != *" $c "* ]]; then
		caps_ok=0
		why=""
		[ "$c" = CAP_SYSLOG ] && [ "$(systemctl show -p ProtectKernelLogs --value schedio-agent)" = yes ] &&
			why=" (ProtectKernelLogs=yes removes CAP_SYSLOG from the bounding set)"
		fail "(a) capabilities: the unit grants $c but the running agent (pid $pid, CapEff $capeff) lacks it$why"
	fi
done
for c in ${EXPECTED_CAPS:-}; do
	if [[ $have_s != *" $c "* ]]; then
		caps_ok=0
		fail "(a) capabilities: README lists $c, the running agent lacks it (CapEff $capeff: ${have[*]})"
	fi
done
for c in "${have[@]}"; do
	if [[ " ${EXPECTED_CAPS:-} " != *" $c "* ]]; then
		caps_ok=0
		fail "(a) capabilities: the running agent has $c, which README does not list (README: ${EXPECTED_CAPS:-})"
	fi
done
[ $caps_ok = 1 ] && ok "(a) capabilities: CapEff $capeff = ${have[*]} (README: ${EXPECTED_CAPS:-}; unit: $unit_caps)"

# --- (b) both BPF collectors attached, and the first report stored.
wait_for 20 sh -c 'journalctl -u schedio-agent -o cat | grep -q "runqlat: collecting"'
journal | grep 'runqlat: \|iocost: ' | sed 's/^/  agent: /'
if ! journal | grep -q 'runqlat: collecting'; then
	fail "(b) the runqlat collector did not start (no 'runqlat: collecting' in the agent's log)"
elif journal | grep -q 'iocost: .*not available on this host\|iocost: hweights from io.weight, not tracepoints'; then
	fail "(b) the iocost collector did not attach (see its log line above)"
else
	ok "(b) runqlat and iocost collectors attached"
fi
mid=$(cat /etc/machine-id)
count_of() { api /api/v1/hosts | jq -r --arg id "$mid" '.hosts[] | select(.id == $id) | .runqlat.count // 0'; }
has_report() { [ "$(count_of)" -gt 0 ] 2>/dev/null; }
if wait_for 60 has_report; then
	host=$(api "/api/v1/hosts/$mid")
	ok "(b) the server stored the agent's report: runqlat count $(count_of), host $(jq -c '{id, cpus, cgroups: (.cgroups | length), schedulers}' <<<"$host")"
else
	journal | tail -n 10 | sed 's/^/  agent: /'
	fail "(b) no runqlat data for host $mid on the server after 60 s: $(api /api/v1/hosts)"
fi

# --- (c) reload: a valid configuration applies, a broken one makes
# `systemctl reload` fail while the agent keeps running.
execreload=$(systemctl show -p ExecReload --value schedio-agent | grep -o 'argv\[\]=[^;]*' | paste -sd'|' -)
# A minbase Debian has no procps: ExecReload=/bin/kill needs it as a Depends.
hint=""
[ -x /bin/kill ] || hint=" (no /bin/kill here: it comes with procps, which the package does not depend on)"
if systemctl reload schedio-agent >/tmp/reload.out 2>&1; then
	ok "(c) systemctl reload with a valid agent.conf succeeds"
else
	fail "(c) systemctl reload with a valid agent.conf fails ($execreload): $(journal | grep -m1 'Failed to locate executable\|Control process exited' || cat /tmp/reload.out)$hint"
fi
cp /etc/schedio/agent.conf /tmp/agent.conf.good
echo 'interval = not-a-number' >>/etc/schedio/agent.conf
since=$(date '+%Y-%m-%d %H:%M:%S')
if systemctl reload schedio-agent >/tmp/reload.out 2>&1; then
	fail "(c) systemctl reload schedio-agent with a broken agent.conf exited 0 ($execreload)"
elif journal --since "$since" | grep -q 'Failed to locate executable'; then
	fail "(c) systemctl reload failed, but not on the broken agent.conf: $(journal --since "$since" | grep -m1 'Failed to locate executable')$hint"
else
	ok "(c) systemctl reload with a broken agent.conf exits non-zero"
fi
sleep 2
systemctl is-active -q schedio-agent || fail "(c) the agent is not running after a failed reload"
cp /tmp/agent.conf.good /etc/schedio/agent.conf

# --- (d) the agent's errors reach the journal with their priority: the
# broken config above, then an unreachable server.
systemctl stop schedio-server
wait_for 30 sh -c 'journalctl -u schedio-agent -o cat | grep -q "not delivered"'
journal -p warning | sed 's/^/  journal -p warning: /'
if journal -p warning | grep -q 'not delivered'; then
	ok "(d) the unreachable server's warning is in journalctl -u schedio-agent -p warning"
elif journal | grep -q 'not delivered'; then
	fail "(d) the agent logged '$(journal | grep -m1 'not delivered')' but journalctl -p warning does not show it (logged at priority $(journalctl -u schedio-agent -o json --no-pager | jq -r 'select(.MESSAGE | tostring | test("not delivered")) | .PRIORITY' | head -n1))"
else
	fail "(d) the agent logged no delivery failure within 30 s of the server stopping"
fi
# The broken agent.conf's error, from the unit's own processes (the agent on
# SIGHUP, or an ExecReload= that validates first), not systemd's lines: when
# logged, it must be at warning or above.
unit_lines() { journalctl _SYSTEMD_UNIT=schedio-agent.service --no-pager -o cat "$@" | grep 'interval'; }
if unit_lines -p warning >/dev/null; then
	ok "(d) the broken agent.conf's error is in journalctl -u schedio-agent -p warning: $(unit_lines -p warning | head -n1)"
elif unit_lines >/dev/null; then
	fail "(d) the broken agent.conf's error '$(unit_lines | head -n1)' is logged below warning (journalctl -p warning misses it)"
else
	echo "note: nothing of the unit's processes logged about the broken agent.conf (the reload never reached the config)"
fi

# --- sched_ext kernels: the service sees kernel addresses.
if [ "${CHECK_KALLSYMS:-0}" = 1 ]; then
	if journal | grep -q 'cannot find ext_sched_class'; then
		fail "(e) the agent cannot split runqueue latency per sample: $(journal | grep -m1 -o 'cannot find ext_sched_class.*')"
	elif [ ! -e /sys/kernel/sched_ext/state ]; then
		fail "(e) this kernel has no sched_ext"
	elif [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ]; then
		echo "note: (e) kernel.kptr_restrict is 0 here: kernel addresses are visible to anyone, the unit's CAP_SYSLOG is not exercised"
	else
		ok "(e) the agent under the unit sees ext_sched_class in /proc/kallsyms (kernel.kptr_restrict=$(cat /proc/sys/kernel/kptr_restrict)): per-sample scheduler split"
	fi
	# (f) the kernel log: /dev/kmsg readable (sched_ext exit reasons), the rest shut
	if journal | grep -q 'kernel log is unreadable'; then
		fail "(f) the agent under the unit cannot read /dev/kmsg: $(journal | grep -m1 -o 'kernel log is unreadable.*')"
	elif ! journal | grep -q 'sched_ext: scheduler exits from the kernel log'; then
		fail "(f) the agent under the unit did not say it reads the kernel log (no 'sched_ext: scheduler exits from the kernel log')"
	else
		ok "(f) the agent under the unit reads /dev/kmsg (kernel.dmesg_restrict=$(cat /proc/sys/kernel/dmesg_restrict)): $(journal | grep -m1 -o 'sched_ext: scheduler exits from the kernel log.*')"
	fi
	props=$(systemctl show -p DeviceAllow -p InaccessiblePaths -p BindReadOnlyPaths -p SystemCallFilter schedio-agent | tr '\n' ' ')
	if [[ $props == *"/dev/kmsg r"* ]] && [[ $props == *"/proc/kmsg"* ]]; then
		ok "(f) the unit allows /dev/kmsg for reading only and hides /proc/kmsg"
	else
		fail "(f) the unit's kernel log settings: $props"
	fi
fi

echo "journal of schedio-agent:"
journal | sed 's/^/  /' | tail -n 30
[ $fails -eq 0 ]
