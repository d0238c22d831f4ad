/* sched_ext.c - the sched_ext state from sysfs.
 *
 * Kernels with CONFIG_SCHED_CLASS_EXT have /sys/kernel/sched_ext/state, and
 * root/ops naming the BPF scheduler while one is loaded. Without the folder
 * the kernel cannot run one: "unsupported". The root is a parameter so tests
 * can hand in a fake tree.
 */
#include "agent/sched_ext.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

static int sched_ext_open(const struct agent_options *opt, void **state)
{
	*state = NULL;
	return 0;
}

static int sched_ext_collect(void *state, cJSON *report)
{
	struct sched_ext_state st;

	/* Read at the end of the interval: a scheduler switch mid-interval shows in the next one. */
	sched_ext_read("/sys/kernel/sched_ext", &st);
	return sched_ext_to_json(&st, report);
}

static void sched_ext_close(void *state)
{
}

const struct collector sched_ext_collector = {
	.name = "sched_ext",
	.open = sched_ext_open,
	.collect = sched_ext_collect,
	.close = sched_ext_close,
};
