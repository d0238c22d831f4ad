/* hist.h - reading the shared histogram layout (bpf/hist.h) in user space:
 * bucket bounds, quantiles and merging (the sparse JSON form is
 * hist_json.h's). Used by the agent to summarise an interval and by the
 * server to summarise merged histograms, so both compute percentiles the
 * same way.
 */
#ifndef SCHEDIO_COMMON_HIST_H
#define SCHEDIO_COMMON_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/hist.h" /* the layout contract */

/* A histogram as user space sums it: how many values, their sum and maximum,
 * and dense 64-bit buckets (BPF keeps 32-bit ones, see bpf/runqlat.h). */
struct hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t buckets[HIST_BUCKETS];
};

/* Smallest value that lands in bucket idx. */
uint64_t hist_bucket_lower(uint32_t idx);
/* Largest value that lands in bucket idx (UINT64_MAX for the last bucket). */
uint64_t hist_bucket_upper(uint32_t idx);
/* Value reported for bucket idx: the middle of its range (within 2^-(g+1)). */
uint64_t hist_bucket_value(uint32_t idx);
/* Quantile q in [0,1] of dense buckets[HIST_BUCKETS] by nearest rank; 0 if empty. */
uint64_t hist_quantile(const uint64_t *buckets, double q);
/* Total count of dense buckets[HIST_BUCKETS]. */
uint64_t hist_total(const uint64_t *buckets);
/* Adds one histogram's count and sum into h; its maximum is the larger of the two. */
void hist_add_totals(struct hist *h, uint64_t count, uint64_t sum_ns, uint64_t max_ns);
/* Adds src into dst: counts, sums and buckets add, the maximum is the larger one. */
void hist_merge(struct hist *dst, const struct hist *src);

#endif /* SCHEDIO_COMMON_HIST_H */
