/* compare_stats.c - the statistics of a scheduler comparison: per-host
 * metric, medians over hosts, the bootstrap interval of the ratio and the
 * verdict with its sentence (method in compare_stats.h and README.md).
 *
 * The bootstrap draws from a small seeded generator of its own
 * (xoshiro256**, seeded through splitmix64), never from rand(), so an answer
 * depends only on the data and the seed. A resample's median is read from
 * counts of the drawn ranks of the sorted values (O(n) per resample, no
 * sorting), which keeps 1,000 hosts x 2,000 resamples well under a second.
 */
#include "server/compare/compare_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xoshiro256**: 256 bits of state, seeded by splitmix64 so any seed works. */
struct compare_rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void rng_seed(struct compare_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rng_next(struct compare_rng *r)
{
	uint64_t *s = r->s, out = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return out;
}

/* Uniform in [0, n) for n < 2^32 by multiply-shift: the bias is below n / 2^32. */
static size_t rng_below(struct compare_rng *r, size_t n)
{
	return (size_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

double compare_metric_of(const struct hist *h, enum compare_metric m)
{
	static const double q[] = {
		[COMPARE_P50] = 0.5, [COMPARE_P90] = 0.9, [COMPARE_P99] = 0.99, [COMPARE_P999] = 0.999
	};

	if (!h)
		return NAN;
	if (m == COMPARE_MEAN)
		return h->count ? (double)h->sum_ns / (double)h->count : NAN;
	if ((unsigned)m > COMPARE_P999 || hist_total(h->buckets) == 0)
		return NAN;
	return (double)hist_quantile(h->buckets, q[m]);
}

static const char *const metric_names[] = { [COMPARE_P50] = "p50",
					    [COMPARE_P90] = "p90",
					    [COMPARE_P99] = "p99",
					    [COMPARE_P999] = "p999",
					    [COMPARE_MEAN] = "mean" };

int compare_metric_parse(const char *s, enum compare_metric *m)
{
	if (!s || !m)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
		if (strcmp(s, metric_names[i]) == 0) {
			*m = (enum compare_metric)i;
			return 0;
		}
	return -EINVAL;
}

const char *compare_metric_name(enum compare_metric m)
{
	if ((unsigned)m >= sizeof(metric_names) / sizeof(metric_names[0]))
		return "?";
	return metric_names[m];
}

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_BETTER:
		return "better";
	case COMPARE_WORSE:
		return "worse";
	case COMPARE_NO_DIFFERENCE:
		return "no_difference";
	case COMPARE_INCONCLUSIVE:
		break;
	}
	return "inconclusive";
}

const char *compare_method(const struct compare_opts *o)
{
	if (o && o->paired)
		return "paired by host: each host's metric from its merged histogram in each window, ratio = median "
		       "over "
		       "hosts of each host's ratio A/B, 95% percentile bootstrap interval resampling hosts as pairs";
	return "each host's metric from its merged histogram, arm value = median over hosts, ratio = median(A) / "
	       "median(B), 95% percentile bootstrap interval resampling each arm's hosts independently";
}

uint64_t compare_seed(const char *text)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Median of sorted v[0..n), n > 0: the middle one, or the mean of the two middle ones. */
static double median_sorted(const double *v, size_t n)
{
	return (n & 1) ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2; /* halves first: no overflow */
}

/* Median of one bootstrap resample of sorted v[0..n): n ranks drawn with
 * replacement, counted in cnt[0..n) (zeroed on return), and the middle
 * rank(s) found by a running sum. */
static double resample_median(struct compare_rng *r, const double *v, size_t n, uint32_t *cnt)
{
	size_t lo_rank = (n - 1) / 2, hi_rank = n / 2, seen = 0, i;
	double lo = 0, hi = 0;
	bool have_lo = false;

	for (i = 0; i < n; i++)
		cnt[rng_below(r, n)]++;
	for (i = 0; i < n; i++) {
		seen += cnt[i];
		if (!have_lo && seen > lo_rank) {
			lo = v[i];
			have_lo = true;
		}
		if (seen > hi_rank) {
			hi = v[i];
			break;
		}
	}
	memset(cnt, 0, n * sizeof(*cnt));
	return lo / 2 + hi / 2;
}

/* The p point (0..1) of sorted v[0..n) by linear interpolation between order statistics. */
static double percentile_sorted(const double *v, size_t n, double p)
{
	double pos = p * (double)(n - 1);
	size_t i = (size_t)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* A host's value as the ratios use it: at least 1 ns, so no ratio divides by 0. */
static double host_value(double v)
{
	return v < 1 ? 1 : v;
}

static bool host_usable(const struct compare_host *h)
{
	return h->samples > 0 && isfinite(h->value_ns) && h->value_ns >= 0;
}

/* Sorted values of the usable hosts of one arm into v (room for n); their count and samples. */
static size_t arm_values(const struct compare_host *hs, size_t n, double *v, uint64_t *samples)
{
	size_t k = 0;

	*samples = 0;
	for (size_t i = 0; i < n; i++)
		if (host_usable(&hs[i])) {
			v[k++] = host_value(hs[i].value_ns);
			*samples += hs[i].samples;
		}
	qsort(v, k, sizeof(*v), cmp_double);
	return k;
}

static int cmp_host_id(const void *x, const void *y)
{
	return strcmp((*(const struct compare_host *const *)x)->host_id,
		      (*(const struct compare_host *const *)y)->host_id);
}

/* Matches usable hosts of a and b by host_id into sorted per-pair ratios, and
 * each side's sorted values over the pairs; returns the number of pairs or
 * -ENOMEM. A host_id repeated within an arm pairs once (its first usable
 * entry in sorted order). */
static long pair_up(const struct compare_host *a, size_t na, const struct compare_host *b, size_t nb, double *ratio,
		    double *va, double *vb, uint64_t *a_samples, uint64_t *b_samples)
{
	const struct compare_host **pa = NULL, **pb = NULL;
	size_t ka = 0, kb = 0, i = 0, j = 0;
	long np = 0;

	*a_samples = *b_samples = 0;
	pa = malloc((na ? na : 1) * sizeof(*pa));
	pb = malloc((nb ? nb : 1) * sizeof(*pb));
	if (!pa || !pb) {
		np = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < na; k++)
		if (host_usable(&a[k]))
			pa[ka++] = &a[k];
	for (size_t k = 0; k < nb; k++)
		if (host_usable(&b[k]))
			pb[kb++] = &b[k];
	qsort(pa, ka, sizeof(*pa), cmp_host_id);
	qsort(pb, kb, sizeof(*pb), cmp_host_id);
	while (i < ka && j < kb) {
		int c = strcmp(pa[i]->host_id, pb[j]->host_id);

		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			va[np] = host_value(pa[i]->value_ns);
			vb[np] = host_value(pb[j]->value_ns);
			ratio[np] = va[np] / vb[np];
			*a_samples += pa[i]->samples;
			*b_samples += pb[j]->samples;
			np++;
			for (i++; i < ka && strcmp(pa[i]->host_id, pa[i - 1]->host_id) == 0; i++)
				;
			for (j++; j < kb && strcmp(pb[j]->host_id, pb[j - 1]->host_id) == 0; j++)
				;
		}
	}
	qsort(ratio, (size_t)np, sizeof(*ratio), cmp_double);
	qsort(va, (size_t)np, sizeof(*va), cmp_double);
	qsort(vb, (size_t)np, sizeof(*vb), cmp_double);
out:
	free(pa);
	free(pb);
	return np;
}

/* "31% higher" / "24% lower" / "the same" for a ratio, into buf. */
static void describe_change(char *buf, size_t len, double ratio)
{
	double pct = fabs(ratio - 1) * 100;

	if (pct < 0.5)
		snprintf(buf, len, "0%%");
	else
		snprintf(buf, len, "%.0f%% %s", pct, ratio > 1 ? "higher" : "lower");
}

/* The interval in words: "18% to 45%" when both ends are on the side of the
 * ratio (closest to 1 first), "8% lower to 15% higher" otherwise. */
static void describe_interval(char *buf, size_t len, double ratio, double lo, double hi)
{
	char l[32], h[32];

	if (ratio > 1 && lo > 1)
		snprintf(buf, len, "%.0f%% to %.0f%%", (lo - 1) * 100, (hi - 1) * 100);
	else if (ratio < 1 && hi < 1)
		snprintf(buf, len, "%.0f%% to %.0f%%", (1 - hi) * 100, (1 - lo) * 100);
	else {
		describe_change(l, sizeof(l), lo);
		describe_change(h, sizeof(h), hi);
		snprintf(buf, len, "%s to %s", l, h);
	}
}

static void write_summary(struct compare_result *out, const struct compare_opts *o)
{
	const char *metric = compare_metric_name(o->metric);
	char change[48], interval[96];
	double pct = fabs(out->ratio - 1) * 100;

	if (!isfinite(out->ratio)) {
		snprintf(out->summary, sizeof(out->summary), "A's %s runqueue latency cannot be compared with B's: %s.",
			 metric, out->reason);
		return;
	}
	if (pct < 0.5)
		snprintf(change, sizeof(change), "about the same as B's");
	else
		snprintf(change, sizeof(change), "%.0f%% %s than B's", pct, out->ratio > 1 ? "higher" : "lower");
	describe_interval(interval, sizeof(interval), out->ratio, out->ci_low, out->ci_high);
	switch (out->verdict) {
	case COMPARE_BETTER:
	case COMPARE_WORSE:
		snprintf(out->summary, sizeof(out->summary), "A's %s runqueue latency is %s (95%% interval %s): %s.",
			 metric, change, interval, compare_verdict_name(out->verdict));
		break;
	case COMPARE_NO_DIFFERENCE:
		snprintf(out->summary, sizeof(out->summary),
			 "A's %s runqueue latency is %s (95%% interval %s): no difference beyond the %.0f%% threshold.",
			 metric, change, interval, o->threshold * 100);
		break;
	case COMPARE_INCONCLUSIVE:
		snprintf(out->summary, sizeof(out->summary),
			 "A's %s runqueue latency is %s (95%% interval %s): inconclusive, %s.", metric, change,
			 interval, out->reason);
		break;
	}
}

/* The verdict of an interval against the band [1 - t, 1 + t]. */
static enum compare_verdict verdict_of(double lo, double hi, double t)
{
	if (hi < 1 - t)
		return COMPARE_BETTER;
	if (lo > 1 + t)
		return COMPARE_WORSE;
	if (lo >= 1 - t && hi <= 1 + t)
		return COMPARE_NO_DIFFERENCE;
	return COMPARE_INCONCLUSIVE;
}

int compare_run(const struct compare_host *a, size_t na, const struct compare_host *b, size_t nb,
		const struct compare_opts *o, struct compare_result *out)
{
	double *va = NULL, *vb = NULL, *pr = NULL, *boot = NULL;
	uint32_t *cnt = NULL;
	unsigned resamples;
	struct compare_rng rng;
	size_t n_small, nmax = na > nb ? na : nb;
	const char *small_arm;
	int err = 0;

	if (!o || !out || (na && !a) || (nb && !b) || !(o->threshold >= 0 && o->threshold < 1) ||
	    na >= ((size_t)1 << 31) || nb >= ((size_t)1 << 31))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->verdict = COMPARE_INCONCLUSIVE;
	out->ratio = out->ci_low = out->ci_high = NAN;
	out->a_value_ns = out->b_value_ns = NAN;
	resamples = o->resamples < COMPARE_MIN_RESAMPLES ? COMPARE_MIN_RESAMPLES : o->resamples;

	va = malloc((nmax ? nmax : 1) * sizeof(*va));
	vb = malloc((nmax ? nmax : 1) * sizeof(*vb));
	pr = malloc((nmax ? nmax : 1) * sizeof(*pr));
	cnt = calloc(nmax ? nmax : 1, sizeof(*cnt));
	boot = malloc(resamples * sizeof(*boot));
	if (!va || !vb || !pr || !cnt || !boot) {
		err = -ENOMEM;
		goto out;
	}

	if (o->paired) {
		long np = pair_up(a, na, b, nb, pr, va, vb, &out->a_samples, &out->b_samples);

		if (np < 0) {
			err = (int)np;
			goto out;
		}
		for (size_t i = 0; i < na; i++)
			out->a_hosts += host_usable(&a[i]);
		for (size_t i = 0; i < nb; i++)
			out->b_hosts += host_usable(&b[i]);
		out->pairs = (size_t)np;
		if (np > 0) {
			out->a_value_ns = median_sorted(va, out->pairs);
			out->b_value_ns = median_sorted(vb, out->pairs);
		}
		if (out->pairs < COMPARE_MIN_HOSTS) {
			snprintf(out->reason, sizeof(out->reason),
				 "%zu host%s reported in both windows; at least %d are needed", out->pairs,
				 out->pairs == 1 ? "" : "s", COMPARE_MIN_HOSTS);
			goto summary;
		}
		out->ratio = median_sorted(pr, out->pairs);
		rng_seed(&rng, o->seed);
		for (unsigned k = 0; k < resamples; k++)
			boot[k] = resample_median(&rng, pr, out->pairs, cnt);
	} else {
		out->a_hosts = arm_values(a, na, va, &out->a_samples);
		out->b_hosts = arm_values(b, nb, vb, &out->b_samples);
		if (out->a_hosts)
			out->a_value_ns = median_sorted(va, out->a_hosts);
		if (out->b_hosts)
			out->b_value_ns = median_sorted(vb, out->b_hosts);
		if (out->a_hosts < COMPARE_MIN_HOSTS || out->b_hosts < COMPARE_MIN_HOSTS) {
			small_arm = out->a_hosts < COMPARE_MIN_HOSTS ? "A" : "B";
			n_small = out->a_hosts < COMPARE_MIN_HOSTS ? out->a_hosts : out->b_hosts;
			snprintf(out->reason, sizeof(out->reason),
				 "arm %s has %zu host%s with samples; at least %d are needed", small_arm, n_small,
				 n_small == 1 ? "" : "s", COMPARE_MIN_HOSTS);
			goto summary;
		}
		out->ratio = out->a_value_ns / out->b_value_ns;
		rng_seed(&rng, o->seed);
		for (unsigned k = 0; k < resamples; k++) {
			double ma = resample_median(&rng, va, out->a_hosts, cnt);
			double mb = resample_median(&rng, vb, out->b_hosts, cnt);

			boot[k] = ma / mb;
		}
	}
	qsort(boot, resamples, sizeof(*boot), cmp_double);
	out->ci_low = percentile_sorted(boot, resamples, 0.025);
	out->ci_high = percentile_sorted(boot, resamples, 0.975);
	out->verdict = verdict_of(out->ci_low, out->ci_high, o->threshold);
	if (out->verdict == COMPARE_INCONCLUSIVE)
		snprintf(
		    out->reason, sizeof(out->reason),
		    "the 95%% interval (%.3f to %.3f) reaches across the edge of the no-difference band %.3f to %.3f; "
		    "more hosts or a longer window would narrow it",
		    out->ci_low, out->ci_high, 1 - o->threshold, 1 + o->threshold);
summary:
	write_summary(out, o);
out:
	free(va);
	free(vb);
	free(pr);
	free(cnt);
	free(boot);
	return err;
}
