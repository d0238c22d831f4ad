/* runqlat_report.c - the JSON form of a runqueue latency histogram.
 *
 * Buckets go out sparse, as [index, count] pairs in index order, because a
 * typical interval fills a few dozen of the 528 buckets. Percentiles are
 * computed here from the same buckets the server stores (common/hist.c), so
 * the agent's p99 and the server's p99 of one interval agree.
 */
#include "agent/runqlat/runqlat_report.h"

#include <errno.h>

void runqlat_summary_add(struct runqlat_summary *s, const struct runqlat_hist *h)
{
	s->count += h->count;
	s->sum_ns += h->sum_ns;
	if (h->max_ns > s->max_ns)
		s->max_ns = h->max_ns;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		s->buckets[i] += h->buckets[i];
}

void runqlat_summary_merge(struct runqlat_summary *dst, const struct runqlat_summary *src)
{
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

int runqlat_summary_to_json(const struct runqlat_summary *s, cJSON *obj)
{
	static const struct {
		const char *name;
		double q;
	} pct[] = { { "p50_ns", 0.5 }, { "p90_ns", 0.9 }, { "p99_ns", 0.99 }, { "p999_ns", 0.999 } };
	cJSON *buckets, *pair;

	if (!cJSON_AddNumberToObject(obj, "count", (double)s->count) ||
	    !cJSON_AddNumberToObject(obj, "sum_ns", (double)s->sum_ns) ||
	    !cJSON_AddNumberToObject(obj, "max_ns", (double)s->max_ns))
		return -ENOMEM;
	buckets = cJSON_AddArrayToObject(obj, "buckets");
	if (!buckets)
		return -ENOMEM;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
		if (!s->buckets[i])
			continue;
		pair = cJSON_CreateArray();
		if (!pair)
			return -ENOMEM;
		cJSON_AddItemToArray(buckets, pair);
		if (!cJSON_AddItemToArray(pair, cJSON_CreateNumber(i)) ||
		    !cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)s->buckets[i])))
			return -ENOMEM;
	}
	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
		if (!cJSON_AddNumberToObject(obj, pct[k].name, (double)hist_quantile(s->buckets, pct[k].q)))
			return -ENOMEM;
	return 0;
}

cJSON *runqlat_layout_json(void)
{
	cJSON *l = cJSON_CreateObject();

	if (!l)
		return NULL;
	if (!cJSON_AddNumberToObject(l, "grouping_power", HIST_GROUPING_POWER) ||
	    !cJSON_AddNumberToObject(l, "max_value_power", HIST_MAX_VALUE_POWER)) {
		cJSON_Delete(l);
		return NULL;
	}
	return l;
}
