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
	libbpf-dev bpftool libelf-dev
	libmicrohttpd-dev libsqlite3-dev libcjson-dev libcurl4-gnutls-dev zlib1g-dev
	libinih-dev libcmocka-dev nettle-dev libgnutls28-dev libpq-dev
	# tests and tools they drive
	python3 python3-jsonschema python3-yaml curl jq sqlite3 faketime procps iproute2 stress-ng openssl
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd debootstrap e2fsprogs
	chromium fonts-dejavu-core
	postgresql
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
apt-get install -y -q --no-install-recommends "${missing[@]}"
# A PostgreSQL cluster started by the package is not used: tests start their own.
echo "install-deps.sh: done"
