#!/usr/bin/env bash
# ssd_database.sh - the SSD database benchmark (issue 7): import time of a
# ~1.5 MB resctl-bench result and GET /api/v1/ssd/models with 10,000 models.
# The work is in bench_ssd.py (real server, real HTTP, real SQLite file).
here=$(cd "$(dirname "$0")" && pwd)
exec /usr/bin/python3 "$here/bench_ssd.py" "$@"
