#!/bin/sh
# pg-stop.sh STATEFILE - stops the PostgreSQL pg-start.sh started and removes
# its cluster directory. Missing state is not an error (nothing to stop).
set -u
state=${1:?usage: pg-stop.sh STATEFILE}
[ -f "$state" ] || exit 0
dir=$(sed -n 1p "$state")
bindir=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
case "$dir" in /tmp/schedio-pg.*) ;; *) echo "pg-stop.sh: unexpected cluster directory '$dir'" >&2; exit 1 ;; esac
if [ "$(id -u)" = 0 ]; then
	runuser -u postgres -- "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
else
	"$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
fi
rm -rf "$dir"
rm -f "$state"
exit 0
