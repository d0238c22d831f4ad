/* key_index.c - see key_index.h.
 *
 * Growth: at half full, a table of twice the size becomes the current one and
 * the full one is kept as old. Each add moves KEY_INDEX_MOVE_STEP of old's
 * slots (in slot order) into the current table, so old is empty long before
 * the current table is half full in turn: moving its cap slots takes cap / 16
 * adds, and the next growth is cap / 2 adds away. Old's slots are never
 * cleared while it is moved, so its probe chains stay whole; a lookup there
 * skips the slots before old_next, which are in the current table already. */
#include "server/store/sqlite/key_index.h"

#include <stdlib.h>

#define KEY_INDEX_MIN_CAP 1024

/* A growth at n = cap / 2 leaves cap / 2 adds before the next: at two slots an add, old is moved by then. */
_Static_assert(KEY_INDEX_MOVE_STEP >= 2, "the old table must be moved before the index grows again");

static void put(struct key_index_slot *t, size_t cap, uint64_t hash, int64_t rowid)
{
	size_t i;

	for (i = hash & (cap - 1); t[i].hash; i = (i + 1) & (cap - 1))
		;
	t[i] = (struct key_index_slot){ .hash = hash, .rowid = rowid };
}

static void move_some(struct key_index *ix, size_t slots)
{
	size_t end = ix->old_next + slots < ix->old_cap ? ix->old_next + slots : ix->old_cap;

	for (size_t i = ix->old_next; i < end; i++)
		if (ix->old[i].hash)
			put(ix->cur, ix->cap, ix->old[i].hash, ix->old[i].rowid);
	ix->old_next = end;
	if (end == ix->old_cap) {
		free(ix->old);
		ix->old = NULL;
		ix->old_cap = ix->old_next = 0;
	}
}

static int grow(struct key_index *ix)
{
	size_t cap = ix->cap ? 2 * ix->cap : KEY_INDEX_MIN_CAP;
	struct key_index_slot *t;

	t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	if (ix->cur) {
		ix->old = ix->cur;
		ix->old_cap = ix->cap;
		ix->old_next = 0;
	}
	ix->cur = t;
	ix->cap = cap;
	return 0;
}

int key_index_add(struct key_index *ix, uint64_t hash, int64_t rowid)
{
	if (!hash)
		hash = 1;
	if (2 * (ix->n + 1) > ix->cap && grow(ix))
		return -1;
	if (ix->old)
		move_some(ix, KEY_INDEX_MOVE_STEP);
	put(ix->cur, ix->cap, hash, rowid);
	ix->n++;
	return 0;
}

int key_index_find(const struct key_index *ix, uint64_t hash, int (*fn)(void *arg, int64_t rowid), void *arg)
{
	int rc;

	if (!hash)
		hash = 1;
	if (!ix->cap)
		return 0;
	for (size_t i = hash & (ix->cap - 1); ix->cur[i].hash; i = (i + 1) & (ix->cap - 1))
		if (ix->cur[i].hash == hash && (rc = fn(arg, ix->cur[i].rowid)))
			return rc;
	if (!ix->old)
		return 0;
	for (size_t i = hash & (ix->old_cap - 1); ix->old[i].hash; i = (i + 1) & (ix->old_cap - 1))
		if (i >= ix->old_next && ix->old[i].hash == hash && (rc = fn(arg, ix->old[i].rowid)))
			return rc;
	return 0;
}

size_t key_index_count(const struct key_index *ix)
{
	return ix->n;
}

void key_index_clear(struct key_index *ix)
{
	free(ix->cur);
	free(ix->old);
	*ix = (struct key_index){ 0 };
}
