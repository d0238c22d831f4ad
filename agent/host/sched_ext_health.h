/* sched_ext_health.h - how the sched_ext schedulers fared during an interval
 * (report "sched_ext": enable_seq, nr_rejected, events, schedulers, exits).
 * Sampled on every poll of the sched_ext watcher and once at the end of the
 * interval; the exits come from the kernel log.
 */
#ifndef SCHEDIO_AGENT_HOST_SCHED_EXT_HEALTH_H
#define SCHEDIO_AGENT_HOST_SCHED_EXT_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

struct sched_ext_health;

/* Starts tracking the sched_ext state under root (SCHED_EXT_STATE_ROOT outside
 * tests) with a first reading as the baseline; the kernel log is read from
 * kmsg_path ("/dev/kmsg") from its end on; if it cannot be opened, exits come
 * from the state changes alone; NULL: the caller hands the records in. 0 or -ENOMEM. */
int sched_ext_health_open(struct sched_ext_health **out, const char *root, const char *kmsg_path);
/* True when exits come from the kernel log (false once it proved unreadable). */
bool sched_ext_health_has_kmsg(struct sched_ext_health *h);
/* Reads the counters and the scheduler in force at wall time now_ms, and the kernel log's new records. */
void sched_ext_health_poll(struct sched_ext_health *h, int64_t now_ms);
/* Takes one kernel log record as read(2) from /dev/kmsg returns it;
 * mono_to_wall_ms converts its timestamp (wall ms = µs / 1000 + it). */
void sched_ext_health_kmsg_record(struct sched_ext_health *h, const char *rec, size_t len, int64_t mono_to_wall_ms);
/* Adds enable_seq, nr_rejected, events, schedulers and exits of the interval
 * ending at now_ms to sched_ext (after a last poll) and starts the next; 0 or -ENOMEM. */
int sched_ext_health_take(struct sched_ext_health *h, int64_t now_ms, cJSON *sched_ext);
/* Frees h; h may be NULL. */
void sched_ext_health_close(struct sched_ext_health *h);

#endif /* SCHEDIO_AGENT_HOST_SCHED_EXT_HEALTH_H */
