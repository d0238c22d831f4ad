/* sched_ext_events.h - the kernel's event counters of the running sched_ext
 * scheduler (/sys/kernel/sched_ext/root/events): parsed here, turned into
 * deltas by sched_ext_health.c.
 */
#ifndef SCHEDIO_AGENT_HOST_SCHED_EXT_EVENTS_H
#define SCHEDIO_AGENT_HOST_SCHED_EXT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* The report's limits: at most 64 names of [a-z0-9_]{1,64}. */
#define SCHED_EXT_EVENTS_MAX 64
#define SCHED_EXT_EVENT_NAME_MAX 64

struct sched_ext_event {
	char name[SCHED_EXT_EVENT_NAME_MAX + 1]; /* "select_cpu_fallback" for SCX_EV_SELECT_CPU_FALLBACK */
	uint64_t value;
};

struct sched_ext_events {
	size_t n;
	struct sched_ext_event ev[SCHED_EXT_EVENTS_MAX];
};

/* Parses the events file's text ("SCX_EV_NAME VALUE" lines); lines of another
 * form, duplicates and names past the 64th are skipped. Returns how many were kept. */
size_t sched_ext_events_parse(const char *buf, size_t len, struct sched_ext_events *out);
/* Reads and parses root/root/events (root is SCHED_EXT_STATE_ROOT outside tests);
 * the count kept, or -errno (-ENOENT: no scheduler loaded, or a kernel without the file). */
int sched_ext_events_read(const char *root, struct sched_ext_events *out);
/* The value named name, or NULL. */
const struct sched_ext_event *sched_ext_events_find(const struct sched_ext_events *evs, const char *name);

#endif /* SCHEDIO_AGENT_HOST_SCHED_EXT_EVENTS_H */
