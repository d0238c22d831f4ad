/* sched_ext.c - the sched_ext state from sysfs.
 *
 * Kernels with CONFIG_SCHED_CLASS_EXT have /sys/kernel/sched_ext/state, and
 * root/ops naming the BPF scheduler while one is loaded. Without the folder
 * the kernel cannot run one: "unsupported". The root is a parameter so tests
 * can hand in a fake tree.
 */
#include "agent/host/sched_ext.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/host/sched_ext_watch.h"
#include "common/fsutil.h"

int sched_ext_read(const char *root, struct sched_ext_state *st)
{
	char path[PATH_MAX];
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(root, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(st->state, sizeof(st->state), "unsupported");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/state", root);
	if (fs_read_trimmed(path, st->state, sizeof(st->state)) <= 0)
		snprintf(st->state, sizeof(st->state), "unknown");
	snprintf(path, sizeof(path), "%s/root/ops", root);
	if (fs_read_trimmed(path, st->ops, sizeof(st->ops)) < 0)
		st->ops[0] = '\0';
	return 0;
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

	sched_ext_read(root, &st);
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
	sched_ext_read(SCHED_EXT_ROOT, &st);
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
