#!/usr/bin/env bash
# install-deps.sh - installs every Debian package that building schedio, its
# quick start and its test suite need, on Debian 12, as root. Idempotent: when
# everything is present it changes nothing and returns at once. npm packages
# (Chart.js, chartjs-chart-matrix, playwright-core; @redocly/cli for the
# schema lint) are pinned in web/package-lock.json and
# tests/schema/package-lock.json and installed by the build with `npm ci`.
set -euo pipefail

packages=(
	# build
	build-essential cmake pkg-config clang clang-format llvm libclang-rt-14-dev
	# sched_ext objects: the newest clang Debian 12 ships (bookworm-security) keeps kptr type tags,
	# which clang 14 drops, and arena address spaces, which clang-19 loses (deploy/scx-build-object.sh)
	clang-22
	libbpf-dev bpftool libelf-dev liburing-dev
	libmicrohttpd-dev libsqlite3-dev libcjson-dev libcurl4-gnutls-dev zlib1g-dev libzstd-dev libdeflate-dev
	libinih-dev libcmocka-dev nettle-dev libgnutls28-dev libpq-dev
	# the CLI's static libbpf: sid's source package, checked by apt against Debian's keyring,
	# unpacked by dpkg-source (dpkg-dev, below) and built (deploy/build-libbpf.sh)
	debian-archive-keyring
	# tests and tools they drive
	python3 python3-jsonschema python3-yaml curl jq sqlite3 faketime procps iproute2 stress-ng openssl fio
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd debootstrap e2fsprogs
	chromium fonts-dejavu-core
	postgresql
	# /metrics checked by the real thing: promtool and prometheus (the tests run /usr/bin/prometheus
	# themselves, on a temporary config; the package's own service is kept off, see below)
	prometheus
	# benchmarks: tests/bench/ingest_profile.sh samples the server with perf
	linux-perf
	# packaging and the hwdb check
	dpkg-dev file systemd udev
)

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it installs Debian packages)" >&2
	exit 1
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing+=("$p")
	fi
done
# Node.js: any installed node/npm will do; Debian's packages otherwise.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps.sh: all packages present"
	exit 0
fi
echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# No service is started by what this installs: packages like prometheus and postgresql start a
# daemon from their postinst (prometheus would scrape this machine into /var/lib/prometheus and
# listen on :9090), and the tests start their own instances instead. Debian's way to say so is a
# policy-rc.d that refuses (exit 101); one is put in place for this run unless the machine has one.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# install-deps.sh: no service starts while it installs\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -q --no-install-recommends "${missing[@]}"
# Nor at boot: the prometheus package enables its unit. (A machine whose own policy-rc.d allowed
# the start gets it stopped.)
if dpkg-query -W -f='${Status}' prometheus 2>/dev/null | grep -q "ok installed"; then
	if [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >/dev/null 2>&1 || true
	else
		systemctl disable prometheus.service >/dev/null 2>&1 || true
		update-rc.d prometheus disable >/dev/null 2>&1 || true
		invoke-rc.d prometheus stop >/dev/null 2>&1 || true
	fi
fi
echo "install-deps.sh: done"
