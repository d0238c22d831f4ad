/* stats.c - see stats.h. */
#include "server/ingest/stats.h"

const double stats_latency_le[STATS_LATENCY_BUCKETS] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
							 0.1,   0.25,   0.5,   1,    2.5,   10 };

const char *stats_reject_name(enum stats_reject r)
{
	static const char *const names[STATS_REJECT_REASONS] = {
		[STATS_REJECT_UNAUTHORIZED] = "unauthorized", [STATS_REJECT_INVALID] = "invalid",
		[STATS_REJECT_UNSUPPORTED] = "unsupported",   [STATS_REJECT_TOO_LARGE] = "too_large",
		[STATS_REJECT_UNAVAILABLE] = "unavailable",   [STATS_REJECT_STORE] = "store_error",
	};
	return names[r];
}

const char *stats_shed_name(enum stats_shed r)
{
	static const char *const names[STATS_SHED_REASONS] = {
		[STATS_SHED_QUEUE_FULL] = "queue_full",
		[STATS_SHED_EXPECTED_WAIT] = "expected_wait",
		[STATS_SHED_DEADLINE] = "deadline",
	};
	return names[r];
}

void stats_hist_add(struct stats_hist *h, uint64_t us)
{
	int i = 0;

	while (i < STATS_LATENCY_BUCKETS && (double)us > stats_latency_le[i] * 1e6)
		i++;
	atomic_fetch_add(&h->bucket[i], 1);
	atomic_fetch_add(&h->count, 1);
	atomic_fetch_add(&h->sum_us, us);
}
