/* collector.h - what every part of a report comes from. A collector is
 * opened once (loading BPF programs, finding cgroupfs), then asked at the end
 * of each interval to add its section to the report and start counting the
 * next interval. The table of collectors lives in collectors.c.
 */
#ifndef SCHEDIO_AGENT_REPORT_COLLECTOR_H
#define SCHEDIO_AGENT_REPORT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

struct sched_ext_watch;

struct agent_options {
	unsigned cgroup_depth; /* cgroups deeper than this count in their ancestor */
	const char *disable;   /* comma-separated collector names left out, or NULL */
	/* The one follower of /sys/kernel/sched_ext the collectors share; NULL on
	 * kernels without sched_ext. Started before and stopped after them. */
	struct sched_ext_watch *sched_watch;
	/* BPF run-time statistics are on for sample_ms of every period_ms (agent_cost). */
	uint64_t bpf_stats_sample_ms, bpf_stats_period_ms;
};

struct collector {
	const char *name;
	/* Prepares the collector; returns 0, or -errno with the reason logged (the agent cannot run). */
	int (*open)(const struct agent_options *opt, void **state);
	/* Adds this collector's part to report for the interval that just ended and starts the next; 0 or -errno. */
	int (*collect)(void *state, cJSON *report);
	/* Releases everything open() took; state may be NULL. */
	void (*close)(void *state);
};

/* Every collector, in report order, NULL-terminated. */
extern const struct collector *const collectors[];

/* Checks a comma-separated list of collectors to leave out (the host identity cannot be);
 * returns 0, or -1 with the reason in err. */
int collector_check_list(const char *list, char *err, size_t errlen);
/* True if name appears in the comma-separated list (NULL: empty). */
bool collector_listed(const char *list, const char *name);

#endif /* SCHEDIO_AGENT_REPORT_COLLECTOR_H */
