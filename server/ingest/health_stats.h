/* health_stats.h - the issue-17 counters /metrics exports, per host: what
 * the reports stored since the server started said of sched_ext events,
 * rejected tasks and scheduler exits, the agent's CPU and BPF run time, and
 * the runqueue wait per L3 domain (all summed, so they only grow), plus the
 * agent's latest resident set. Kept in memory for the whole process and
 * filled as reports are stored; a server fed only older reports has none. */
#ifndef SCHEDIO_SERVER_INGEST_HEALTH_STATS_H
#define SCHEDIO_SERVER_INGEST_HEALTH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Hosts tracked at most (later ones are left out of these families). */
#define HEALTH_STATS_MAX_HOSTS 5000

/* Adds one stored report's health_json and exits_json (either may be NULL) to its host's counters;
 * the RSS gauge follows the report with the latest start_ms (a replayed older report does not move it back). */
void health_stats_add(const char *machine_id, int64_t start_ms, const char *health_json, const char *exits_json);
/* Writes the Prometheus text of every family that has samples, through out(arg, text, len). */
void health_stats_write(void (*out)(void *arg, const char *text, size_t len), void *arg);
/* Forgets every counter (tests). */
void health_stats_reset(void);

#endif /* SCHEDIO_SERVER_INGEST_HEALTH_STATS_H */
