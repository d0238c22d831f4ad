/* runqlat_report.c - the JSON form of a runqueue latency histogram.
 *
 * The sparse buckets and the percentiles come from common/hist_json.c, the
 * code the server answers with, so the agent's p99 and the server's p99 of
 * one interval agree. BPF buckets are 32-bit (bpf/runqlat.h): adding one to
 * a summary widens them, which is why only the totals go through
 * common/hist.c.
 */
#include "agent/runqlat/runqlat_report.h"

#include <errno.h>

#include "common/hist_json.h"

void runqlat_summary_add(struct hist *s, const struct runqlat_hist *h)
{
	hist_add_totals(s, h->count, h->sum_ns, h->max_ns);
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		s->buckets[i] += h->buckets[i];
}

int runqlat_summary_to_json(const struct hist *s, cJSON *obj)
{
	if (!cJSON_AddNumberToObject(obj, "count", (double)s->count) ||
	    !cJSON_AddNumberToObject(obj, "sum_ns", (double)s->sum_ns) ||
	    !cJSON_AddNumberToObject(obj, "max_ns", (double)s->max_ns))
		return -ENOMEM;
	if (hist_json_add_buckets(obj, s->buckets) || hist_json_add_quantiles(obj, s->buckets))
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
