/* daemon.h - the agent's long-running mode: collect every interval, spool, deliver in order. */
#ifndef SCHEDIO_AGENT_DAEMON_H
#define SCHEDIO_AGENT_DAEMON_H

#include <signal.h>
#include <stddef.h>

#include "agent/config.h"

/* Builds a fresh, finished configuration (file + flags) into cfg; 0 or -1 with the reason in err. */
typedef int (*daemon_reload_fn)(struct agent_config *cfg, char *err, size_t errlen);

/* Runs until *stop is set, reloading through reload when *hup is set; the collectors in states
 * are open. On stop the interval in progress is spooled. Returns the process exit status. */
int daemon_run(struct agent_config *cfg, daemon_reload_fn reload, void **states, volatile sig_atomic_t *stop,
	       volatile sig_atomic_t *hup);

#endif /* SCHEDIO_AGENT_DAEMON_H */
