/* runqlat_set.c - see runqlat_set.h. The encoding (version 2): a version
 * varint, the series count, then per series kind, key, count as its
 * difference to the buckets' total (zigzag; 0 when the count is their sum,
 * as it nearly always is), sum, max, the number of non-zero buckets, and the
 * buckets as runs of neighbours: (gap since the previous run's end, length,
 * the run's counts), all varints. A realistic histogram of ~60 neighbouring
 * buckets is then its counts and a few bytes.
 *
 * Packed, a blob is rewritten first as version 3: the same with every run's
 * counts moved to a second section (blob_join), so zstd codes the counts as a
 * block of their own, near their entropy, instead of with code lengths
 * diluted by the keys and totals between them. Version 1 (before issue 18:
 * every bucket an (index gap, count) pair, the count stored) is still read. */
#include "server/series/runqlat_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist_json.h"

#define RUNQLAT_BLOB_V1 1
#define RUNQLAT_BLOB_VERSION 2   /* as encoded: counts inline */
#define RUNQLAT_BLOB_SECTIONED 3 /* as packed: counts in the second section */
#define RQ_SERIES_BYTES_HINT 96  /* a series encoded, about: what a set's blob is sized to first */

struct runqlat_hist *runqlat_set_get(struct runqlat_set *s, uint8_t kind, const char *key, size_t keylen)
{
	struct runqlat_hist *h;

	for (size_t i = 0; i < s->n; i++) {
		h = s->v[i];
		if (h->kind == kind && strlen(h->key) == keylen && memcmp(h->key, key, keylen) == 0)
			return h;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct runqlat_hist **nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->v = nv;
		s->cap = cap;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->key = strndup(key, keylen);
	if (!h->key) {
		free(h);
		return NULL;
	}
	h->kind = kind;
	s->v[s->n++] = h;
	return h;
}

void runqlat_hist_add(struct runqlat_hist *dst, const struct runqlat_hist *src)
{
	hist_merge(&dst->hist, &src->hist);
}

static void rq_sectionize(struct blob *b);

void runqlat_set_encode_begin(struct blob *out, size_t nseries)
{
	blob_reserve(out, nseries * RQ_SERIES_BYTES_HINT);
	blob_put_u64(out, RUNQLAT_BLOB_VERSION);
	blob_put_u64(out, nseries);
	out->finish = rq_sectionize;
}

void runqlat_set_encode_series(struct blob *out, uint8_t kind, const char *key, size_t keylen, uint64_t count,
			       uint64_t sum_ns, uint64_t max_ns, const uint16_t *idx, const uint64_t *cnt, size_t nb)
{
	uint64_t total = 0;
	size_t next = 0; /* the index after the previous run */

	for (size_t i = 0; i < nb; i++)
		total += cnt[i];
	blob_put_u64(out, kind);
	blob_put_str(out, key, keylen);
	blob_put_i64(out, (int64_t)(count - total));
	blob_put_u64(out, sum_ns);
	blob_put_u64(out, max_ns);
	blob_put_u64(out, nb);
	for (size_t i = 0, end; i < nb; i = end) {
		for (end = i + 1; end < nb && idx[end] == idx[end - 1] + 1;)
			end++;
		blob_put_u64(out, idx[i] - next);
		blob_put_u64(out, end - i);
		for (size_t k = i; k < end; k++)
			blob_put_u64(out, cnt[k]);
		next = (size_t)idx[end - 1] + 1;
	}
}

static bool hist_empty(const struct runqlat_hist *h)
{
	return h->hist.count == 0 && hist_total(h->hist.buckets) == 0;
}

static void encode_hist(struct blob *out, const struct runqlat_hist *h)
{
	uint16_t idx[HIST_BUCKETS];
	uint64_t cnt[HIST_BUCKETS];
	size_t nb = 0;

	for (uint16_t b = 0; b < HIST_BUCKETS; b++)
		if (h->hist.buckets[b]) {
			idx[nb] = b;
			cnt[nb++] = h->hist.buckets[b];
		}
	runqlat_set_encode_series(out, h->kind, h->key, strlen(h->key), h->hist.count, h->hist.sum_ns, h->hist.max_ns,
				  idx, cnt, nb);
}

void runqlat_set_encode(const struct runqlat_set *s, struct blob *out)
{
	size_t live = 0;

	for (size_t i = 0; i < s->n; i++)
		live += !hist_empty(s->v[i]);
	runqlat_set_encode_begin(out, live);
	for (size_t i = 0; i < s->n; i++)
		if (!hist_empty(s->v[i]))
			encode_hist(out, s->v[i]);
}

/* Reads one varint as blob_get_u64 does (at most 10 bytes, the bits past 64
 * dropped), advancing *p; false when it is truncated or overlong. Inline,
 * with one byte first: the buckets are two varints each, nearly always of one
 * byte, and walking them is most of a blob's decoding. */
static inline bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	if (q < end && *q < 0x80) {
		*v = *q;
		*p = q + 1;
		return true;
	}
	for (unsigned shift = 0; shift < 64 && q < end; shift += 7) {
		uint8_t c = *q++;

		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			*p = q;
			return true;
		}
	}
	return false;
}

/* blob_pack's rewrite of a version 2 blob as version 3: each run's counts
 * moved to the second section. The bytes are this file's own, just encoded;
 * should they not walk, the blob is left as it is (version 2 reads as well). */
static void rq_sectionize(struct blob *b)
{
	struct blob out = { 0 }, *counts;
	struct blob_reader r;
	uint64_t n;

	blob_reader_init(&r, b->p, b->len);
	if (blob_get_u64(&r) != RUNQLAT_BLOB_VERSION || b->oom)
		return;
	n = blob_get_u64(&r);
	counts = blob_aux(&out);
	/* the sections rearrange b's bytes: together they are b's size and the join's
	 * 4, so both are sized once instead of grown from empty */
	if (!blob_reserve(&out, b->len + 16) || !counts || !blob_reserve(counts, b->len)) {
		blob_free(&out);
		return;
	}
	blob_put_u64(&out, RUNQLAT_BLOB_SECTIONED);
	blob_put_u64(&out, n);
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		size_t keylen;
		const char *key;
		uint64_t nb;

		blob_put_u64(&out, blob_get_u64(&r)); /* kind */
		key = blob_get_str(&r, &keylen);
		blob_put_str(&out, key, keylen);
		for (int k = 0; k < 3; k++) /* count (zigzag), sum, max */
			blob_put_u64(&out, blob_get_u64(&r));
		nb = blob_get_u64(&r);
		blob_put_u64(&out, nb);
		while (nb > 0 && !r.bad) {
			uint64_t gap = blob_get_u64(&r), len = blob_get_u64(&r);

			if (len == 0 || len > nb)
				r.bad = true;
			blob_put_u64(&out, gap);
			blob_put_u64(&out, len);
			nb -= r.bad ? nb : len;
			/* the run's counts are len varints: copied as bytes, not decoded */
			for (const uint8_t *q = r.p; len > 0 && !r.bad && counts; q++) {
				if (q >= r.end) {
					r.bad = true;
				} else if (!(*q & 0x80) && --len == 0 && blob_reserve(counts, (size_t)(q + 1 - r.p))) {
					memcpy(counts->p + counts->len, r.p, (size_t)(q + 1 - r.p));
					counts->len += (size_t)(q + 1 - r.p);
					r.p = q + 1;
				}
			}
		}
	}
	blob_join(&out);
	if (r.bad || r.p != r.end || out.oom) {
		blob_free(&out);
		return;
	}
	blob_free(b);
	*b = out;
}

typedef struct runqlat_hist *(*rq_target_fn)(void *ctx, uint8_t kind, const char *key, size_t keylen);

/* Adds the nb buckets of a version 1 series ((gap, count) pairs) into h (skips them when h is NULL). */
static bool walk_buckets_v1(struct blob_reader *r, uint64_t nb, struct runqlat_hist *h)
{
	int64_t idx = -1;

	for (uint64_t b = 0; b < nb; b++) {
		uint64_t gap, c;

		/* the usual bucket: a gap and a count of one byte each, well inside the histogram */
		if (r->end - r->p >= 2 && (r->p[0] | r->p[1]) < 0x80 && idx + 1 + r->p[0] < HIST_BUCKETS) {
			idx += 1 + r->p[0];
			if (h)
				h->hist.buckets[idx] += r->p[1];
			r->p += 2;
			continue;
		}
		if (!get_varint(&r->p, r->end, &gap) || !get_varint(&r->p, r->end, &c) || gap >= HIST_BUCKETS ||
		    idx + 1 + (int64_t)gap >= HIST_BUCKETS)
			return false;
		idx += 1 + (int64_t)gap;
		if (h)
			h->hist.buckets[idx] += c;
	}
	return true;
}

/* Adds the nb buckets of a version 2 series (runs in r, their counts in cr) into h (or skips
 * them); *total gets their sum. */
static bool walk_buckets_v2(struct blob_reader *r, struct blob_reader *cr, uint64_t nb, struct runqlat_hist *h,
			    uint64_t *total)
{
	uint64_t next = 0, sum = 0;

	while (nb > 0) {
		uint64_t gap, len, c;

		if (!get_varint(&r->p, r->end, &gap) || !get_varint(&r->p, r->end, &len) || len == 0 || len > nb ||
		    gap > HIST_BUCKETS || next + gap + len > HIST_BUCKETS)
			return false;
		next += gap;
		nb -= len;
		for (uint64_t *b = h ? &h->hist.buckets[next] : NULL; len > 0; len--, next++) {
			if (cr->p < cr->end && *cr->p < 0x80)
				c = *cr->p++;
			else if (!get_varint(&cr->p, cr->end, &c))
				return false;
			sum += c;
			if (b)
				*b++ += c;
		}
	}
	*total = sum;
	return true;
}

/* Walks a blob; for each wanted series, target(kind, key) says where to add it. */
static int rq_walk(const void *p, size_t len, runqlat_filter_fn want, void *arg, rq_target_fn target, void *ctx)
{
	struct blob_reader r, cr = { 0 };
	const uint8_t *plain;
	uint8_t *scratch;
	size_t plen, first, second;
	uint64_t n, version;
	int rc;

	rc = blob_unpack(p, len, &plain, &plen, &scratch);
	if (rc)
		return rc;
	blob_reader_init(&r, plain, plen);
	version = blob_get_u64(&r);
	if (version == RUNQLAT_BLOB_SECTIONED) {
		/* the series in the first section, their counts in the second */
		if (!blob_split(plain, plen, &first, &second) || first < (size_t)(r.p - plain))
			goto bad;
		r.end = plain + first;
		blob_reader_init(&cr, plain + first, second);
	} else if (version != RUNQLAT_BLOB_V1 && version != RUNQLAT_BLOB_VERSION) {
		goto bad;
	}
	n = blob_get_u64(&r);
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		uint8_t kind = (uint8_t)blob_get_u64(&r);
		size_t keylen;
		const char *key = blob_get_str(&r, &keylen);
		uint64_t count = version == RUNQLAT_BLOB_V1 ? blob_get_u64(&r) : (uint64_t)blob_get_i64(&r);
		uint64_t sum = blob_get_u64(&r), max = blob_get_u64(&r);
		uint64_t nb = blob_get_u64(&r), total = 0;
		struct runqlat_hist *h = NULL;

		if (r.bad || nb > HIST_BUCKETS)
			goto bad;
		if (!want || want(kind, key, keylen, arg)) {
			h = target(ctx, kind, key, keylen);
			if (!h) {
				rc = -ENOMEM;
				goto out;
			}
		}
		if (version == RUNQLAT_BLOB_V1        ? !walk_buckets_v1(&r, nb, h)
		    : version == RUNQLAT_BLOB_VERSION ? !walk_buckets_v2(&r, &r, nb, h, &total)
						      : !walk_buckets_v2(&r, &cr, nb, h, &total))
			goto bad;
		/* versions 2 and 3 store the count as its difference to the buckets' total (wrapping) */
		if (h)
			hist_add_totals(&h->hist, count + total, sum, max);
	}
	/* versions 2 and 3 have nothing after their series: a blob that does is not one this wrote */
	rc = r.bad || (version != RUNQLAT_BLOB_V1 && (r.p != r.end || cr.p != cr.end)) ? -EINVAL : 0;
	goto out;
bad:
	rc = -EINVAL;
out:
	free(scratch);
	return rc;
}

static struct runqlat_hist *target_set(void *ctx, uint8_t kind, const char *key, size_t keylen)
{
	return runqlat_set_get(ctx, kind, key, keylen);
}

static struct runqlat_hist *target_one(void *ctx, uint8_t kind, const char *key, size_t keylen)
{
	return ctx;
}

int runqlat_set_add_blob(struct runqlat_set *s, const void *p, size_t len, runqlat_filter_fn want, void *arg)
{
	return rq_walk(p, len, want, arg, target_set, s);
}

int runqlat_hist_add_blob(struct runqlat_hist *into, const void *p, size_t len, runqlat_filter_fn want, void *arg)
{
	return rq_walk(p, len, want, arg, target_one, into);
}

bool runqlat_set_want_host(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	(void)key;
	(void)keylen;
	(void)arg;
	return kind == RUNQLAT_HOST;
}

/* Takes nothing; notes whether the blob has RUNQLAT_SCHED series. */
static bool note_sched(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	(void)key;
	(void)keylen;
	*(bool *)arg |= kind == RUNQLAT_SCHED;
	return false;
}

static bool want_sched(uint8_t kind, const char *key, size_t keylen, void *arg)
{
	(void)key;
	(void)keylen;
	(void)arg;
	return kind == RUNQLAT_SCHED;
}

int runqlat_set_add_sched(struct runqlat_set *s, const void *p, size_t len, const char *group)
{
	struct runqlat_hist *dst;
	bool split = false;
	int rc;

	/* The first pass checks the whole blob, so a corrupt one adds nothing. */
	rc = runqlat_set_add_blob(s, p, len, note_sched, &split);
	if (rc || split)
		return rc ? rc : runqlat_set_add_blob(s, p, len, want_sched, NULL);
	dst = runqlat_set_get(s, RUNQLAT_SCHED, group, strlen(group));
	if (!dst)
		return -ENOMEM;
	return runqlat_hist_add_blob(dst, p, len, runqlat_set_want_host, NULL);
}

void runqlat_set_encode_host_hist(struct blob *out, const struct runqlat_hist *host, const struct runqlat_set *sched,
				  const char *group)
{
	const struct runqlat_hist *only = NULL;
	size_t live = 0;

	for (size_t i = 0; sched && i < sched->n; i++)
		if (sched->v[i]->kind == RUNQLAT_SCHED && !hist_empty(sched->v[i])) {
			live++;
			only = sched->v[i];
		}
	/* The common case: every sample ran under the row's own group. */
	if (live == 1 && strcmp(only->key, group) == 0)
		live = 0;
	/* The host series is there even when empty: the row had a runqlat section. */
	runqlat_set_encode_begin(out, 1 + live);
	encode_hist(out, host);
	for (size_t i = 0; live && i < sched->n; i++)
		if (sched->v[i]->kind == RUNQLAT_SCHED && !hist_empty(sched->v[i]))
			encode_hist(out, sched->v[i]);
}

void runqlat_set_free(struct runqlat_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i]->key);
		free(s->v[i]);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void runqlat_hist_to_json(const struct runqlat_hist *h, cJSON *obj, bool buckets)
{
	const struct hist *d = &h->hist;

	cJSON_AddNumberToObject(obj, "count", (double)(d->count ? d->count : hist_total(d->buckets)));
	cJSON_AddNumberToObject(obj, "sum_ns", (double)d->sum_ns);
	hist_json_add_quantiles(obj, d->buckets);
	cJSON_AddNumberToObject(obj, "max_ns", (double)d->max_ns);
	if (buckets)
		hist_json_add_buckets(obj, d->buckets);
}
