/* runqlat_report.h - turning runqueue latency histograms into the report's
 * runqlat entries (count, sum_ns, max_ns, sparse buckets, percentiles).
 */
#ifndef SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H
#define SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "agent/host/topology.h"
#include "common/hist.h"
#include "bpf/runqlat.h"

/* One CPU's waits of an interval: what its histograms counted and the
 * idle-sibling part of them (bpf/runqlat_idle.h). */
struct runqlat_cpu_totals {
	uint64_t wait_ns, waits;
	uint64_t idle_ns, idle_waits;
};

/* Adds the BPF histogram h to s (several BPF slots can land in one report
 * entry, e.g. a vanished cgroup reported under its ancestor). */
void runqlat_summary_add(struct hist *s, const struct runqlat_hist *h);
/* Adds count, sum_ns, max_ns, buckets and p50/p90/p99/p999_ns of s to obj; 0 or -ENOMEM. */
int runqlat_summary_to_json(const struct hist *s, cJSON *obj);
/* The layout object {grouping_power, max_value_power}; NULL on ENOMEM. */
cJSON *runqlat_layout_json(void);

/* Adds "l3_domains": [{cpus, wait_ns, waits, idle_sibling_wait_ns, idle_sibling_waits}]
 * to sec, one per domain of t in its order, summing cpus[0..ncpu) (CPUs past ncpu count
 * nothing); idle figures are capped at the waits. 0 or -ENOMEM. */
int runqlat_l3_to_json(const struct topology *t, const struct runqlat_cpu_totals *cpus, unsigned ncpu, cJSON *sec);

#endif /* SCHEDIO_AGENT_RUNQLAT_RUNQLAT_REPORT_H */
