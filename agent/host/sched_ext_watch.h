/* sched_ext_watch.h - the sched_ext state changes seen during an interval
 * (report "sched_ext.transitions"), and the same changes handed at once to
 * followers (the runqlat collector names its per-scheduler histograms by
 * them). One watcher serves the whole agent.
 */
#ifndef SCHEDIO_AGENT_HOST_SCHED_EXT_WATCH_H
#define SCHEDIO_AGENT_HOST_SCHED_EXT_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

struct sched_ext_watch;

/* Reads the current state and ops ("" when none) into the buffers. */
typedef void (*sched_ext_watch_read_fn)(void *arg, char *state, size_t state_len, char *ops, size_t ops_len);

/* Called from the watch thread with the new state and ops ("" when none). */
typedef void (*sched_ext_watch_change_fn)(void *arg, const char *state, const char *ops);

struct sched_ext_watch_cfg {
	unsigned period_ms;        /* how often read is polled */
	unsigned uevent_period_ms; /* the period while kernel uevents wake the watcher; 0: no uevents */
	sched_ext_watch_read_fn read;
	void *arg;
};

/* Starts a thread that calls read every period (and at once on a sched_ext
 * uevent) and records each change of (state, ops) with its wall-clock time;
 * returns 0 or -errno. Without a uevent socket it polls every period_ms. */
int sched_ext_watch_start(struct sched_ext_watch **out, const struct sched_ext_watch_cfg *cfg);
/* Hands each later change to fn as well; 0, or -ENOSPC past four followers. */
int sched_ext_watch_follow(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg);
/* Hands fn the state after every poll, changed or not; 0, or -ENOSPC past four followers. */
int sched_ext_watch_follow_polls(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg);
/* Stops handing changes (or polls) to fn; when it returns, fn is not running and will not be called. */
void sched_ext_watch_unfollow(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg);
/* True while kernel uevents wake the watcher (it then polls only every uevent_period_ms). */
bool sched_ext_watch_on_uevents(struct sched_ext_watch *w);
/* Returns the changes since the last call as [{"t_ms", "state", "ops"}]
 * (ops null when none), oldest first, and forgets them; NULL on no memory. */
cJSON *sched_ext_watch_take(struct sched_ext_watch *w);
/* Stops the thread and frees w; w may be NULL. */
void sched_ext_watch_stop(struct sched_ext_watch *w);

#endif /* SCHEDIO_AGENT_HOST_SCHED_EXT_WATCH_H */
