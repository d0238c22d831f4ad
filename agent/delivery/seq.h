/* seq.h - the report sequence number, persisted so it only ever grows. */
#ifndef SCHEDIO_AGENT_DELIVERY_SEQ_H
#define SCHEDIO_AGENT_DELIVERY_SEQ_H

#include <stdint.h>

/* Reserves the next seq, persisting it under state_dir first (NULL: not persisted,
 * counting from *mem); returns 0 or -errno with nothing reserved. */
int seq_next(const char *state_dir, uint64_t *mem, uint64_t *out);

/* Reads the persisted seq under state_dir into *mem if it is higher; 0, or -errno other than ENOENT. */
int seq_load(const char *state_dir, uint64_t *mem);

#endif /* SCHEDIO_AGENT_DELIVERY_SEQ_H */
