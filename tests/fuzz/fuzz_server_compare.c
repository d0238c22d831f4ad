/* fuzz_server_compare.c - libFuzzer target for the statistics of a
 * comparison (server/compare/compare_stats.c): the metric name as the query
 * gives it, any bytes as a histogram's buckets, and any hosts (ids, values
 * including NAN, infinities, negatives and huge ones, sample counts) and
 * options into compare_run, which must answer 0 or -EINVAL, the same twice,
 * with an interval and verdict that agree whenever it gives one.
 *
 * Layout: byte 0 = paired (bit 0), metric (bits 1-3), threshold (bits 4-7,
 * an index into thresholds[]); then 11-byte hosts: arm (bit 7) and id (bits
 * 0-6) in one byte, the value's 8 bytes, 2 bytes of samples.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/compare/compare_stats.h"

#define MAX_HOSTS 64

static void check_metric_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	enum compare_metric m = COMPARE_P99;

	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	if (compare_metric_parse(s, &m) == 0 && strcmp(compare_metric_name(m), s) != 0)
		abort();
	(void)compare_seed(s);
	free(s);
}

static void check_hist(const uint8_t *data, size_t size)
{
	struct hist h = { 0 };

	for (size_t i = 0; i < size && i < HIST_BUCKETS; i++) {
		h.buckets[i] = data[i];
		h.count += data[i];
		h.sum_ns += (uint64_t)data[i] * hist_bucket_value((uint32_t)i);
	}
	for (int m = COMPARE_P50; m <= COMPARE_MEAN; m++) {
		double v = compare_metric_of(&h, (enum compare_metric)m);

		if ((h.count == 0) != isnan(v))
			abort();
	}
	if (h.count && compare_metric_of(&h, COMPARE_P99) != (double)hist_quantile(h.buckets, 0.99))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double thresholds[16] = { 0.05, 0,        0.01, 0.1,  0.5,    0.99,   1,        -0.01,
					       NAN,  INFINITY, 0.2,  0.03, 0.0625, 1e-300, 0.999999, 0.05 };
	struct compare_host a[MAX_HOSTS], b[MAX_HOSTS];
	struct compare_result r1, r2;
	struct compare_opts o = { 0 };
	size_t na = 0, nb = 0;
	int rc;

	check_metric_text(data, size);
	check_hist(data, size);
	if (size < 1)
		return 0;
	o.paired = data[0] & 1;
	o.metric = (enum compare_metric)(((data[0] >> 1) & 7) % 5);
	o.threshold = thresholds[data[0] >> 4];
	o.resamples = COMPARE_MIN_RESAMPLES;
	o.seed = compare_seed("fuzz");
	for (size_t off = 1; off + 11 <= size && na + nb < MAX_HOSTS; off += 11) {
		struct compare_host *h = (data[off] & 0x80) ? &b[nb++] : &a[na++];
		uint16_t samples;

		memset(h, 0, sizeof(*h));
		h->host_id[0] = (char)('a' + (data[off] & 0x1f));
		h->host_id[1] = (char)('0' + ((data[off] >> 5) & 3));
		memcpy(&h->value_ns, data + off + 1, sizeof(h->value_ns));
		memcpy(&samples, data + off + 9, sizeof(samples));
		h->samples = samples;
	}
	rc = compare_run(a, na, b, nb, &o, &r1);
	if (rc == -EINVAL) {
		if (o.threshold >= 0 && o.threshold < 1)
			abort();
		return 0;
	}
	if (rc != 0 || compare_run(a, na, b, nb, &o, &r2) != 0 || memcmp(&r1, &r2, sizeof(r1)) != 0)
		abort();
	if (r1.a_hosts > na || r1.b_hosts > nb || r1.pairs > na || r1.pairs > nb)
		abort();
	if (!memchr(r1.summary, '\0', sizeof(r1.summary)) || !r1.summary[0] ||
	    !memchr(r1.reason, '\0', sizeof(r1.reason)))
		abort();
	if (r1.verdict != COMPARE_INCONCLUSIVE) {
		if (!isfinite(r1.ratio) || !isfinite(r1.ci_low) || !isfinite(r1.ci_high) || r1.ci_low > r1.ci_high)
			abort();
		if (r1.verdict == COMPARE_BETTER && !(r1.ci_high < 1 - o.threshold))
			abort();
		if (r1.verdict == COMPARE_WORSE && !(r1.ci_low > 1 + o.threshold))
			abort();
	} else if (r1.reason[0] == '\0') {
		abort();
	}
	return 0;
}
