/* compare_bench.c - how long the statistics of a comparison take at fleet
 * size: compare_run (medians, 2,000-resample bootstrap, verdict) over 1,000
 * hosts per arm, unpaired and paired, plus compare_metric_of over the 2,000
 * hosts' merged histograms. Prints the median of ROUNDS rounds (thread CPU
 * time) so the figure in BENCHMARKS.md can be checked.
 *   compare_bench [-n HOSTS_PER_ARM] [-r RESAMPLES]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hist.h"
#include "server/compare/compare_stats.h"

#define ROUNDS 21

static double now_ms(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine is shared, wall time would measure the neighbours */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t bench_rng = 0x15;

static double uniform(void)
{
	uint64_t z = (bench_rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* A host's merged histogram: 200 buckets around its level, like a day of runqueue waits. */
static void fill_hist(struct hist *h, double level)
{
	memset(h, 0, sizeof(*h));
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t idx = hist_index((uint64_t)(level * pow(1.04, i)));
		uint64_t n = (uint64_t)(100000 * exp(-(double)i / 25));

		h->buckets[idx] += n;
		h->count += n;
		h->sum_ns += n * hist_bucket_value(idx);
	}
}

int main(int argc, char **argv)
{
	size_t n = 1000;
	unsigned resamples = COMPARE_MIN_RESAMPLES;
	struct compare_host *a = NULL, *b = NULL;
	struct hist *hists = NULL;
	struct compare_result res = { 0 };
	struct compare_opts o = { .metric = COMPARE_P99, .threshold = COMPARE_DEFAULT_THRESHOLD, .seed = 1 };
	double t_unpaired[ROUNDS], t_paired[ROUNDS], t_metric[ROUNDS];
	int status = 1;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-n") == 0)
			n = strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "-r") == 0)
			resamples = (unsigned)strtoul(argv[i + 1], NULL, 10);
	}
	o.resamples = resamples;
	a = calloc(n, sizeof(*a));
	b = calloc(n, sizeof(*b));
	hists = malloc(2 * n * sizeof(*hists));
	if (!a || !b || !hists || n == 0) {
		fprintf(stderr, "compare_bench: out of memory or -n 0\n");
		goto out;
	}
	for (size_t i = 0; i < 2 * n; i++)
		fill_hist(&hists[i],
			  20000 * exp(0.25 * sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform())));

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ms();

		for (size_t i = 0; i < n; i++) {
			snprintf(a[i].host_id, sizeof(a[i].host_id), "host-%06zu", i);
			a[i].value_ns = compare_metric_of(&hists[i], COMPARE_P99);
			a[i].samples = hists[i].count;
			snprintf(b[i].host_id, sizeof(b[i].host_id), "host-%06zu", i);
			b[i].value_ns = compare_metric_of(&hists[n + i], COMPARE_P99);
			b[i].samples = hists[n + i].count;
		}
		t_metric[r] = now_ms() - t0;

		o.paired = false;
		o.seed = (uint64_t)r;
		t0 = now_ms();
		if (compare_run(a, n, b, n, &o, &res) != 0)
			goto out;
		t_unpaired[r] = now_ms() - t0;

		o.paired = true;
		t0 = now_ms();
		if (compare_run(a, n, b, n, &o, &res) != 0)
			goto out;
		t_paired[r] = now_ms() - t0;
	}
	printf("compare_bench: %zu hosts per arm, %u resamples, median of %d rounds (thread CPU time)\n", n,
	       resamples < COMPARE_MIN_RESAMPLES ? COMPARE_MIN_RESAMPLES : resamples, ROUNDS);
	printf("  compare_metric_of, %zu merged histograms: %.3f ms\n", 2 * n, median(t_metric, ROUNDS));
	printf("  compare_run unpaired: %.3f ms\n", median(t_unpaired, ROUNDS));
	printf("  compare_run paired:   %.3f ms (%zu pairs, verdict %s)\n", median(t_paired, ROUNDS), res.pairs,
	       compare_verdict_name(res.verdict));
	status = 0;
out:
	free(a);
	free(b);
	free(hists);
	return status;
}
