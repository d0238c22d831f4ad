#!/bin/sh
# pg-start.sh STATEFILE - starts a throwaway PostgreSQL from Debian's packages
# for the tests: a fresh cluster in a temporary directory, listening on
# 127.0.0.1 on a free port (and a unix socket in that directory), trust
# authentication, fsync off (the data is thrown away). Writes the cluster
# directory and the conninfo to STATEFILE (pg-stop.sh reads it) and prints
# the conninfo. initdb refuses to run as root, so as root the cluster runs
# as the postgres user.
set -eu
state=${1:?usage: pg-start.sh STATEFILE}
bindir=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
[ -x "$bindir/initdb" ] || { echo "pg-start.sh: no PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 1; }

dir=$(mktemp -d /tmp/schedio-pg.XXXXXX)
chmod 755 "$dir"
as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" = 0 ] && chown postgres: "$dir"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
	-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
	start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
conninfo="postgresql://postgres@127.0.0.1:$port/postgres"
printf '%s\n%s\n' "$dir" "$conninfo" >"$state"
echo "$conninfo"
