/* store_dicts.c - see store_dicts.h. A dictionary is stored (committed)
 * before any blob is packed with it, and every server on the database packs
 * with the newest one past its grace: a server loads the table each rollup
 * round (5 s), so by then each has registered it and reads those blobs. */
#include "server/store/store_dicts.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "server/series/blob_dict.h"

struct loaded {
	int64_t now_ms;
	uint32_t newest[BLOB_DICT_KINDS]; /* per kind: the newest past its grace */
	bool any[BLOB_DICT_KINDS];        /* per kind: one is stored */
};

static int on_dict(void *arg, uint32_t id, int kind, const void *p, size_t len, int64_t created_ms)
{
	struct loaded *l = arg;
	int rc;

	if (kind <= 0 || kind >= BLOB_DICT_KINDS)
		return 0; /* a kind this server does not pack */
	rc = blob_dict_add(id, kind, p, len);
	if (rc) {
		log_warn("blob dictionary %08x (kind %d) cannot be loaded: %s; blobs packed with it cannot be read", id,
			 kind,
			 rc == -EEXIST   ? "another one has its id"
			 : rc == -ENOSPC ? "this process holds as many as it can"
			 : rc == -ENOMEM ? "out of memory"
					 : "not a zstd dictionary");
		return 0;
	}
	l->any[kind] = true;
	if (created_ms <= l->now_ms - blob_dict_grace_ms())
		l->newest[kind] = id;
	return 0;
}

int store_dicts_load(struct store *st)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return store_dicts_tend(st, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, false);
}

int store_dicts_tend(struct store *st, int64_t now_ms, bool train)
{
	struct loaded l = { .now_ms = now_ms };

	if (st->ops->dicts(st, on_dict, &l))
		return -1;
	for (int k = 1; k < BLOB_DICT_KINDS; k++) {
		uint8_t *d = NULL;
		size_t len;
		uint32_t id;
		int rc;

		if (l.newest[k] && blob_dict_in_use(k) != l.newest[k])
			blob_dict_use(k, l.newest[k]);
		if (!train || l.any[k] || !blob_dict_due(k))
			continue;
		rc = blob_dict_train(k, &d, &len, &id);
		if (rc) {
			log_warn("blob dictionary (kind %d): training failed (%d); sampling again", k, rc);
			continue;
		}
		rc = st->ops->dict_put(st, id, k, d, len, now_ms) ? -1 : blob_dict_add(id, k, d, len);
		if (rc)
			log_warn("blob dictionary (kind %d): cannot store it: %s", k, st->ops->errmsg(st));
		else
			log_info("blob dictionary %08x (kind %d, %zu bytes) stored; in use in %lld ms", id, k, len,
				 (long long)blob_dict_grace_ms());
		free(d);
	}
	return 0;
}
