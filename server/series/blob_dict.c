/* blob_dict.c - see blob_dict.h. Registered dictionaries are immutable and
 * published by a release store of the count, so lookups (one per blob packed
 * or unpacked) take no lock; adding one and sampling take the mutex. */
#include "server/series/blob_dict.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCDict_advanced: a hash table sized to the dictionary */
#include <zstd.h>

#define BLOB_DICT_SRC_HINT 513 /* the source size ZSTD_createCDict assumes, so the same parameters */
#define BLOB_DICT_HASH_LOG 12  /* log2 of the entries in a dictionary's match table */

struct dict {
	uint32_t id;
	int kind;
	ZSTD_CDict *c;
	ZSTD_DDict *d;
	uint8_t *bytes;
	size_t len;
};

struct samples {
	uint8_t *p;
	size_t len, cap;
	size_t *sizes;
	size_t n;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct dict dicts[BLOB_DICT_MAX];
static atomic_size_t ndicts;
static _Atomic(const struct dict *) in_use[BLOB_DICT_KINDS];
static struct samples pool[BLOB_DICT_KINDS];
/* Per kind: its samples are enough (the number wanted, or BLOB_DICT_POOL_MAX bytes), or taken by
 * a training; read without the lock, so packing stops sampling without taking it. */
static atomic_bool pool_full[BLOB_DICT_KINDS];
static atomic_size_t want = BLOB_DICT_SAMPLES_DEFAULT;
static _Atomic int64_t grace = BLOB_DICT_GRACE_MS_DEFAULT;

static bool kind_ok(int kind)
{
	return kind > 0 && kind < BLOB_DICT_KINDS;
}

static const struct dict *find(uint32_t id)
{
	size_t n = atomic_load_explicit(&ndicts, memory_order_acquire);

	for (size_t i = 0; i < n; i++)
		if (dicts[i].id == id)
			return &dicts[i];
	return NULL;
}

void blob_dict_configure(size_t samples, int64_t grace_ms)
{
	atomic_store(&want, samples);
	atomic_store(&grace, grace_ms);
}

int64_t blob_dict_grace_ms(void)
{
	return atomic_load(&grace);
}

uint32_t blob_dict_id(const void *p, size_t len)
{
	uint32_t id = (uint32_t)crc32(crc32(0, NULL, 0), p, (uInt)len);

	return id ? id : 1;
}

/* A compression dictionary for p at level 1 whose match table holds 2^12
 * entries instead of the level's 2^15: a blob looks up every position it
 * packs in that table, and at a few thousand reports a second it is not in
 * the cache: zstd took 31-33 us a report with the 128 KB table, 19-22 with a
 * 16 KB one (BENCHMARKS.md, session 27). An 8 KB dictionary fills 4,096
 * entries about twice over; the blobs come out ~0.5% larger. */
static ZSTD_CDict *cdict_for(const void *p, size_t len)
{
	ZSTD_compressionParameters cp = ZSTD_getCParams(1, BLOB_DICT_SRC_HINT, len);

	if (cp.hashLog > BLOB_DICT_HASH_LOG)
		cp.hashLog = BLOB_DICT_HASH_LOG;
	return ZSTD_createCDict_advanced(p, len, ZSTD_dlm_byCopy, ZSTD_dct_auto, cp, ZSTD_defaultCMem);
}

int blob_dict_add(uint32_t id, int kind, const void *p, size_t len)
{
	const struct dict *have;
	struct dict *d;
	int rc = 0;

	if (!kind_ok(kind) || len == 0 || id == 0)
		return -EINVAL;
	pthread_mutex_lock(&mu);
	have = find(id);
	if (have) {
		rc = have->len == len && memcmp(have->bytes, p, len) == 0 ? 0 : -EEXIST;
		goto out;
	}
	if (atomic_load(&ndicts) == BLOB_DICT_MAX) {
		rc = -ENOSPC;
		goto out;
	}
	d = &dicts[atomic_load(&ndicts)];
	memset(d, 0, sizeof(*d));
	d->bytes = malloc(len);
	if (!d->bytes) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(d->bytes, p, len);
	d->len = len;
	d->id = id;
	d->kind = kind;
	d->c = cdict_for(d->bytes, len);
	d->d = ZSTD_createDDict(d->bytes, len);
	if (!d->c || !d->d) {
		ZSTD_freeCDict(d->c);
		ZSTD_freeDDict(d->d);
		free(d->bytes);
		memset(d, 0, sizeof(*d));
		rc = -EINVAL;
		goto out;
	}
	atomic_store_explicit(&ndicts, atomic_load(&ndicts) + 1, memory_order_release);
out:
	pthread_mutex_unlock(&mu);
	return rc;
}

static void samples_free(struct samples *s)
{
	free(s->p);
	free(s->sizes);
	memset(s, 0, sizeof(*s));
}

/* Drops kind's samples: sampling starts over (unless a dictionary is in use). Under the lock. */
static void pool_reset(int kind)
{
	samples_free(&pool[kind]);
	atomic_store(&pool_full[kind], false);
}

int blob_dict_use(int kind, uint32_t id)
{
	const struct dict *d = find(id);

	if (!kind_ok(kind) || !d || d->kind != kind)
		return -ENOENT;
	pthread_mutex_lock(&mu);
	atomic_store(&in_use[kind], d);
	pool_reset(kind);
	pthread_mutex_unlock(&mu);
	return 0;
}

uint32_t blob_dict_in_use(int kind)
{
	const struct dict *d = kind_ok(kind) ? atomic_load(&in_use[kind]) : NULL;

	return d ? d->id : 0;
}

const struct ZSTD_DDict_s *blob_dict_ddict(uint32_t id)
{
	const struct dict *d = find(id);

	return d ? d->d : NULL;
}

bool blob_dict_due(int kind)
{
	bool due;

	if (!kind_ok(kind) || atomic_load(&in_use[kind]) || atomic_load(&want) == 0)
		return false;
	pthread_mutex_lock(&mu);
	due = atomic_load(&pool_full[kind]) && pool[kind].p;
	pthread_mutex_unlock(&mu);
	return due;
}

/* Keeps a copy of plain blob b among kind's samples, while they are wanted. */
static void sample(int kind, const struct blob *b)
{
	struct samples *s = &pool[kind];
	size_t n = atomic_load(&want);

	if (b->len == 0 || b->len > BLOB_DICT_SAMPLE_MAX)
		return;
	pthread_mutex_lock(&mu);
	if (atomic_load(&in_use[kind]) || atomic_load(&pool_full[kind]))
		goto out;
	if (s->len + b->len > BLOB_DICT_POOL_MAX) {
		atomic_store(&pool_full[kind], true);
		goto out;
	}
	if (!s->sizes) {
		s->sizes = calloc(n, sizeof(*s->sizes));
		if (!s->sizes)
			goto out;
	}
	if (s->len + b->len > s->cap) {
		size_t cap = s->cap ? s->cap : 64 << 10;
		uint8_t *np;

		while (cap < s->len + b->len)
			cap *= 2;
		np = realloc(s->p, cap);
		if (!np)
			goto out;
		s->p = np;
		s->cap = cap;
	}
	memcpy(s->p + s->len, b->p, b->len);
	s->len += b->len;
	s->sizes[s->n++] = b->len;
	if (s->n >= n)
		atomic_store(&pool_full[kind], true);
out:
	pthread_mutex_unlock(&mu);
}

/* Chunks' sections (report_chunk.h) are packed once, off the ingest path, and are mostly values:
 * level 1, whose Huffman-coded literals level -1 lacks. */
#define BLOB_DICT_CHUNK_LEVEL 1

static int pack(struct blob *b, int kind, bool sampled)
{
	const struct dict *d = kind_ok(kind) && atomic_load(&want) ? atomic_load(&in_use[kind]) : NULL;

	blob_layout(b);
	if (b->oom)
		return -ENOMEM;
	if (sampled && !d && kind_ok(kind) && atomic_load(&want) && !atomic_load(&pool_full[kind]))
		sample(kind, b);
	return blob_pack_at(b, d ? d->c : NULL, d ? d->id : 0, sampled ? 0 : BLOB_DICT_CHUNK_LEVEL);
}

int blob_pack_kind(struct blob *b, int kind)
{
	return pack(b, kind, true);
}

int blob_pack_in_use(struct blob *b, int kind)
{
	return pack(b, kind, false);
}

int blob_dict_train(int kind, uint8_t **out, size_t *len, uint32_t *id)
{
	struct samples s;
	uint8_t *buf;
	size_t n;
	int rc = -ENOMEM;

	if (!blob_dict_due(kind))
		return -EAGAIN;
	/* Take the samples: training runs outside the lock, and packing does not wait for it. The
	 * pool stays full (and empty) meanwhile, so nothing is sampled; when training ends, sampling
	 * starts over, until a dictionary is in use (this one, once stored, or another). */
	pthread_mutex_lock(&mu);
	s = pool[kind];
	memset(&pool[kind], 0, sizeof(pool[kind]));
	pthread_mutex_unlock(&mu);
	buf = malloc(BLOB_DICT_BYTES);
	if (!buf)
		goto out;
	n = ZDICT_trainFromBuffer(buf, BLOB_DICT_BYTES, s.p, s.sizes, (unsigned)s.n);
	if (ZDICT_isError(n)) {
		free(buf);
		rc = -EINVAL;
		goto out;
	}
	*out = buf;
	*len = n;
	*id = blob_dict_id(buf, n);
	rc = 0;
out:
	samples_free(&s);
	pthread_mutex_lock(&mu);
	pool_reset(kind);
	pthread_mutex_unlock(&mu);
	return rc;
}

void blob_dict_reset(void)
{
	pthread_mutex_lock(&mu);
	for (int k = 0; k < BLOB_DICT_KINDS; k++) {
		atomic_store(&in_use[k], NULL);
		pool_reset(k);
	}
	for (size_t i = 0; i < atomic_load(&ndicts); i++) {
		ZSTD_freeCDict(dicts[i].c);
		ZSTD_freeDDict(dicts[i].d);
		free(dicts[i].bytes);
	}
	atomic_store(&ndicts, 0);
	atomic_store(&want, BLOB_DICT_SAMPLES_DEFAULT);
	atomic_store(&grace, BLOB_DICT_GRACE_MS_DEFAULT);
	pthread_mutex_unlock(&mu);
}
