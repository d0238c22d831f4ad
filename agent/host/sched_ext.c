/* sched_ext.c - the sched_ext state in the report: read by
 * common/sched_ext_state.c, with the changes the watcher saw within the
 * interval and the health of the schedulers (sched_ext_health.c), and the
 * watcher of that state for the agent.
 */
#include "agent/host/sched_ext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/host/sched_ext_health.h"
#include "agent/host/sched_ext_watch.h"
#include "common/log.h"

/* Where the kernel log is read from (the exits' reasons). */
#define SCHED_EXT_KMSG_PATH "/dev/kmsg"

struct sched_ext_collector {
	struct sched_ext_watch *watch;   /* the agent's (not ours to stop) */
	struct sched_ext_health *health; /* ours */
};

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sched_ext_to_json(const struct sched_ext_state *st, cJSON *report)
{
	cJSON *o = cJSON_AddObjectToObject(report, "sched_ext");

	if (!o || !cJSON_AddStringToObject(o, "state", st->state))
		return -ENOMEM;
	if (!(st->ops[0] ? cJSON_AddStringToObject(o, "ops", st->ops) : cJSON_AddNullToObject(o, "ops")))
		return -ENOMEM;
	return 0;
}

void sched_ext_read_into(void *root, char *state, size_t state_len, char *ops, size_t ops_len)
{
	struct sched_ext_state st;

	sched_ext_state_read(root, &st);
	snprintf(state, state_len, "%s", st.state);
	snprintf(ops, ops_len, "%s", st.ops);
}

int sched_ext_watch_sysfs(struct sched_ext_watch **out, const char *root)
{
	const struct sched_ext_watch_cfg cfg = {
		.period_ms = SCHED_EXT_WATCH_MS,
		.uevent_period_ms = SCHED_EXT_UEVENT_WATCH_MS,
		.read = sched_ext_read_into,
		.arg = (void *)root,
	};

	return sched_ext_watch_start(out, &cfg);
}

/* Each poll of the watcher samples the health counters too. */
static void sched_ext_on_poll(void *arg, const char *state, const char *ops)
{
	(void)state;
	(void)ops;
	sched_ext_health_poll(arg, wall_ms());
}

/* No watcher (a kernel without sched_ext): the state alone. */
static int sched_ext_open(const struct agent_options *opt, void **state)
{
	struct sched_ext_collector *c;
	int err;

	*state = NULL;
	if (!opt->sched_watch)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->watch = opt->sched_watch;
	err = sched_ext_health_open(&c->health, SCHED_EXT_STATE_ROOT, SCHED_EXT_KMSG_PATH);
	if (!err)
		err = sched_ext_watch_follow_polls(c->watch, sched_ext_on_poll, c->health);
	if (err) {
		log_error("sched_ext: cannot follow the schedulers' health: %s", strerror(-err));
		sched_ext_health_close(c->health);
		free(c);
		return err;
	}
	if (sched_ext_health_has_kmsg(c->health))
		log_info("sched_ext: scheduler exits from the kernel log (%s)", SCHED_EXT_KMSG_PATH);
	*state = c;
	return 0;
}

static int sched_ext_collect(void *state, cJSON *report)
{
	struct sched_ext_collector *c = state;
	struct sched_ext_state st;
	cJSON *changes, *o;
	int err;

	/* state and ops as at the end of the interval; the changes within it, as
	 * the watcher saw them, so the server can split the interval exactly */
	sched_ext_state_read(SCHED_EXT_STATE_ROOT, &st);
	err = sched_ext_to_json(&st, report);
	if (err || !c)
		return err;
	o = cJSON_GetObjectItemCaseSensitive(report, "sched_ext");
	changes = sched_ext_watch_take(c->watch);
	if (!changes)
		return -ENOMEM;
	if (cJSON_GetArraySize(changes) == 0)
		cJSON_Delete(changes);
	else if (!cJSON_AddItemToObject(o, "transitions", changes)) {
		cJSON_Delete(changes);
		return -ENOMEM;
	}
	return sched_ext_health_take(c->health, wall_ms(), o);
}

static void sched_ext_close(void *state)
{
	struct sched_ext_collector *c = state;

	/* the agent stops the watcher after every collector closed */
	if (!c)
		return;
	sched_ext_watch_unfollow(c->watch, sched_ext_on_poll, c->health);
	sched_ext_health_close(c->health);
	free(c);
}

const struct collector sched_ext_collector = {
	.name = "sched_ext",
	.open = sched_ext_open,
	.collect = sched_ext_collect,
	.close = sched_ext_close,
};
