#!/usr/bin/env bash
# json_parse.sh - times the server's JSON parser against cJSON_ParseWithLength
# on a real agent report (the fuzz corpus's) and on a large synthetic one
# (report_factory.py with 20 cgroups and 64 CPUs, generated here).
set -euo pipefail
src=${SCHEDIO_SOURCE:?}
build=${SCHEDIO_BUILD:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$src/tests/integration" "$tmp/report_20cg.json" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import report_factory
rep = report_factory.report(seed=1, start_ms=1700000000000, cgroups=20, cpus=64, io_cgroups=20)
open(sys.argv[2], "w").write(json.dumps(rep))
PY
"$build/bench/json_parse_bench" -n "${JSON_BENCH_N:-2000}" \
	"$src/tests/fuzz/corpus/fuzz_server_report/agent_report.json" "$tmp/report_20cg.json"
