/* body_pool.h - request bodies' buffers kept for reuse on the thread that
 * freed them. A report body (~17 KB) is too large for glibc's per-thread
 * cache: each malloc of one takes the arena's large-chunk path, which first
 * consolidates the fast bins, and each free merges it back. The last few
 * buffers freed on a thread are handed out again instead, still warm. */
#ifndef SCHEDIO_SERVER_HTTP_BODY_POOL_H
#define SCHEDIO_SERVER_HTTP_BODY_POOL_H

#include <stddef.h>

/* Buffers a thread keeps, and the largest capacity kept (larger ones are freed). */
#define BODY_POOL_KEEP 8
#define BODY_POOL_MAX_CAP ((size_t)256 << 10)

/* A buffer of at least need bytes (its capacity in *cap): a kept one when one is large
 * enough, else a new one of need rounded up to a power of two (while that stays kept-size).
 * NULL when out of memory. Plain malloc memory: realloc and free work on it. */
char *body_pool_get(size_t need, size_t *cap);
/* Takes back p of capacity cap (NULL: nothing), keeping it for this thread or freeing it. */
void body_pool_put(char *p, size_t cap);

#endif /* SCHEDIO_SERVER_HTTP_BODY_POOL_H */
