#!/usr/bin/env bash
# quickstart.sh - the README's first command: installs what is needed, builds,
# then runs schedio-server (SQLite in ./state) with schedio-agent on this host
# reporting to it, and prints the dashboard URL. Ctrl-C stops both. Running it
# again reuses the database.
#   SCHEDIO_LISTEN   address to serve on (default 127.0.0.1:8080)
#   SCHEDIO_STATE    state folder (default ./state in the checkout)
#   SCHEDIO_BUILD_DIR  build folder (default ./build in the checkout)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
listen=${SCHEDIO_LISTEN:-127.0.0.1:8080}
state=${SCHEDIO_STATE:-$top/state}
build=${SCHEDIO_BUILD_DIR:-$top/build}

if [ "$(id -u)" -ne 0 ]; then
	echo "quickstart.sh: run as root: it installs packages and the agent loads BPF programs" >&2
	exit 1
fi
"$top/deploy/install-deps.sh"
"$top/deploy/build.sh" "$build"
mkdir -p "$state/agent"

server_pid=""
agent_pid=""
stop() {
	trap - INT TERM EXIT
	[ -n "$agent_pid" ] && kill -TERM "$agent_pid" 2>/dev/null || true
	[ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	echo "schedio stopped; data kept in $state"
}
trap stop INT TERM EXIT

# Emptied first: the background job opens the file itself, maybe after the
# loop below read the last run's "listening on" line.
: >"$state/server.out"
"$build/bin/schedio-server" --listen "$listen" --db "$state/schedio.db" --open-ingest >>"$state/server.out" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
	url=$(sed -n 's/^schedio-server listening on \(http[^ ]*\)$/\1/p' "$state/server.out" 2>/dev/null || true)
	[ -n "$url" ] && break
	kill -0 "$server_pid" 2>/dev/null || { echo "quickstart.sh: the server did not start" >&2; exit 1; }
	sleep 0.1
done
[ -n "$url" ] || { echo "quickstart.sh: the server did not report its address" >&2; exit 1; }
"$build/bin/schedio-agent" --server "$url" --state-dir "$state/agent" --interval 10 &
agent_pid=$!

echo
echo "schedio is running. Dashboard: $url"
echo "Health: ${url}healthz   Data: $state   Stop: Ctrl-C"
wait -n "$server_pid" "$agent_pid" || true
