/* store_dicts.h - a database's blob dictionaries (server/series/blob_dict.h):
 * loaded into the process's registry, and trained and stored when due. */
#ifndef SCHEDIO_SERVER_STORE_STORE_DICTS_H
#define SCHEDIO_SERVER_STORE_STORE_DICTS_H

#include <stdbool.h>
#include <stdint.h>

#include "server/store/store.h"

/* Registers every dictionary st holds, and packs each kind with its newest one
 * stored at least the grace ago; 0 or -1. */
int store_dicts_load(struct store *st);
/* store_dicts_load, then, when train (the server leading rollups) and a kind
 * has samples enough and no dictionary stored, trains one and stores it (used
 * once its grace has passed); 0 or -1. */
int store_dicts_tend(struct store *st, int64_t now_ms, bool train);

#endif /* SCHEDIO_SERVER_STORE_STORE_DICTS_H */
