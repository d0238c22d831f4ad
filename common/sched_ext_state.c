/* sched_ext_state.c - the sched_ext state from sysfs.
 *
 * Kernels with CONFIG_SCHED_CLASS_EXT have /sys/kernel/sched_ext/state
 * ("enabled" while a BPF scheduler runs, the transient "enabling" and
 * "disabling" too), and root/ops naming the scheduler while one is loaded.
 * Without the folder the kernel cannot run one: "unsupported". The root is a
 * parameter so tests can hand in a fake tree.
 */
#include "common/sched_ext_state.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fsutil.h"

bool sched_ext_state_supported(const char *root)
{
	struct stat sb;

	return stat(root, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int sched_ext_state_read(const char *root, struct sched_ext_state *st)
{
	char path[PATH_MAX];

	memset(st, 0, sizeof(*st));
	if (!sched_ext_state_supported(root)) {
		snprintf(st->state, sizeof(st->state), "unsupported");
		return 0;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/state", root) >= sizeof(path) ||
	    fs_read_trimmed(path, st->state, sizeof(st->state)) <= 0)
		snprintf(st->state, sizeof(st->state), "unknown");
	if ((size_t)snprintf(path, sizeof(path), "%s/root/ops", root) >= sizeof(path) ||
	    fs_read_trimmed(path, st->ops, sizeof(st->ops)) < 0)
		st->ops[0] = '\0'; /* root/ exists only while a scheduler is loaded */
	return 0;
}

int sched_ext_state_read_sysfs(const char *sysfs_root, struct sched_ext_state *st)
{
	char root[PATH_MAX];

	if ((size_t)snprintf(root, sizeof(root), "%s/kernel/sched_ext", sysfs_root) >= sizeof(root))
		return -ENAMETOOLONG;
	return sched_ext_state_read(root, st);
}
