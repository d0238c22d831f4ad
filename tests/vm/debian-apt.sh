# debian-apt.sh - sourced by fetch-kernel.sh and fetch-kernel-source.sh: the
# apt options that reach a Debian suite's packages without touching the
# machine's apt configuration. The machine's own release comes from its apt
# lists; any other suite from a private sources file and lists dir in the
# cache, checked against Debian's archive keyring.
# Env: SCHEDIO_DEBIAN_MIRROR overrides the mirror for other suites (default:
# the mirror that serves the machine's own Debian release in its apt sources).

# debian_apt_setup SUITE CACHE_DIR: fills the array apt_opts (updating the
# private lists for another suite); calls the caller's die on failure.
debian_apt_setup() {
	local suite=$1 cache=$2 host_release mirror aptdir

	# Downloads go to our cache as root; apt's _apt sandbox user may not reach it.
	apt_opts=(-o APT::Sandbox::User=root)
	host_release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ "$suite" != "$host_release" ] || return 0
	mirror=${SCHEDIO_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(SITE) $(RELEASE)' 2>/dev/null |
		awk -v r="$host_release" '$2 == r { print $1; exit }')}
	[ -n "$mirror" ] || die "no Debian mirror found in the apt sources; set SCHEDIO_DEBIAN_MIRROR"
	aptdir=$cache/apt-$suite
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
		>"$aptdir/sources.list"
	apt_opts+=(-o "Dir::Etc::sourcelist=$aptdir/sources.list" -o "Dir::Etc::sourceparts=-"
		-o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
		-o "APT::Get::List-Cleanup=0")
	apt-get "${apt_opts[@]}" -qq update >&2 || die "apt-get update for $suite failed ($mirror)"
}
