/* sched_ext_watch.c - notices a sched_ext scheduler being loaded, unloaded
 * or ejected between two reports.
 *
 * sysfs gives no notification for /sys/kernel/sched_ext/state, so a thread
 * polls it (two small reads per period: ~10 us each, so 100 ms costs about
 * 0.01% of a CPU). Each change of (state, ops) is stored with its time; the
 * list is bounded, and past the bound the newest change replaces the last
 * slot, so the final state in a report is always the true one. The first
 * reading is the baseline, not a transition. A follower (the runqlat
 * collector, which starts a fresh sched_ext histogram at each change) gets
 * each change handed to it instead.
 */
#include "agent/sched_ext_watch.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCH_MAX_TRANSITIONS 64

struct watch_sample {
	int64_t t_ms;
	char state[32];
	char ops[128];
};

struct sched_ext_watch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;
	unsigned period_ms;
	sched_ext_watch_read_fn read;
	void *arg;
	sched_ext_watch_change_fn on_change; /* NULL: record the changes */
	void *change_arg;
	struct watch_sample last; /* the state as of the latest poll */
	struct watch_sample seen[WATCH_MAX_TRANSITIONS];
	size_t nseen;
};

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void poll_once(struct sched_ext_watch *w)
{
	struct watch_sample now = { .t_ms = wall_ms() };

	bool changed;

	w->read(w->arg, now.state, sizeof(now.state), now.ops, sizeof(now.ops));
	pthread_mutex_lock(&w->lock);
	changed = strcmp(now.state, w->last.state) != 0 || strcmp(now.ops, w->last.ops) != 0;
	if (changed) {
		if (!w->on_change) {
			if (w->nseen == WATCH_MAX_TRANSITIONS)
				w->nseen--; /* keep the latest: it is the state the interval ends in */
			w->seen[w->nseen++] = now;
		}
		w->last = now;
	}
	pthread_mutex_unlock(&w->lock);
	/* Only this thread writes last, so the hook runs without the lock. */
	if (changed && w->on_change)
		w->on_change(w->change_arg, now.state, now.ops);
}

static void *watch_main(void *p)
{
	struct sched_ext_watch *w = p;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)(w->period_ms % 1000) * 1000000;
		until.tv_sec += w->period_ms / 1000 + until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;
		while (!w->stopping && pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
			;
		if (w->stopping)
			break;
		pthread_mutex_unlock(&w->lock);
		poll_once(w);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int sched_ext_watch_start(struct sched_ext_watch **out, unsigned period_ms, sched_ext_watch_read_fn read, void *arg)
{
	return sched_ext_watch_follow(out, period_ms, read, arg, NULL, NULL);
}

int sched_ext_watch_follow(struct sched_ext_watch **out, unsigned period_ms, sched_ext_watch_read_fn read, void *arg,
			   sched_ext_watch_change_fn on_change, void *change_arg)
{
	struct sched_ext_watch *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->period_ms = period_ms ? period_ms : 1;
	w->read = read;
	w->arg = arg;
	w->on_change = on_change;
	w->change_arg = change_arg;
	read(arg, w->last.state, sizeof(w->last.state), w->last.ops, sizeof(w->last.ops));
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&w->thread, NULL, watch_main, w);
	if (err) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return -err;
	}
	*out = w;
	return 0;
}

/* Appends one {"t_ms", "state", "ops"} to arr; 0 or -ENOMEM. */
static int add_sample(cJSON *arr, const struct watch_sample *s)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddItemToArray(arr, o)) {
		cJSON_Delete(o);
		return -ENOMEM;
	}
	/* From here o belongs to arr. */
	if (!cJSON_AddNumberToObject(o, "t_ms", (double)s->t_ms) || !cJSON_AddStringToObject(o, "state", s->state) ||
	    !(s->ops[0] ? cJSON_AddStringToObject(o, "ops", s->ops) : cJSON_AddNullToObject(o, "ops")))
		return -ENOMEM;
	return 0;
}

cJSON *sched_ext_watch_take(struct sched_ext_watch *w)
{
	cJSON *arr = cJSON_CreateArray();

	if (!arr)
		return NULL;
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < w->nseen; i++) {
		if (add_sample(arr, &w->seen[i])) {
			cJSON_Delete(arr);
			arr = NULL; /* the changes stay for the next report */
			break;
		}
	}
	if (arr)
		w->nseen = 0;
	pthread_mutex_unlock(&w->lock);
	return arr;
}

void sched_ext_watch_stop(struct sched_ext_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
