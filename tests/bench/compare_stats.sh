#!/usr/bin/env bash
# compare_stats.sh - times the statistics of a comparison (compare_run) over
# 1,000 hosts per arm with 2,000 bootstrap resamples (compare_bench.c).
set -euo pipefail
build=${SCHEDIO_BUILD:?}
"$build/bench/compare_bench" -n "${COMPARE_BENCH_HOSTS:-1000}" -r "${COMPARE_BENCH_RESAMPLES:-2000}"
