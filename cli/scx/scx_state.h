/* scx_state.h - whether a sched_ext scheduler can be loaded now. */
#ifndef SCHEDIO_CLI_SCX_SCX_STATE_H
#define SCHEDIO_CLI_SCX_SCX_STATE_H

#include <stddef.h>

/* Checks that a scheduler can be loaded now: sched_ext present, none active,
 * privileges; returns 0, or -1 with a one-line reason in why. */
int scx_state_preflight(const char *sysfs_root, char *why, size_t why_len);

#endif /* SCHEDIO_CLI_SCX_SCX_STATE_H */
