/* seq.h - the report sequence number, persisted so it only ever grows, and
 * the incarnation id that names the life of that persisted seq. */
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

/* Puts the incarnation of the seq under state_dir in out: the persisted one while the seq file is
 * valid, else a new random one persisted before any seq (NULL state_dir: new, not persisted); 0 or -errno. */
int seq_incarnation(const char *state_dir, char out[SEQ_INCARNATION_LEN + 1]);

#endif /* SCHEDIO_AGENT_DELIVERY_SEQ_H */
