#!/usr/bin/env bash
# chunk_reads.sh - what reading chunked raw reports costs against reading
# rows (issue 18, schema 0020): fills two SQLite databases with the same 6 h
# of 20 hosts' reports (bench_fill), one with the chunk pass off and one with
# it on, serves both (the pass off while measured), and asks both the same
# queries alternately, ROUNDS times each; prints the median per query and
# server, their ratio, and whether the answers were byte for byte the same.
#   tests/bench/run.sh chunk_reads
# Environment: ROUNDS (40), SCHEDIO_BUILD_REL (default ./build-rel, configured if missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/bench_lib.sh"
bench_env
rel=${SCHEDIO_BUILD_REL:-$SCHEDIO_SOURCE/build-rel}
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

[ -f "$rel/CMakeCache.txt" ] || cmake -S "$SCHEDIO_SOURCE" -B "$rel" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
cmake --build "$rel" -j "$(nproc)" --target bench_fill schedio-server >"$work/build.log"
SCHEDIO_SQLITE_CHUNK_AFTER_MS=-1 "$rel/bench/bench_fill" --db "$work/rows.db" --hosts 20 --hours 6 --interval-s 10 \
	2>/dev/null | head -1
"$rel/bench/bench_fill" --db "$work/chunks.db" --hosts 20 --hours 6 --interval-s 10 2>/dev/null | head -1
echo "chunked: $(sqlite3 "$work/chunks.db" "SELECT coalesce(sum(n), 0) FROM report_chunks") reports"
end=$(sqlite3 "$work/rows.db" "SELECT max(start_ms) + 10000 FROM reports")
urls=()
for db in rows chunks; do
	SCHEDIO_SQLITE_CHUNK_AFTER_MS=-1 bench_server_start "$work" "$rel/bin/schedio-server" "$work/$db.db"
	pids+=("$pid")
	urls+=("$url")
done
sleep 2
python3 - "${urls[0]}" "${urls[1]}" "$end" "${ROUNDS:-40}" <<'PY'
import statistics, sys, time, urllib.request
rows, chunks, end, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
h = "fill-00003"
qs = {"host runqlat, last 1 h, 10 s steps": f"/api/v1/hosts/{h}/runqlat?from={end-3600000}&to={end}&step=10000",
      "host runqlat, 45 min in chunks, 10 s": f"/api/v1/hosts/{h}/runqlat?from={end-3600000}&to={end-900000}&step=10000",
      "host iocost, last 1 h, 10 s steps": f"/api/v1/hosts/{h}/iocost?from={end-3600000}&to={end}&step=10000",
      "host reports list, 6 h": f"/api/v1/hosts/{h}/reports?from={end-6*3600000}&to={end}",
      "fleet health, 1 h": f"/api/v1/fleet/health?from={end-3600000}&to={end}"}
print(f"{'query':40} {'rows_ms':>8} {'chunks_ms':>9} {'ratio':>6} same")
for name, q in qs.items():
    ts, body = {rows: [], chunks: []}, {}
    for i in range(rounds + 1):
        for base in (rows, chunks) if i % 2 else (chunks, rows):
            t = time.perf_counter()
            body[base] = urllib.request.urlopen(base + q).read()
            ts[base].append(time.perf_counter() - t)
    a, b = statistics.median(ts[rows][1:]) * 1000, statistics.median(ts[chunks][1:]) * 1000
    print(f"{name:40} {a:8.2f} {b:9.2f} {b / a:6.2f} {'yes' if body[rows] == body[chunks] else 'NO'}")
PY
