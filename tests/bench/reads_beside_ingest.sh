#!/usr/bin/env bash
# reads_beside_ingest.sh - what a Prometheus scrape of a large fleet does to
# ingest: a server with HOSTS (default 6,000) hosts stored renders /metrics
# for 5,000 of them; curl scrapes it back to back while the open-loop
# generator sends RATE (default 1,000) reports/s for SECONDS_PER_RUN (default
# 20) s. Prints, per build and round (RUNS, default 2, alternating), the
# reports refused, the ack p99 and max, and the scrapes' count and median
# time. Compares this tree with BASE (default the commit before reads moved to
# their own workers), both Release, in the same run.
#   usage: tests/bench/reads_beside_ingest.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/bench_lib.sh"
bench_env
base_rev=${BASE:-0621653}
hosts=${HOSTS:-6000}
rate=${RATE:-1000}
secs=${SECONDS_PER_RUN:-20}
runs=${RUNS:-2}
work=$(mktemp -d /tmp/schedio-reads.XXXXXX)
pid=
scraper=
trap '[ -n "$scraper" ] && kill "$scraper" 2>/dev/null; bench_server_stop; rm -rf "$work"' EXIT
bench_build_rel "$work" schedio-server loadgen
base=$(bench_baseline_build "$base_rev" "$work/base" schedio-server)

# one round with server binary $2, labelled $1
one_run() {
	local label=$1 server=$2 out times
	rm -f "$work"/run.db*
	bench_server_start "$work" "$server" "$work/run.db" --threads 2
	"$rel/bench/loadgen" --url "$url" --burst 500 --rounds $((hosts / 500)) --hosts "$hosts" >/dev/null
	: >"$work/scrapes"
	(while :; do curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$url/metrics" >>"$work/scrapes"; done) &
	scraper=$!
	sleep 1
	out=$("$rel/bench/loadgen" --url "$url" --rate "$rate" --duration "$secs" --hosts "$hosts" \
		--concurrency 512 2>/dev/null || true)
	kill "$scraper"
	wait "$scraper" 2>/dev/null || true
	scraper=
	bench_server_stop
	times=$(awk '$1 == 200 {print $2}' "$work/scrapes")
	printf '%-6s refused %6s  p99 %8s ms  max %8s ms  scrapes %3s (200: %3s), median %s s\n' "$label" \
		"$(echo "$out" | bench_field errors)" "$(echo "$out" | bench_field p99)" \
		"$(echo "$out" | bench_field max)" "$(wc -l <"$work/scrapes")" "$(echo "$times" | grep -c .)" \
		"$(echo "$times" | bench_median)"
}

echo "== /metrics scraped back to back beside $rate reports/s for $secs s, $hosts hosts stored; base $base_rev"
for _ in $(seq "$runs"); do
	one_run base "$base/bin/schedio-server"
	one_run this "$rel/bin/schedio-server"
done
