/* iocost_set.c - see iocost_set.h. Layout (version 2): version, row count,
 * then per row kind, dev, path, a byte with a bit per field present (samples
 * or a sum) and the top bit set when they all have the same sample count,
 * that count once (else one per field present), the fields' decimal
 * exponents (2 bits each: the values come from decimal JSON in thousandths,
 * so 25% is 25000, stored as 25 with exponent 3) and each present field's
 * zigzag sum divided by its 10^exponent. Version 1 (before issue 18: every
 * field as (samples, zigzag sum)) is still read. Unlike the histograms, the
 * keys and numbers are not split in two sections (blob_aux): measured, the
 * second block's own statistics cost more than they saved. */
#include "server/series/iocost_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IOCOST_BLOB_V1 1
#define IOCOST_BLOB_VERSION 2
#define IOCOST_SAME_N 0x80
#define IOCOST_MAX_EXP 3

static const int64_t pow10s[IOCOST_MAX_EXP + 1] = { 1, 10, 100, 1000 };

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
	/* one allocation holds the row and both names: a report adds twenty rows */
	r = calloc(1, sizeof(*r) + devlen + 1 + pathlen + 1);
	if (!r)
		return NULL;
	r->dev = (char *)(r + 1);
	r->path = r->dev + devlen + 1;
	memcpy(r->dev, dev, devlen);
	memcpy(r->path, path, pathlen);
	r->kind = kind;
	s->v[s->n++] = r;
	return r;
}

/* The largest e <= IOCOST_MAX_EXP with v a multiple of 10^e. */
static unsigned dec_exp(int64_t v)
{
	unsigned e = 0;

	while (v != 0 && e < IOCOST_MAX_EXP && v % pow10s[e + 1] == 0)
		e++;
	return v == 0 ? 0 : e;
}

/* Appends row r's fields (after its key). */
static void encode_fields(struct blob *out, const struct iocost_row *r)
{
	unsigned mask = 0, same = IOCOST_SAME_N, exps = 0;
	int first = -1;

	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (r->n[f] || r->sum[f]) {
			mask |= 1u << f;
			if (first < 0)
				first = f;
			else if (r->n[f] != r->n[first])
				same = 0;
			exps |= dec_exp(r->sum[f]) << (2 * f);
		}
	blob_put_u64(out, mask | (mask ? same : 0));
	if (!mask)
		return;
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if ((mask >> f & 1) && (!same || f == first))
			blob_put_u64(out, r->n[f]);
	blob_put_u64(out, exps);
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (mask >> f & 1)
			blob_put_i64(out, r->sum[f] / pow10s[exps >> (2 * f) & 3]);
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
		encode_fields(out, r);
	}
}

/* Reads one row's fields (after its key) into n[] and sum[] as stored by version. */
static void decode_fields(struct blob_reader *rd, uint64_t version, uint64_t n[IOCOST_FIELDS],
			  uint64_t sum[IOCOST_FIELDS])
{
	uint64_t mask, exps, same_n = 0;

	if (version == IOCOST_BLOB_V1) {
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			n[f] = blob_get_u64(rd);
			sum[f] = (uint64_t)blob_get_i64(rd);
		}
		return;
	}
	mask = blob_get_u64(rd);
	if (mask & ~(uint64_t)(IOCOST_SAME_N | ((1u << IOCOST_FIELDS) - 1))) {
		rd->bad = true;
		return;
	}
	if (!(mask & ((1u << IOCOST_FIELDS) - 1)))
		return;
	if (mask & IOCOST_SAME_N)
		same_n = blob_get_u64(rd);
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (mask >> f & 1)
			n[f] = mask & IOCOST_SAME_N ? same_n : blob_get_u64(rd);
	exps = blob_get_u64(rd);
	/* wrapping, not signed overflow: a corrupt row must not be undefined behaviour */
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (mask >> f & 1)
			sum[f] = (uint64_t)blob_get_i64(rd) * (uint64_t)pow10s[exps >> (2 * f) & 3];
}

int iocost_set_add_blob(struct iocost_set *s, const void *p, size_t len)
{
	struct blob_reader rd;
	const uint8_t *plain;
	uint8_t *scratch;
	size_t plen;
	uint64_t n, version;
	int rc = blob_unpack(p, len, &plain, &plen, &scratch);

	if (rc)
		return rc;
	blob_reader_init(&rd, plain, plen);
	version = blob_get_u64(&rd);
	if (version != IOCOST_BLOB_V1 && version != IOCOST_BLOB_VERSION) {
		free(scratch);
		return -EINVAL;
	}
	n = blob_get_u64(&rd);
	for (uint64_t i = 0; i < n && !rd.bad; i++) {
		uint8_t kind = (uint8_t)blob_get_u64(&rd);
		size_t devlen, pathlen;
		const char *dev = blob_get_str(&rd, &devlen), *path = blob_get_str(&rd, &pathlen);
		uint64_t fn[IOCOST_FIELDS] = { 0 }, fsum[IOCOST_FIELDS] = { 0 };
		struct iocost_row *r;

		decode_fields(&rd, version, fn, fsum);
		if (rd.bad)
			break;
		r = iocost_set_get(s, kind, dev, devlen, path, pathlen);
		if (!r) {
			free(scratch);
			return -ENOMEM;
		}
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			r->n[f] += fn[f];
			r->sum[f] = (int64_t)((uint64_t)r->sum[f] + fsum[f]);
		}
	}
	free(scratch);
	/* version 2 has nothing after its rows: a blob that does is not one this wrote */
	if (version == IOCOST_BLOB_VERSION && rd.p != rd.end)
		return -EINVAL;
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
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]); /* its names are in the same allocation */
	free(s->v);
	memset(s, 0, sizeof(*s));
}
