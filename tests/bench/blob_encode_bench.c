/* blob_encode_bench.c - times what ingest pays per realistic report to
 * encode and pack its stored blobs (the series blob of 20 cgroups and 2 CPUs,
 * the host_hist blob, the iocost blob of 2 disks x 10 cgroups), through the
 * same calls report_parse makes, and the bytes they come to. The data are
 * bench_report.c's: 60 neighbouring buckets per histogram with counts 1..20.
 * Only the encode API is used, which did not change with issue 18, so
 * tests/bench/storage_bytes.sh builds this one file against the baseline's
 * library too. Prints the median of 9 rounds, CPU time per report. -k stores
 * every key as a small id (a series by its number, an iocost cgroup by one
 * digit), as a per-host key table would leave a row: what keys cost packed.
 * -d packs the series and iocost blobs as a server does once its dictionaries
 * are in use (issue 18): each trained first on 1,000 reports made like, but
 * not among, the ones timed. Built with -DBENCH_NO_DICT (against a tree from
 * before the dictionaries, as storage_bytes.sh does) it has no -d.
 *   blob_encode_bench [-n REPORTS_PER_ROUND] [-k] [-d]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/series/blob.h"
#ifndef BENCH_NO_DICT
#include "server/series/blob_dict.h"
#else
#define blob_pack_kind(b, kind) blob_pack(b)
#endif
#include "server/series/iocost_set.h"
#include "server/series/runqlat_set.h"

#define SERIES 22 /* 20 cgroups, 2 CPUs */
#define BUCKETS 60
#define VARIANTS 16

struct variant {
	char keys[SERIES][32];
	uint16_t idx[SERIES][BUCKETS];
	uint64_t cnt[SERIES][BUCKETS], count[SERIES];
	struct runqlat_hist host; /* the CPUs' sum, as report_parse makes it */
	struct iocost_set io;
};

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int make_variant(struct variant *v, bool ids)
{
	static char host_key[1];

	v->host.key = host_key;
	for (int s = 0; s < SERIES; s++) {
		unsigned start = 80 + rnd(40);

		if (ids)
			snprintf(v->keys[s], sizeof(v->keys[s]), "%d", s);
		else if (s < 20)
			snprintf(v->keys[s], sizeof(v->keys[s]), s ? "/system.slice/svc%d" : "/", s);
		else
			snprintf(v->keys[s], sizeof(v->keys[s]), "%d", s - 20);
		for (int b = 0; b < BUCKETS; b++) {
			v->idx[s][b] = (uint16_t)(start + b);
			v->cnt[s][b] = 1 + rnd(20);
			v->count[s] += v->cnt[s][b];
			if (s >= 20)
				v->host.hist.buckets[start + b] += v->cnt[s][b];
		}
		if (s >= 20)
			hist_add_totals(&v->host.hist, v->count[s], v->count[s] * 50000, 4000000);
	}
	for (int d = 0; d < 2; d++) {
		char dev[16], path[32];
		struct iocost_row *r;

		snprintf(dev, sizeof(dev), "253:%d", d * 16);
		r = iocost_set_get(&v->io, IOCOST_DISK, dev, strlen(dev), "", 0);
		if (!r)
			return -1;
		r->sum[IOCOST_VRATE] = (90 + rnd(20)) * 1000;
		r->n[IOCOST_VRATE] = 1;
		for (int i = 0; i < 10; i++) {
			const int64_t vals[IOCOST_FIELDS] = { 100000 * (1 + i % 3),
							      rnd(30) * 1000 + 500,
							      rnd(30) * 1000 + 250,
							      rnd(50) * 1000 + rnd(10) * 100,
							      rnd(5000),
							      rnd(100),
							      rnd(100) };

			snprintf(path, sizeof(path), ids ? "%d" : "/workload%d.slice", i);
			r = iocost_set_get(&v->io, IOCOST_CGROUP, dev, strlen(dev), path, strlen(path));
			if (!r)
				return -1;
			for (int f = 0; f < IOCOST_FIELDS; f++) {
				r->sum[f] = vals[f];
				r->n[f] = 1;
			}
		}
	}
	return 0;
}

/* One report's blobs, as report_parse encodes them; adds their sizes to bytes[3]. */
static int encode_report(const struct variant *v, double bytes[3])
{
	struct blob series = { 0 }, host_hist = { 0 }, iocost = { 0 };
	struct runqlat_set sched = { 0 };
	int rc = -1;

	runqlat_set_encode_begin(&series, SERIES);
	for (int s = 0; s < SERIES; s++)
		runqlat_set_encode_series(&series, s < 20 ? RUNQLAT_CGROUP : RUNQLAT_CPU, v->keys[s],
					  strlen(v->keys[s]), v->count[s], v->count[s] * 50000, 4000000, v->idx[s],
					  v->cnt[s], BUCKETS);
	runqlat_set_encode_host_hist(&host_hist, &v->host, &sched, "eevdf");
	if (host_hist.oom || series.oom || blob_pack_kind(&series, BLOB_DICT_SERIES))
		goto out;
	iocost_set_encode(&v->io, &iocost);
	if (iocost.oom || blob_pack_kind(&iocost, BLOB_DICT_IOCOST))
		goto out;
	bytes[0] += (double)host_hist.len;
	bytes[1] += (double)series.len;
	bytes[2] += (double)iocost.len;
	rc = 0;
out:
	blob_free(&series);
	blob_free(&host_hist);
	blob_free(&iocost);
	return rc;
}

#ifndef BENCH_NO_DICT
/* Samples 1,000 reports of their own and trains, registers and uses both dictionaries. */
static int train_dicts(bool ids)
{
	static struct variant v;
	double ignored[3] = { 0 };

	for (int i = 0; i < 1000; i++) {
		memset(&v, 0, sizeof(v));
		if (make_variant(&v, ids) || encode_report(&v, ignored))
			return -1;
		iocost_set_free(&v.io);
	}
	for (int k = BLOB_DICT_SERIES; k <= BLOB_DICT_IOCOST; k++) {
		uint8_t *d;
		size_t len;
		uint32_t id;

		if (blob_dict_train(k, &d, &len, &id) || blob_dict_add(id, k, d, len) || blob_dict_use(k, id)) {
			fprintf(stderr, "blob_encode_bench: cannot train dictionary %d\n", k);
			return -1;
		}
		free(d);
	}
	return 0;
}
#endif

int main(int argc, char **argv)
{
	static struct variant vs[VARIANTS];
	double rounds[9], bytes[3] = { 0 };
	int n = 5000;
	bool ids = false, dicts = false;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
			n = atoi(argv[++a]);
		else if (strcmp(argv[a], "-k") == 0)
			ids = true;
		else if (strcmp(argv[a], "-d") == 0)
			dicts = true;
		else
			n = 0;
	}
	if (n <= 0) {
		fprintf(stderr, "usage: %s [-n REPORTS_PER_ROUND] [-k] [-d]\n", argv[0]);
		return 2;
	}
#ifndef BENCH_NO_DICT
	blob_dict_configure(dicts ? 1000 : 0, 0);
	if (dicts && train_dicts(ids))
		return 1;
#else
	if (dicts) {
		fprintf(stderr, "blob_encode_bench: built without dictionaries (BENCH_NO_DICT)\n");
		return 2;
	}
#endif
	for (int i = 0; i < VARIANTS; i++)
		if (make_variant(&vs[i], ids)) {
			fprintf(stderr, "blob_encode_bench: out of memory\n");
			return 1;
		}
	for (int i = 0; i < VARIANTS; i++)
		if (encode_report(&vs[i], bytes))
			return 1;
	for (int r = 0; r < 9; r++) {
		double t0 = cpu_ns(), ignored[3] = { 0 };

		for (int i = 0; i < n; i++)
			if (encode_report(&vs[i % VARIANTS], ignored))
				return 1;
		rounds[r] = (cpu_ns() - t0) / n;
	}
	qsort(rounds, 9, sizeof(rounds[0]), cmp_double);
	printf("encode_pack_us_per_report=%.2f (median of 9 x %d; min %.2f max %.2f) host_hist=%.0f series=%.0f "
	       "iocost=%.0f bytes\n",
	       rounds[4] / 1000.0, n, rounds[0] / 1000.0, rounds[8] / 1000.0, bytes[0] / VARIANTS, bytes[1] / VARIANTS,
	       bytes[2] / VARIANTS);
	for (int i = 0; i < VARIANTS; i++)
		iocost_set_free(&vs[i].io);
	return 0;
}
