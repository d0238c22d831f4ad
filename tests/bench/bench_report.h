/* bench_report.h - realistic schedio.report.v1 bodies for the benchmarks:
 * 20 cgroups with 60 non-zero buckets each, 2 CPUs, 2 disks with 10 iocost
 * cgroup rows each. A body is a small per-report head plus a pre-built tail,
 * so making one costs a copy. */
#ifndef SCHEDIO_BENCH_REPORT_H
#define SCHEDIO_BENCH_REPORT_H

#include <stddef.h>

/* A pre-built tail (runqlat and iocost sections), random per call; malloc'd. */
char *bench_tail(void);
/* A whole report body for host number host of prefix; malloc'd, length in *len. */
char *bench_body(const char *prefix, unsigned host, unsigned long long seq, long long start_ms, long long interval_ms,
		 const char *tail, size_t *len);

#endif
