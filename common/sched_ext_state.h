/* sched_ext_state.h - which sched_ext scheduler, if any, the kernel runs, as
 * sysfs shows it: read by the agent (reports, the split by scheduler) and by
 * `schedio scx` (before and while it loads one).
 */
#ifndef SCHEDIO_COMMON_SCHED_EXT_STATE_H
#define SCHEDIO_COMMON_SCHED_EXT_STATE_H

#include <stdbool.h>

/* Where the kernel shows sched_ext's state (absent without CONFIG_SCHED_CLASS_EXT). */
#define SCHED_EXT_STATE_ROOT "/sys/kernel/sched_ext"

struct sched_ext_state {
	char state[32]; /* "unsupported", "unknown", "disabled", "enabling", "enabled", "disabling", ... */
	char ops[128];  /* the loaded scheduler's name (the kernel's limit); "" when none */
};

/* True when root (SCHED_EXT_STATE_ROOT outside tests) exists: the kernel can run a sched_ext scheduler. */
bool sched_ext_state_supported(const char *root);
/* Reads the state under root: "unsupported" without the folder, "unknown" when
 * state is unreadable; always fills st, returns 0. */
int sched_ext_state_read(const char *root, struct sched_ext_state *st);
/* sched_ext_state_read under sysfs_root/kernel/sched_ext (sysfs_root is "/sys" outside tests). */
int sched_ext_state_read_sysfs(const char *sysfs_root, struct sched_ext_state *st);

#endif /* SCHEDIO_COMMON_SCHED_EXT_STATE_H */
