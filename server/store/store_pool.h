/* store_pool.h - a fixed set of read-only store handles shared by the HTTP
 * threads, so concurrent queries each get their own connection (WAL readers
 * never block the writer or each other). */
#ifndef SCHEDIO_SERVER_STORE_STORE_POOL_H
#define SCHEDIO_SERVER_STORE_STORE_POOL_H

#include <stddef.h>

#include "server/store/store.h"

struct store_pool;

/* Opens n handles on path; NULL with err on failure. */
struct store_pool *store_pool_open(const char *path, unsigned n, char *err, size_t errlen);
/* Takes a handle, waiting while all are in use. */
struct store *store_pool_get(struct store_pool *p);
/* Gives a handle back. */
void store_pool_put(struct store_pool *p, struct store *st);
/* Closes every handle (none may be out). */
void store_pool_close(struct store_pool *p);

#endif /* SCHEDIO_SERVER_STORE_STORE_POOL_H */
