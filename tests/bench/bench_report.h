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

/* A tail deflated once, so a gzip body costs only its head's compression. */
struct bench_gz_tail {
	unsigned char *raw; /* raw deflate blocks, the last one final, no back-references before them */
	size_t raw_len, plain_len;
	unsigned long crc; /* crc32 of the plain tail */
};

/* Deflates tail (level 6, as the agent does) for bench_body_gzip; 0 or -1. */
int bench_gz_tail_make(const char *tail, struct bench_gz_tail *out);
/* The same report as bench_body as one gzip member: the head's blocks end with a
 * full flush, the tail's precompressed blocks follow, the trailer covers both. */
char *bench_body_gzip(const char *prefix, unsigned host, unsigned long long seq, long long start_ms,
		      long long interval_ms, const struct bench_gz_tail *tail, size_t *len);

#endif
