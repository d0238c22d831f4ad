/* sched_ext.c - the sched_ext state in the report: read by
 * common/sched_ext_state.c, with the changes the watcher saw within the
 * interval, and the watcher of that state for the agent.
 */
#include "agent/host/sched_ext.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/host/sched_ext_watch.h"

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

/* The state is the agent's watcher (not ours to stop), NULL without sched_ext. */
static int sched_ext_open(const struct agent_options *opt, void **state)
{
	*state = opt->sched_watch;
	return 0;
}

static int sched_ext_collect(void *state, cJSON *report)
{
	struct sched_ext_state st;
	cJSON *changes;
	int err;

	/* state and ops as at the end of the interval; the changes within it, as
	 * the watcher saw them, so the server can split the interval exactly */
	sched_ext_state_read(SCHED_EXT_STATE_ROOT, &st);
	err = sched_ext_to_json(&st, report);
	if (err || !state)
		return err;
	changes = sched_ext_watch_take(state);
	if (!changes)
		return -ENOMEM;
	if (cJSON_GetArraySize(changes) == 0) {
		cJSON_Delete(changes);
		return 0;
	}
	if (!cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(report, "sched_ext"), "transitions", changes)) {
		cJSON_Delete(changes);
		return -ENOMEM;
	}
	return 0;
}

static void sched_ext_close(void *state)
{
	(void)state; /* the agent stops the watcher after every collector closed */
}

const struct collector sched_ext_collector = {
	.name = "sched_ext",
	.open = sched_ext_open,
	.collect = sched_ext_collect,
	.close = sched_ext_close,
};
