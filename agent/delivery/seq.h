/* seq.h - the report sequence number, persisted so it only ever grows, and
 * the incarnation id that names the agent process that numbered a report.
 *
 * The server's exactly-once key is (host, incarnation, seq). A new id per
 * process start, not one kept beside seq, is what makes every way of losing
 * or rewinding the state safe: a purged, re-imaged or fresh state folder
 * restarts seq at 1, a restored backup rewinds it, and both would collide
 * with stored reports under a kept id. A resend stays a duplicate because a
 * spooled report keeps the id it was encoded with. */
#ifndef SCHEDIO_AGENT_DELIVERY_SEQ_H
#define SCHEDIO_AGENT_DELIVERY_SEQ_H

#include <stdint.h>

/* Reserves the next seq, persisting it under state_dir first (NULL: not persisted,
 * counting from *mem); returns 0 or -errno with nothing reserved. */
int seq_next(const char *state_dir, uint64_t *mem, uint64_t *out);

/* Reads the persisted seq under state_dir into *mem if it is higher; 0, or -errno other than ENOENT. */
int seq_load(const char *state_dir, uint64_t *mem);

/* Hex digits of an incarnation id (128 random bits). */
#define SEQ_INCARNATION_LEN 32

/* A new random incarnation id in out, made once per agent process; 0 or -errno. */
int seq_incarnation_new(char out[SEQ_INCARNATION_LEN + 1]);

#endif /* SCHEDIO_AGENT_DELIVERY_SEQ_H */
