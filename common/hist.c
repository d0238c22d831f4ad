/* hist.c - bucket bounds, quantiles and merging for the shared log-linear
 * layout.
 *
 * A quantile is read by nearest rank and reported as the middle of its
 * bucket: the bucket is at most 2^-g of its lower bound wide, so the
 * reported value is within half that of any value the bucket holds.
 */
#include "common/hist.h"

#include <math.h>

uint64_t hist_bucket_lower(uint32_t idx)
{
	const uint32_t g = HIST_GROUPING_POWER;
	uint32_t h, sub;

	if (idx < (1u << (g + 1)))
		return idx;
	h = (idx >> g) + g - 1;
	sub = idx & ((1u << g) - 1);
	return ((uint64_t)(1u << g) + sub) << (h - g);
}

uint64_t hist_bucket_upper(uint32_t idx)
{
	if (idx >= HIST_BUCKETS - 1)
		return UINT64_MAX;
	return hist_bucket_lower(idx + 1) - 1;
}

uint64_t hist_bucket_value(uint32_t idx)
{
	uint64_t lo = hist_bucket_lower(idx);

	if (idx >= HIST_BUCKETS - 1)
		return lo;
	return lo + (hist_bucket_upper(idx) - lo) / 2;
}

uint64_t hist_total(const uint64_t *buckets)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		n += buckets[i];
	return n;
}

uint64_t hist_quantile(const uint64_t *buckets, double q)
{
	uint64_t total = hist_total(buckets), rank, seen = 0;

	if (total == 0)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank == 0)
		rank = 1;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
		seen += buckets[i];
		if (seen >= rank)
			return hist_bucket_value(i);
	}
	return hist_bucket_value(HIST_BUCKETS - 1);
}

void hist_add_totals(struct hist *h, uint64_t count, uint64_t sum_ns, uint64_t max_ns)
{
	h->count += count;
	h->sum_ns += sum_ns;
	if (max_ns > h->max_ns)
		h->max_ns = max_ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	hist_add_totals(dst, src->count, src->sum_ns, src->max_ns);
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}
