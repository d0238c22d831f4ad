/* runqlat_report.c - the JSON form of a runqueue latency histogram.
 *
 * The sparse buckets and the percentiles come from common/hist_json.c, the
 * code the server answers with, so the agent's p99 and the server's p99 of
 * one interval agree. BPF buckets are 32-bit (bpf/runqlat.h): adding one to
 * a summary widens them, which is why only the totals go through
 * common/hist.c. The work conservation figures per L3 domain are sums of
 * per-CPU totals over the domain's CPUs.
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

/* One domain's entry: its CPUs and the sums of their totals. */
static cJSON *l3_entry(const struct topology_l3 *d, const struct runqlat_cpu_totals *cpus, unsigned ncpu)
{
	struct runqlat_cpu_totals s = { 0 };
	cJSON *o = cJSON_CreateObject(), *list;

	if (!o)
		return NULL;
	list = cJSON_AddArrayToObject(o, "cpus");
	if (!list)
		goto fail;
	for (size_t k = 0; k < d->ncpus; k++) {
		unsigned c = d->cpus[k];

		if (!cJSON_AddItemToArray(list, cJSON_CreateNumber(c)))
			goto fail;
		if (c >= ncpu)
			continue;
		s.wait_ns += cpus[c].wait_ns;
		s.waits += cpus[c].waits;
		s.idle_ns += cpus[c].idle_ns;
		s.idle_waits += cpus[c].idle_waits;
	}
	if (s.idle_ns > s.wait_ns)
		s.idle_ns = s.wait_ns;
	if (s.idle_waits > s.waits)
		s.idle_waits = s.waits;
	if (!cJSON_AddNumberToObject(o, "wait_ns", (double)s.wait_ns) ||
	    !cJSON_AddNumberToObject(o, "waits", (double)s.waits) ||
	    !cJSON_AddNumberToObject(o, "idle_sibling_wait_ns", (double)s.idle_ns) ||
	    !cJSON_AddNumberToObject(o, "idle_sibling_waits", (double)s.idle_waits))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

int runqlat_l3_to_json(const struct topology *t, const struct runqlat_cpu_totals *cpus, unsigned ncpu, cJSON *sec)
{
	cJSON *arr = cJSON_AddArrayToObject(sec, "l3_domains");

	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < t->nl3; i++) {
		cJSON *o = l3_entry(&t->l3[i], cpus, ncpu);

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			return -ENOMEM;
		}
	}
	return 0;
}
