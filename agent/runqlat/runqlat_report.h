/* runqlat_report.h - turning runqueue latency histograms into the report's
 * runqlat entries (count, sum_ns, max_ns, sparse buckets, percentiles).
 */
#ifndef SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H
#define SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "common/hist.h"
#include "bpf/runqlat.h"

/* Adds the BPF histogram h to s (several BPF slots can land in one report
 * entry, e.g. a vanished cgroup reported under its ancestor). */
void runqlat_summary_add(struct hist *s, const struct runqlat_hist *h);
/* Adds count, sum_ns, max_ns, buckets and p50/p90/p99/p999_ns of s to obj; 0 or -ENOMEM. */
int runqlat_summary_to_json(const struct hist *s, cJSON *obj);
/* The layout object {grouping_power, max_value_power}; NULL on ENOMEM. */
cJSON *runqlat_layout_json(void);

#endif /* SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H */
