/* runqlat_report.h - turning runqueue latency histograms into the report's
 * runqlat entries (count, sum_ns, max_ns, sparse buckets, percentiles).
 */
#ifndef SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H
#define SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "common/hist.h"
#include "bpf/runqlat.h"

/* One histogram being summed up for the report (several BPF slots can land
 * in one entry, e.g. a vanished cgroup reported under its ancestor).
 */
struct runqlat_summary {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t buckets[HIST_BUCKETS];
};

/* Adds the BPF histogram h to s. */
void runqlat_summary_add(struct runqlat_summary *s, const struct runqlat_hist *h);
/* Adds the summary src to dst. */
void runqlat_summary_merge(struct runqlat_summary *dst, const struct runqlat_summary *src);
/* Adds count, sum_ns, max_ns, buckets and p50/p90/p99/p999_ns of s to obj; 0 or -ENOMEM. */
int runqlat_summary_to_json(const struct runqlat_summary *s, cJSON *obj);
/* The layout object {grouping_power, max_value_power}; NULL on ENOMEM. */
cJSON *runqlat_layout_json(void);

#endif /* SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H */
