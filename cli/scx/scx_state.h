/* scx_state.h - the kernel's sched_ext state as sysfs shows it. */
#ifndef SCHEDIO_CLI_SCX_SCX_STATE_H
#define SCHEDIO_CLI_SCX_SCX_STATE_H

#include <stddef.h>

/* Reads <root>/kernel/sched_ext/state and root/ops (root is "/sys" outside
 * tests) into state and ops ("" when none); returns 0, or -ENOENT when the
 * kernel has no sched_ext. */
int scx_state_read(const char *sysfs_root, char *state, size_t state_len, char *ops, size_t ops_len);

/* Checks that a scheduler can be loaded now: sched_ext present, none active,
 * privileges; returns 0, or -1 with a one-line reason in why. */
int scx_state_preflight(const char *sysfs_root, char *why, size_t why_len);

#endif /* SCHEDIO_CLI_SCX_SCX_STATE_H */
