/* iocost_set.c - see iocost_set.h. Layout: version, row count, then per row
 * kind, dev, path and for each field (samples, zigzag sum). */
#include "server/series/iocost_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IOCOST_BLOB_VERSION 1

static bool same(const char *s, const char *p, size_t len)
{
	return strlen(s) == len && memcmp(s, p, len) == 0;
}

struct iocost_row *iocost_set_get(struct iocost_set *s, uint8_t kind, const char *dev, size_t devlen, const char *path,
				  size_t pathlen)
{
	struct iocost_row *r;

	for (size_t i = 0; i < s->n; i++) {
		r = s->v[i];
		if (r->kind == kind && same(r->dev, dev, devlen) && same(r->path, path, pathlen))
			return r;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct iocost_row **nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->v = nv;
		s->cap = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->dev = strndup(dev, devlen);
	r->path = strndup(path, pathlen);
	if (!r->dev || !r->path) {
		free(r->dev);
		free(r->path);
		free(r);
		return NULL;
	}
	r->kind = kind;
	s->v[s->n++] = r;
	return r;
}

void iocost_set_encode(const struct iocost_set *s, struct blob *out)
{
	blob_put_u64(out, IOCOST_BLOB_VERSION);
	blob_put_u64(out, s->n);
	for (size_t i = 0; i < s->n; i++) {
		const struct iocost_row *r = s->v[i];

		blob_put_u64(out, r->kind);
		blob_put_str(out, r->dev, strlen(r->dev));
		blob_put_str(out, r->path, strlen(r->path));
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			blob_put_u64(out, r->n[f]);
			blob_put_i64(out, r->sum[f]);
		}
	}
}

int iocost_set_add_blob(struct iocost_set *s, const void *p, size_t len)
{
	struct blob_reader rd;
	const uint8_t *plain;
	uint8_t *scratch;
	size_t plen;
	uint64_t n;
	int rc = blob_unpack(p, len, &plain, &plen, &scratch);

	if (rc)
		return rc;
	blob_reader_init(&rd, plain, plen);
	if (blob_get_u64(&rd) != IOCOST_BLOB_VERSION) {
		free(scratch);
		return -EINVAL;
	}
	n = blob_get_u64(&rd);
	for (uint64_t i = 0; i < n && !rd.bad; i++) {
		uint8_t kind = (uint8_t)blob_get_u64(&rd);
		size_t devlen, pathlen;
		const char *dev = blob_get_str(&rd, &devlen), *path = blob_get_str(&rd, &pathlen);
		struct iocost_row *r;

		if (rd.bad)
			break;
		r = iocost_set_get(s, kind, dev, devlen, path, pathlen);
		if (!r) {
			free(scratch);
			return -ENOMEM;
		}
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			r->n[f] += blob_get_u64(&rd);
			/* wrapping, not signed overflow: a corrupt row must not be undefined behaviour */
			r->sum[f] = (int64_t)((uint64_t)r->sum[f] + (uint64_t)blob_get_i64(&rd));
		}
	}
	free(scratch);
	return rd.bad ? -EINVAL : 0;
}

int iocost_row_value(const struct iocost_row *r, int f, double *out)
{
	if (!r->n[f])
		return 0;
	if (f < IOCOST_AVERAGED_FIELDS)
		*out = (double)r->sum[f] / (double)r->n[f] / 1000.0;
	else
		*out = (double)r->sum[f];
	return 1;
}

void iocost_set_free(struct iocost_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i]->dev);
		free(s->v[i]->path);
		free(s->v[i]);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
