/* sched_ext.h - which sched_ext scheduler, if any, is in force (report
 * "sched_ext"), so runqueue latency can be compared per scheduler.
 */
#ifndef SCHEDIO_AGENT_HOST_SCHED_EXT_H
#define SCHEDIO_AGENT_HOST_SCHED_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "agent/report/collector.h"
#include "common/sched_ext_state.h"

struct sched_ext_watch;

/* How often the state is polled for changes within an interval: without
 * kernel uevents, and while uevents announce the changes. */
#define SCHED_EXT_WATCH_MS 100
#define SCHED_EXT_UEVENT_WATCH_MS 1000

/* sched_ext_state_read under root (a const char *) into the buffers: a sched_ext_watch_read_fn. */
void sched_ext_read_into(void *root, char *state, size_t state_len, char *ops, size_t ops_len);
/* Starts the watcher of the sched_ext state under root (sched_ext_watch.h),
 * woken by the kernel's uevents where it can; 0 or -errno. */
int sched_ext_watch_sysfs(struct sched_ext_watch **out, const char *root);
/* Adds "sched_ext": {state, ops} (ops null when none) to report; 0 or -ENOMEM. */
int sched_ext_to_json(const struct sched_ext_state *st, cJSON *report);

/* Collector adding the top-level "sched_ext", with the "transitions" seen
 * during the interval (agent_options.sched_watch) and the health fields
 * (sched_ext_health.h). */
extern const struct collector sched_ext_collector;

#endif /* SCHEDIO_AGENT_HOST_SCHED_EXT_H */
