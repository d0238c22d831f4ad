/* sched_ext_watch.c - notices a sched_ext scheduler being loaded, unloaded
 * or ejected between two reports.
 *
 * sysfs gives no notification for the sched_ext state file, but the
 * kernel sends a uevent (subsystem "sched_ext") when a scheduler's kobject
 * is added at the end of enabling, and when it is removed while disabling.
 * The watch thread sleeps on that socket and reads the state as soon as one
 * arrives, so a new scheduler is named as soon as the thread wakes, not up to
 * a poll period later. It still polls: every period_ms while the state is
 * passing (no uevent marks the end of "disabling"), otherwise every
 * uevent_period_ms in case a message was lost. Without the socket (no
 * netlink, no permission) it polls every period_ms. Each change of (state,
 * ops) is recorded with its time, in a bounded list whose last slot the
 * newest change replaces, so the final state in a report is always the true
 * one; the first reading is the baseline, not a transition. Followers get
 * each change at once, from the thread; poll followers (the health counters
 * of sched_ext_health.c) every poll, changed or not.
 */
#include "agent/host/sched_ext_watch.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "agent/host/uevent.h"
#include "common/log.h"

#define WATCH_MAX_TRANSITIONS 64
#define WATCH_MAX_FOLLOWERS 4

struct watch_sample {
	int64_t t_ms;
	char state[32];
	char ops[128];
};

struct follower {
	sched_ext_watch_change_fn fn;
	void *arg;
	bool every_poll; /* called after every poll, not only on a change */
};

struct sched_ext_watch {
	pthread_t thread;
	int wake_fd;   /* eventfd: stop */
	int uevent_fd; /* -1: polling only; only the thread changes it once running */
	atomic_bool on_uevents;
	struct sched_ext_watch_cfg cfg;
	pthread_mutex_t lock;     /* seen, nseen */
	struct watch_sample last; /* the state as of the latest poll (the thread's own) */
	struct watch_sample seen[WATCH_MAX_TRANSITIONS];
	size_t nseen;
	pthread_mutex_t follow_lock; /* held while followers run */
	struct follower followers[WATCH_MAX_FOLLOWERS];
};

static int64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads the state; records it if it changed, and hands it to the followers
 * that want it (every poll, or only a change). */
static void poll_once(struct sched_ext_watch *w, bool on_uevent)
{
	struct watch_sample now = { .t_ms = clock_ms(CLOCK_REALTIME) };
	bool changed;

	w->cfg.read(w->cfg.arg, now.state, sizeof(now.state), now.ops, sizeof(now.ops));
	changed = strcmp(now.state, w->last.state) || strcmp(now.ops, w->last.ops);
	if (changed) {
		log_debug("sched_ext: %s%s%s (%s)", now.state, now.ops[0] ? " " : "", now.ops,
			  on_uevent ? "seen on a kernel uevent" : "polled");
		w->last = now;
		pthread_mutex_lock(&w->lock);
		if (w->nseen == WATCH_MAX_TRANSITIONS)
			w->nseen--; /* keep the latest: it is the state the interval ends in */
		w->seen[w->nseen++] = now;
		pthread_mutex_unlock(&w->lock);
	}
	pthread_mutex_lock(&w->follow_lock);
	for (int i = 0; i < WATCH_MAX_FOLLOWERS; i++)
		if (w->followers[i].fn && (changed || w->followers[i].every_poll))
			w->followers[i].fn(w->followers[i].arg, now.state, now.ops);
	pthread_mutex_unlock(&w->follow_lock);
}

/* The wait before the next poll: short without uevents, and while the state
 * is passing (no uevent marks the end of "enabling" or "disabling"). */
static unsigned next_period(const struct sched_ext_watch *w)
{
	static const char *const passing[] = { "prepping", "enabling", "disabling" };

	if (w->uevent_fd < 0)
		return w->cfg.period_ms;
	for (size_t i = 0; i < sizeof(passing) / sizeof(passing[0]); i++)
		if (!strcmp(w->last.state, passing[i]))
			return w->cfg.period_ms;
	return w->cfg.uevent_period_ms;
}

/* Reads the uevents waiting; true if it polled because one was sched_ext's. */
static bool on_uevent(struct sched_ext_watch *w)
{
	int r = uevent_drain(w->uevent_fd, "sched_ext", "/kernel/sched_ext");

	if (r < 0) {
		log_warn("sched_ext: uevent socket failed (%s): polling every %u ms", strerror(-r), w->cfg.period_ms);
		close(w->uevent_fd);
		w->uevent_fd = -1;
		atomic_store(&w->on_uevents, false);
	}
	if (r == 0)
		return false;
	poll_once(w, r > 0);
	return true;
}

static void *watch_main(void *p)
{
	struct sched_ext_watch *w = p;
	int64_t next = clock_ms(CLOCK_MONOTONIC) + next_period(w);

	for (;;) {
		struct pollfd fds[2] = { { .fd = w->wake_fd, .events = POLLIN },
					 { .fd = w->uevent_fd, .events = POLLIN } };
		int64_t now = clock_ms(CLOCK_MONOTONIC);

		if (now >= next) {
			poll_once(w, false);
			next = now + next_period(w);
		}
		if (poll(fds, w->uevent_fd >= 0 ? 2 : 1, (int)(next > now ? next - now : 0)) < 0 && errno != EINTR) {
			log_warn("sched_ext: the watch thread stops: poll: %s", strerror(errno));
			break;
		}
		if (fds[0].revents)
			break; /* stop */
		if (fds[1].revents && on_uevent(w))
			next = clock_ms(CLOCK_MONOTONIC) + next_period(w);
	}
	return NULL;
}

/* Releases what sched_ext_watch_start set up once the thread is gone (or never ran). */
static void watch_free(struct sched_ext_watch *w)
{
	pthread_mutex_destroy(&w->follow_lock);
	pthread_mutex_destroy(&w->lock);
	if (w->uevent_fd >= 0)
		close(w->uevent_fd);
	close(w->wake_fd);
	free(w);
}

int sched_ext_watch_start(struct sched_ext_watch **out, const struct sched_ext_watch_cfg *cfg)
{
	struct sched_ext_watch *w = calloc(1, sizeof(*w));
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->cfg = *cfg;
	if (!w->cfg.period_ms)
		w->cfg.period_ms = 1;
	w->uevent_fd = -1;
	w->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		err = -errno;
		free(w);
		return err;
	}
	if (cfg->uevent_period_ms) {
		w->uevent_fd = uevent_open();
		if (w->uevent_fd < 0)
			log_info("sched_ext: no kernel uevents (%s): polling every %u ms", strerror(-w->uevent_fd),
				 w->cfg.period_ms);
		atomic_store(&w->on_uevents, w->uevent_fd >= 0);
	}
	cfg->read(cfg->arg, w->last.state, sizeof(w->last.state), w->last.ops, sizeof(w->last.ops));
	pthread_mutex_init(&w->lock, NULL);
	pthread_mutex_init(&w->follow_lock, NULL);
	err = pthread_create(&w->thread, NULL, watch_main, w);
	if (err) {
		watch_free(w);
		return -err;
	}
	*out = w;
	return 0;
}

static int add_follower(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg, bool every_poll)
{
	int err = -ENOSPC;

	pthread_mutex_lock(&w->follow_lock);
	for (int i = 0; i < WATCH_MAX_FOLLOWERS; i++) {
		if (!w->followers[i].fn) {
			w->followers[i] = (struct follower){ fn, arg, every_poll };
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&w->follow_lock);
	return err;
}

int sched_ext_watch_follow(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg)
{
	return add_follower(w, fn, arg, false);
}

int sched_ext_watch_follow_polls(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg)
{
	return add_follower(w, fn, arg, true);
}

void sched_ext_watch_unfollow(struct sched_ext_watch *w, sched_ext_watch_change_fn fn, void *arg)
{
	pthread_mutex_lock(&w->follow_lock);
	for (int i = 0; i < WATCH_MAX_FOLLOWERS; i++)
		if (w->followers[i].fn == fn && w->followers[i].arg == arg)
			w->followers[i] = (struct follower){ 0 };
	pthread_mutex_unlock(&w->follow_lock);
}

bool sched_ext_watch_on_uevents(struct sched_ext_watch *w)
{
	return atomic_load(&w->on_uevents);
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
	uint64_t one = 1;

	if (!w)
		return;
	if (write(w->wake_fd, &one, sizeof(one)) != sizeof(one))
		log_warn("sched_ext: cannot wake the watch thread: %s", strerror(errno));
	pthread_join(w->thread, NULL);
	watch_free(w);
}
