/* iocost_set.c - see iocost_set.h. Layout (version 3): the version, then
 * - a bit per field that any row has, then the values, a column per such
 *   field, in row order over the rows that have it: how many, the decimal exponent every one of them is a multiple of
 * (the values come from decimal JSON in thousandths, so 25% is 25000), the smallest quotient (zigzag), a bit width,
 * then each quotient less the smallest in that many bits. A column of 20 percentages of one decimal then takes 9 bits a
 * value, where a zigzag varint took 16;
 * - the row count, then per row kind, dev, path and a byte with a bit per
 *   field present (samples or a sum), the top bit set when they all have the
 *   same sample count; that count once (else one per field present).
 * A column's head pays off over many rows; a set of a few rows is written as
 * version 2 instead when that is smaller: the same rows, each followed by its
 * fields' decimal exponents (2 bits each, at most 3) and zigzag quotients.
 * Version 1 (before issue 18: every field as (samples, zigzag sum)) is still
 * read. */
#include "server/series/iocost_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IOCOST_BLOB_V1 1
#define IOCOST_BLOB_V2 2
#define IOCOST_BLOB_VERSION 3
#define IOCOST_SAME_N 0x80
#define IOCOST_COL_EXP 18 /* version 3's per-column exponent: 10^18 still fits */

static const int64_t pow10s[IOCOST_COL_EXP + 1] = { 1LL,
						    10LL,
						    100LL,
						    1000LL,
						    10000LL,
						    100000LL,
						    1000000LL,
						    10000000LL,
						    100000000LL,
						    1000000000LL,
						    10000000000LL,
						    100000000000LL,
						    1000000000000LL,
						    10000000000000LL,
						    100000000000000LL,
						    1000000000000000LL,
						    10000000000000000LL,
						    100000000000000000LL,
						    1000000000000000000LL };

static bool same(const char *s, const char *p, size_t len)
{
	return strlen(s) == len && memcmp(s, p, len) == 0;
}

/* Rows and their names are carved from slabs, not allocated one by one: a
 * report's set holds twenty-odd rows, which were 25 of the 60 allocations a
 * report made in the HTTP threads, each of them through glibc's cold paths
 * at a few thousand reports a second (BENCHMARKS.md, session 27). */
struct iocost_slab {
	struct iocost_slab *next;
	size_t used, cap;
	max_align_t mem[];
};

#define IOCOST_SLAB_BYTES 4096   /* a report's rows fit in one */
#define IOCOST_ROW_BYTES_HINT 48 /* a row encoded, about: what a set's blob is sized to first */

/* n zeroed bytes of s's slabs, aligned for a row; NULL when out of memory */
static void *slab_alloc(struct iocost_set *s, size_t n)
{
	struct iocost_slab *sl = s->slab;
	void *p;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!sl || sl->cap - sl->used < n) {
		size_t cap = n > IOCOST_SLAB_BYTES ? n : IOCOST_SLAB_BYTES;

		sl = malloc(sizeof(*sl) + cap);
		if (!sl)
			return NULL;
		sl->next = s->slab;
		sl->used = 0;
		sl->cap = cap;
		s->slab = sl;
	}
	p = (char *)sl->mem + sl->used;
	sl->used += n;
	return memset(p, 0, n);
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
		size_t cap = s->cap ? s->cap * 2 : 32;
		struct iocost_row **nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->v = nv;
		s->cap = cap;
	}
	r = slab_alloc(s, sizeof(*r) + devlen + 1 + pathlen + 1);
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

static bool has_field(const struct iocost_row *r, int f)
{
	return r->n[f] || r->sum[f];
}

/* The largest e <= 3 with v a multiple of 10^e (version 2's per-value exponent, 2 bits).
 * Constant divisors: the compiler makes them multiplications, and a report has 140 values. */
static unsigned dec_exp(int64_t v)
{
	if (v == 0 || v % 10 != 0)
		return 0;
	if (v % 100 != 0)
		return 1;
	return v % 1000 != 0 ? 2 : 3;
}

/* v / 10^e for e <= 3, by constant divisors. */
static int64_t dec_div(int64_t v, unsigned e)
{
	return e == 0 ? v : e == 1 ? v / 10 : e == 2 ? v / 100 : v / 1000;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The bytes version 2 spends on row r's values beside its key and counts: the exponents and
 * the zigzag quotients. */
static size_t row_values_len(const struct iocost_row *r)
{
	unsigned exps = 0;
	size_t n = 0;

	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (has_field(r, f)) {
			unsigned e = dec_exp(r->sum[f]);
			int64_t q = dec_div(r->sum[f], e);

			exps |= e << (2 * f);
			n += varint_len(((uint64_t)q << 1) ^ (uint64_t)(q >> 63));
		}
	return n ? n + varint_len(exps) : 0;
}

/* Appends row r: its key, field mask and sample counts, and with values (version 2) the
 * fields' exponents and quotients. */
static void encode_row(struct blob *out, const struct iocost_row *r, bool values)
{
	unsigned mask = 0, same = IOCOST_SAME_N, exps = 0;
	int first = -1;

	blob_put_u64(out, r->kind);
	blob_put_str(out, r->dev, strlen(r->dev));
	blob_put_str(out, r->path, strlen(r->path));
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (has_field(r, f)) {
			mask |= 1u << f;
			if (first < 0)
				first = f;
			else if (r->n[f] != r->n[first])
				same = 0;
			exps |= values ? dec_exp(r->sum[f]) << (2 * f) : 0;
		}
	blob_put_u64(out, mask | (mask ? same : 0));
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if ((mask >> f & 1) && (!same || f == first))
			blob_put_u64(out, r->n[f]);
	if (!values || !mask)
		return;
	blob_put_u64(out, exps);
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (mask >> f & 1)
			blob_put_i64(out, dec_div(r->sum[f], exps >> (2 * f) & 3));
}

/* Appends the low w bits of v (w <= 64) at bit *fill of out's last byte, least significant first. */
static void put_bits(struct blob *out, uint64_t v, unsigned w, unsigned *fill)
{
	while (w > 0) {
		unsigned take = 8 - *fill < w ? 8 - *fill : w;

		if (*fill == 0) {
			if (!blob_reserve(out, 1))
				return;
			out->p[out->len++] = 0;
		}
		out->p[out->len - 1] |= (uint8_t)((v & ((1u << take) - 1)) << *fill);
		v >>= take; /* take is at most 8 */
		w -= take;
		*fill = (*fill + take) & 7;
	}
}

/* Appends field f's column: count, exponent, smallest quotient, width, the bits. q has room
 * for a quotient per row. */
static void encode_column(struct blob *out, const struct iocost_set *s, int f, int64_t *q)
{
	unsigned e = IOCOST_COL_EXP, w = 0, fill = 0;
	size_t count = 0;
	uint64_t span = 0;
	int64_t lo = 0;

	for (size_t i = 0; i < s->n; i++) {
		int64_t v = s->v[i]->sum[f];
		unsigned ev = 0;

		if (!has_field(s->v[i], f))
			continue;
		/* counted up from 0 by a constant divisor: nearly every value has 0 to 3 trailing zeros */
		for (int64_t t = v; t != 0 && ev < e && t % 10 == 0; t /= 10)
			ev++;
		if (v != 0)
			e = ev;
		q[count++] = v;
	}
	for (size_t k = 0; k < count; k++) {
		if (e)
			q[k] /= pow10s[e];
		if (k == 0 || q[k] < lo)
			lo = q[k];
	}
	for (size_t k = 0; k < count; k++)
		if ((uint64_t)q[k] - (uint64_t)lo > span)
			span = (uint64_t)q[k] - (uint64_t)lo;
	while (w < 64 && span >> w)
		w++;
	blob_put_u64(out, count);
	blob_put_u64(out, e);
	blob_put_i64(out, lo);
	blob_put_u64(out, w);
	for (size_t k = 0; k < count && w; k++)
		put_bits(out, (uint64_t)q[k] - (uint64_t)lo, w, &fill);
}

/* Version 3's head: the version, the fields present, their columns. */
static void encode_columns(const struct iocost_set *s, struct blob *out)
{
	unsigned cols = 0;
	int64_t *q = malloc((s->n ? s->n : 1) * sizeof(*q));

	if (!q) {
		out->oom = true;
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		for (int f = 0; f < IOCOST_FIELDS; f++)
			cols |= (unsigned)has_field(s->v[i], f) << f;
	blob_put_u64(out, IOCOST_BLOB_VERSION);
	blob_put_u64(out, cols);
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (cols >> f & 1)
			encode_column(out, s, f, q);
	free(q);
}

void iocost_set_encode(const struct iocost_set *s, struct blob *out)
{
	size_t start = out->len, beside = 0;
	bool columns;

	/* Both versions write every row's key and counts; they differ in where the values go. A
	 * column's head (count, exponent, smallest value, width) pays off over many rows; with a
	 * few, values beside their rows (version 2) take less, and that is written instead. */
	blob_reserve(out, s->n * IOCOST_ROW_BYTES_HINT);
	encode_columns(s, out);
	if (out->oom)
		return;
	for (size_t i = 0; i < s->n; i++)
		beside += row_values_len(s->v[i]);
	columns = out->len - start - 1 <= beside; /* the version, one byte, is in both */
	if (!columns) {
		out->len = start;
		blob_put_u64(out, IOCOST_BLOB_V2);
	}
	blob_put_u64(out, s->n);
	for (size_t i = 0; i < s->n; i++)
		encode_row(out, s->v[i], !columns);
}

/* Reads one row's fields (after its key) into n[] and sum[] (version 3: n[] only, the sums
 * are in the columns); returns the mask of the fields present. */
static uint64_t decode_fields(struct blob_reader *rd, uint64_t version, uint64_t n[IOCOST_FIELDS],
			      uint64_t sum[IOCOST_FIELDS])
{
	uint64_t mask, exps, same_n = 0;

	if (version == IOCOST_BLOB_V1) {
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			n[f] = blob_get_u64(rd);
			sum[f] = (uint64_t)blob_get_i64(rd);
		}
		return 0;
	}
	mask = blob_get_u64(rd);
	if (mask & ~(uint64_t)(IOCOST_SAME_N | ((1u << IOCOST_FIELDS) - 1))) {
		rd->bad = true;
		return 0;
	}
	if (!(mask & ((1u << IOCOST_FIELDS) - 1)))
		return 0;
	if (mask & IOCOST_SAME_N)
		same_n = blob_get_u64(rd);
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (mask >> f & 1)
			n[f] = mask & IOCOST_SAME_N ? same_n : blob_get_u64(rd);
	if (version != IOCOST_BLOB_V2)
		return mask & ((1u << IOCOST_FIELDS) - 1);
	exps = blob_get_u64(rd);
	/* wrapping, not signed overflow: a corrupt row must not be undefined behaviour */
	for (int f = 0; f < IOCOST_FIELDS; f++)
		if (mask >> f & 1)
			sum[f] = (uint64_t)blob_get_i64(rd) * (uint64_t)pow10s[exps >> (2 * f) & 3];
	return mask & ((1u << IOCOST_FIELDS) - 1);
}

/* A version 3 column being read: its values left, scale, smallest quotient, width, bits. */
struct column {
	uint64_t left, lo, scale;
	unsigned w, bit;
	const uint8_t *p, *end;
};

/* Reads the columns' heads at rd (the bits are read later, row by row) and steps past them. */
static bool columns_open(struct column cols[IOCOST_FIELDS], struct blob_reader *rd)
{
	uint64_t present = blob_get_u64(rd);

	if (present >> IOCOST_FIELDS)
		return false;
	for (int f = 0; f < IOCOST_FIELDS; f++) {
		struct column *c = &cols[f];
		uint64_t e, w, bytes;

		memset(c, 0, sizeof(*c));
		if (!(present >> f & 1))
			continue;
		c->left = blob_get_u64(rd);
		if (!c->left)
			return false; /* a column is there because a row has its field */
		e = blob_get_u64(rd);
		c->lo = (uint64_t)blob_get_i64(rd);
		w = blob_get_u64(rd);
		/* each value has a row, of several bytes after the columns: more values than bytes is corrupt */
		if (rd->bad || e > IOCOST_COL_EXP || w > 64 || c->left > (uint64_t)(rd->end - rd->p))
			return false;
		bytes = (c->left * w + 7) / 8;
		if (bytes > (uint64_t)(rd->end - rd->p))
			return false;
		c->scale = (uint64_t)pow10s[e];
		c->w = (unsigned)w;
		c->p = rd->p;
		c->end = rd->p + bytes;
		rd->p += bytes;
	}
	return !rd->bad;
}

/* The next value of a column (wrapping arithmetic: a corrupt row must not be undefined behaviour). */
static bool column_next(struct column *c, uint64_t *sum)
{
	uint64_t v = 0;

	if (!c->left)
		return false;
	c->left--;
	for (unsigned got = 0; got < c->w;) {
		unsigned take = 8 - c->bit < c->w - got ? 8 - c->bit : c->w - got;

		if (c->p >= c->end)
			return false;
		v |= (uint64_t)(*c->p >> c->bit & ((1u << take) - 1)) << got;
		got += take;
		c->bit = (c->bit + take) & 7;
		if (c->bit == 0)
			c->p++;
	}
	*sum = (c->lo + v) * c->scale;
	return true;
}

int iocost_set_add_blob(struct iocost_set *s, const void *p, size_t len)
{
	struct column cols[IOCOST_FIELDS];
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
	if (version == IOCOST_BLOB_VERSION) {
		if (!columns_open(cols, &rd))
			goto bad;
	} else if (version != IOCOST_BLOB_V1 && version != IOCOST_BLOB_V2) {
		goto bad;
	}
	n = blob_get_u64(&rd);
	for (uint64_t i = 0; i < n && !rd.bad; i++) {
		uint8_t kind = (uint8_t)blob_get_u64(&rd);
		size_t devlen, pathlen;
		const char *dev = blob_get_str(&rd, &devlen), *path = blob_get_str(&rd, &pathlen);
		uint64_t fn[IOCOST_FIELDS] = { 0 }, fsum[IOCOST_FIELDS] = { 0 };
		uint64_t mask = decode_fields(&rd, version, fn, fsum);
		struct iocost_row *r;

		if (rd.bad)
			break;
		for (int f = 0; version == IOCOST_BLOB_VERSION && f < IOCOST_FIELDS; f++)
			if ((mask >> f & 1) && !column_next(&cols[f], &fsum[f]))
				goto bad;
		r = iocost_set_get(s, kind, dev, devlen, path, pathlen);
		if (!r) {
			rc = -ENOMEM;
			goto out;
		}
		for (int f = 0; f < IOCOST_FIELDS; f++) {
			r->n[f] += fn[f];
			r->sum[f] = (int64_t)((uint64_t)r->sum[f] + fsum[f]);
		}
	}
	/* versions 2 and 3 have nothing after their rows: a blob that does is not one this wrote */
	if (rd.bad || (version != IOCOST_BLOB_V1 && rd.p != rd.end))
		goto bad;
	for (int f = 0; version == IOCOST_BLOB_VERSION && f < IOCOST_FIELDS; f++)
		if (cols[f].left)
			goto bad;
	rc = 0;
	goto out;
bad:
	rc = -EINVAL;
out:
	free(scratch);
	return rc;
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
	while (s->slab) {
		struct iocost_slab *next = s->slab->next;

		free(s->slab);
		s->slab = next;
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
