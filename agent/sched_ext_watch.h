/* sched_ext_watch.h - the sched_ext state changes seen during an interval
 * (report "sched_ext.transitions"), so the server can split a host's
 * runqueue latency by scheduler at the moment of the switch, not by report. */
#ifndef SCHEDIO_AGENT_SCHED_EXT_WATCH_H
#define SCHEDIO_AGENT_SCHED_EXT_WATCH_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct sched_ext_watch;

/* Reads the current state and ops ("" when none) into the buffers. */
typedef void (*sched_ext_watch_read_fn)(void *arg, char *state, size_t state_len, char *ops, size_t ops_len);

/* Called from the watch thread with the new state and ops ("" when none). */
typedef void (*sched_ext_watch_change_fn)(void *arg, const char *state, const char *ops);

/* Starts a thread that calls read every period_ms and records each change of
 * (state, ops) with its wall-clock time; returns 0 or -errno. */
int sched_ext_watch_start(struct sched_ext_watch **out, unsigned period_ms, sched_ext_watch_read_fn read, void *arg);
/* Like sched_ext_watch_start, but hands each change to on_change instead of recording it. */
int sched_ext_watch_follow(struct sched_ext_watch **out, unsigned period_ms, sched_ext_watch_read_fn read, void *arg,
			   sched_ext_watch_change_fn on_change, void *change_arg);
/* Returns the changes since the last call as [{"t_ms", "state", "ops"}]
 * (ops null when none), oldest first, and forgets them; NULL on no memory. */
cJSON *sched_ext_watch_take(struct sched_ext_watch *w);
/* Stops the thread and frees w; w may be NULL. */
void sched_ext_watch_stop(struct sched_ext_watch *w);

#endif /* SCHEDIO_AGENT_SCHED_EXT_WATCH_H */
