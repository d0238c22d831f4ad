/* sched_slots.h - which scheduler each sched_ext runqueue latency histogram
 * holds. The BPF programs put every sample the sched_ext class ran into the
 * current ext slot; this names the slots from what sysfs says is loaded. */
#ifndef SCHEDIO_AGENT_RUNQLAT_SCHED_SLOTS_H
#define SCHEDIO_AGENT_RUNQLAT_SCHED_SLOTS_H

#include "bpf/runqlat.h"

#define SCHED_SLOTS_NAME_MAX 128

struct sched_slots {
	unsigned cur;                                       /* slot the BPF side writes now */
	char name[RUNQLAT_EXT_SLOTS][SCHED_SLOTS_NAME_MAX]; /* ops name; "" until known */
};

/* Starts with slot 0 named after ops ("" when no scheduler is loaded). */
void sched_slots_init(struct sched_slots *s, const char *ops);
/* Takes the ops loaded now ("" for none); returns the slot ext samples go to from now on. */
unsigned sched_slots_observe(struct sched_slots *s, const char *ops);
/* The ops name of slot i, or "" when its scheduler was never seen. */
const char *sched_slots_name(const struct sched_slots *s, unsigned i);

#endif /* SCHEDIO_AGENT_RUNQLAT_SCHED_SLOTS_H */
