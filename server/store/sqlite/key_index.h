/* key_index.h - an in-memory index from 64-bit key hashes to rowids (open
 * addressing), for the SQLite writer's staged report keys. It grows a step at
 * a time: when it doubles, each later insert moves a few entries of the old
 * table, so no insert stalls the writer on a rehash of the whole index. */
#ifndef SCHEDIO_SERVER_STORE_SQLITE_KEY_INDEX_H
#define SCHEDIO_SERVER_STORE_SQLITE_KEY_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* Old-table slots each insert moves while the index is growing. */
#define KEY_INDEX_MOVE_STEP 16

struct key_index_slot {
	uint64_t hash; /* 0: empty */
	int64_t rowid;
};

/* Zeroed, it is an empty index. */
struct key_index {
	struct key_index_slot *cur; /* cap slots, a power of two */
	struct key_index_slot *old; /* the table being moved from (old_cap slots), NULL when not growing */
	size_t cap, old_cap, n;     /* n: entries in all */
	size_t old_next;            /* old's slots before it are moved */
};

/* Adds (hash, rowid); hash 0 is taken as 1. Returns 0, or -1 out of memory (the index unchanged). */
int key_index_add(struct key_index *ix, uint64_t hash, int64_t rowid);
/* Calls fn(arg, rowid) for each entry of this hash until fn returns non-zero; returns that, or 0. */
int key_index_find(const struct key_index *ix, uint64_t hash, int (*fn)(void *arg, int64_t rowid), void *arg);
/* Entries in the index. */
size_t key_index_count(const struct key_index *ix);
/* Frees the tables; the index is empty again. */
void key_index_clear(struct key_index *ix);

#endif /* SCHEDIO_SERVER_STORE_SQLITE_KEY_INDEX_H */
