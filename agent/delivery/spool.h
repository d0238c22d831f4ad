/* spool.h - the agent's on-disk queue of reports the server has not yet acknowledged. */
#ifndef SCHEDIO_AGENT_DELIVERY_SPOOL_H
#define SCHEDIO_AGENT_DELIVERY_SPOOL_H

#include <stddef.h>
#include <stdint.h>

struct spool;

/* Opens (creating) the spool in dir, capped at max_bytes; unreadable or corrupt files are removed
 * and counted as lost. Returns 0, or -errno with the reason in err. */
int spool_open(struct spool **out, const char *dir, uint64_t max_bytes, char *err, size_t errlen);
/* Closes the spool; the files stay. */
void spool_close(struct spool *sp);
/* Changes the cap; takes effect at the next append. */
void spool_set_max_bytes(struct spool *sp, uint64_t max_bytes);
/* How many reports a new one of len bytes would drop (oldest first) to fit under the cap, counting
 * those the dropped ones had carried and those lost to corruption: the number the new report
 * must carry as delivery.dropped. */
uint64_t spool_drop_count(const struct spool *sp, size_t len);
/* Appends one report durably (write, fsync, rename, fsync dir) with the drop count it carries, then
 * drops the oldest reports until the spool fits its cap. Returns 0, or -errno with nothing written. */
int spool_append(struct spool *sp, uint64_t seq, uint64_t carried, const void *buf, size_t len);
/* Reads the oldest report into a malloc'd buffer (NUL-terminated, not counted in *len); 0, -ENOENT when the spool is
 * empty, or -errno. A report that fails its checksum is removed, counted as lost, and the next one is read. */
int spool_peek(struct spool *sp, uint64_t *seq, void **buf, size_t *len);
/* Removes report seq after the server's 2xx; 0 or -errno. */
int spool_ack(struct spool *sp, uint64_t seq);
/* Number of reports held. */
size_t spool_count(const struct spool *sp);
/* Bytes held (files, headers included). */
uint64_t spool_bytes(const struct spool *sp);
/* Highest seq held or ever appended in this process, 0 if none: seq must stay above it. */
uint64_t spool_last_seq(const struct spool *sp);

#endif /* SCHEDIO_AGENT_DELIVERY_SPOOL_H */
