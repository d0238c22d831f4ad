/* report_chunk.c - see report_chunk.h.
 *
 * Each section's plain bytes start with the version varint (1), so a section
 * too small to pack reads as a plain blob. Then:
 * - meta: the number of reports; per report the zigzag deltas of seq and
 *   start against the previous report's (0 before the first), end - start,
 *   received - end, the drop count, and the strings sched_group, kernel,
 *   incarnation and health, each as a tag: 0 the previous report's value,
 *   1 NULL, else its length + 2, then the bytes and a NUL;
 * - host_hist and iocost: per report the blob's length + 1 (0: none) and its
 *   plain bytes (never empty, and never starting with a packing marker, so
 *   that they read as plain wherever a stored blob is read);
 * - head: per report 0 (none), or 1, the length and the whole plain series
 *   blob, or 2, the first section's length and bytes and the second's length,
 *   for a blob that ends in a section trailer (blob_split); joining
 *   first || second || u32(first) again gives its bytes back exactly;
 * - counts: those second sections, back to back.
 */
#include "server/series/report_chunk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/series/blob_dict.h"

#define CHUNK_VERSION 1

enum { STR_SAME, STR_NULL, STR_FIRST };

/* a - b and a + b without overflow (wrapping): the columns are the agent's, any int64 */
static int64_t sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static void put_bytes(struct blob *b, const void *p, size_t len)
{
	if (len && blob_reserve(b, len)) {
		memcpy(b->p + b->len, p, len);
		b->len += len;
	}
}

/* Whether len bytes at p read as a plain blob: not empty, and not starting with a packing marker. */
static bool plain_ok(const uint8_t *p, size_t len)
{
	return len > 0 && p[0] != BLOB_PACKED && p[0] != BLOB_PACKED_ZSTD && p[0] != BLOB_PACKED_ZSTD_DICT;
}

/* Appends string i of the report being added (see the top of the file). */
static int put_str(struct report_chunk_writer *w, int i, const char *s)
{
	struct blob *m = &w->sec[REPORT_CHUNK_META];
	char *copy;
	size_t len;

	if (w->n > 0 && (s == w->str[i] || (s && w->str[i] && strcmp(s, w->str[i]) == 0))) {
		blob_put_u64(m, STR_SAME);
		return 0;
	}
	free(w->str[i]);
	w->str[i] = NULL;
	if (!s) {
		blob_put_u64(m, STR_NULL);
		return 0;
	}
	len = strlen(s);
	if (!(copy = strdup(s)))
		return -ENOMEM;
	w->str[i] = copy;
	blob_put_u64(m, len + STR_FIRST);
	put_bytes(m, s, len + 1);
	return 0;
}

/* The plain bytes of stored blob p (*plen 0 for none or empty; *scratch to free): 0, or -EINVAL for one that does
 * not unpack or whose plain bytes would not read as plain. */
static int plain_of(const void *p, size_t len, const uint8_t **plain, size_t *plen, uint8_t **scratch)
{
	*scratch = NULL;
	*plen = 0;
	if (!p || !len)
		return 0;
	if (blob_unpack(p, len, plain, plen, scratch) < 0 || (*plen && !plain_ok(*plain, *plen))) {
		free(*scratch);
		*scratch = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Appends a stored blob's plain bytes behind their length + 1 (0: none or empty). */
static int put_blob(struct blob *b, const void *p, size_t len)
{
	const uint8_t *plain;
	size_t plen;
	uint8_t *scratch;

	if (plain_of(p, len, &plain, &plen, &scratch) < 0)
		return -EINVAL;
	blob_put_u64(b, plen ? plen + 1 : 0);
	put_bytes(b, plain, plen);
	free(scratch);
	return 0;
}

static int put_series(struct report_chunk_writer *w, const void *p, size_t len)
{
	struct blob *h = &w->sec[REPORT_CHUNK_HEAD];
	const uint8_t *plain;
	size_t plen, first, second;
	uint8_t *scratch;

	if (plain_of(p, len, &plain, &plen, &scratch) < 0)
		return -EINVAL;
	if (!plen) {
		blob_put_u64(h, 0);
	} else if (blob_split(plain, plen, &first, &second)) {
		blob_put_u64(h, 2);
		blob_put_u64(h, first);
		put_bytes(h, plain, first);
		blob_put_u64(h, second);
		put_bytes(&w->sec[REPORT_CHUNK_COUNTS], plain + first, second);
	} else {
		blob_put_u64(h, 1);
		blob_put_u64(h, plen);
		put_bytes(h, plain, plen);
	}
	free(scratch);
	return 0;
}

int report_chunk_add(struct report_chunk_writer *w, const struct report_chunk_row *r)
{
	const char *str[4] = { r->sched_group, r->kernel, r->incarnation, r->health };
	struct blob *m = &w->sec[REPORT_CHUNK_META];
	int rc = 0;

	if (w->err)
		return w->err;
	if (w->n >= REPORT_CHUNK_MAX || !r->sched_group || !r->kernel || !r->incarnation)
		return -EINVAL;
	/* meta's version and count go in front when the chunk is finished */
	if (w->n == 0)
		for (int s = REPORT_CHUNK_META + 1; s < REPORT_CHUNK_SECTIONS; s++)
			blob_put_u64(&w->sec[s], CHUNK_VERSION);
	blob_put_i64(m, sub(r->seq, w->seq));
	blob_put_i64(m, sub(r->start_ms, w->start_ms));
	blob_put_i64(m, sub(r->end_ms, r->start_ms));
	blob_put_i64(m, sub(r->received_ms, r->end_ms));
	blob_put_i64(m, r->dropped);
	for (int i = 0; i < 4 && rc == 0; i++)
		rc = put_str(w, i, str[i]);
	if (rc == 0 && (rc = put_blob(&w->sec[REPORT_CHUNK_HOST_HIST], r->host_hist, r->host_hist_len)) == 0 &&
	    (rc = put_series(w, r->series, r->series_len)) == 0)
		rc = put_blob(&w->sec[REPORT_CHUNK_IOCOST], r->iocost, r->iocost_len);
	for (int s = 0; s < REPORT_CHUNK_SECTIONS && rc == 0; s++)
		if (w->sec[s].oom)
			rc = -ENOMEM;
	if (rc < 0) {
		w->err = rc; /* the sections hold part of this report: the writer takes no more */
		return rc;
	}
	w->seq = r->seq;
	w->start_ms = r->start_ms;
	w->n++;
	return 0;
}

void report_chunk_writer_free(struct report_chunk_writer *w)
{
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		blob_free(&w->sec[s]);
	for (int i = 0; i < 4; i++)
		free(w->str[i]);
	memset(w, 0, sizeof(*w));
}

int report_chunk_finish(struct report_chunk_writer *w, struct blob *out)
{
	/* the head and counts of series pack with the series dictionary, as a report's whole blob does */
	static const int kind[REPORT_CHUNK_SECTIONS] = {
		[REPORT_CHUNK_HEAD] = BLOB_DICT_SERIES,
		[REPORT_CHUNK_COUNTS] = BLOB_DICT_SERIES,
		[REPORT_CHUNK_IOCOST] = BLOB_DICT_IOCOST,
	};
	struct blob *m = &w->sec[REPORT_CHUNK_META];
	struct blob meta = { 0 };
	int rc = -ENOMEM;

	if (w->err || !w->n) {
		rc = w->err ? w->err : -EINVAL;
		goto out;
	}
	blob_put_u64(&meta, CHUNK_VERSION);
	blob_put_u64(&meta, w->n);
	put_bytes(&meta, m->p, m->len);
	if (meta.oom)
		goto out;
	blob_free(m);
	*m = meta;
	meta = (struct blob){ 0 };
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		out[s] = w->sec[s];
		w->sec[s] = (struct blob){ 0 };
	}
	rc = 0;
	for (int s = 0; s < REPORT_CHUNK_SECTIONS && rc == 0; s++)
		rc = blob_pack_in_use(&out[s], kind[s]);
	if (rc < 0)
		for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
			blob_free(&out[s]);
out:
	blob_free(&meta);
	report_chunk_writer_free(w);
	return rc;
}

/* Reads the sections into a reader whose buffers are kept (empty or from an earlier chunk). */
static int open_sections(struct report_chunk_reader *rd, const void *const *p, const size_t *len, size_t *n)
{
	uint64_t count;

	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++) {
		const uint8_t *plain;
		size_t plen;
		int rc;

		if (!p[s] && s != REPORT_CHUNK_META) {
			rd->skip |= 1u << s;
			continue;
		}
		rc = blob_unpack_reuse(p[s], len[s], &plain, &plen, &rd->scratch[s], &rd->scratch_cap[s]);
		if (rc < 0)
			return rc;
		blob_reader_init(&rd->sec[s], plain, plen);
		if (blob_get_u64(&rd->sec[s]) != CHUNK_VERSION || rd->sec[s].bad)
			return -EINVAL;
	}
	count = blob_get_u64(&rd->sec[REPORT_CHUNK_META]);
	if (rd->sec[REPORT_CHUNK_META].bad || count == 0 || count > REPORT_CHUNK_MAX)
		return -EINVAL;
	rd->n = (size_t)count;
	*n = rd->n;
	return 0;
}

int report_chunk_open(struct report_chunk_reader *rd, const void *const *p, const size_t *len, size_t *n)
{
	memset(rd, 0, sizeof(*rd));
	return open_sections(rd, p, len, n);
}

int report_chunk_reopen(struct report_chunk_reader *rd, const void *const *p, const size_t *len, size_t *n)
{
	struct report_chunk_reader keep = *rd;

	memset(rd, 0, sizeof(*rd));
	memcpy(rd->scratch, keep.scratch, sizeof(rd->scratch));
	memcpy(rd->scratch_cap, keep.scratch_cap, sizeof(rd->scratch_cap));
	rd->series = keep.series;
	rd->series_cap = keep.series_cap;
	return open_sections(rd, p, len, n);
}

/* Points *out at len bytes of r and steps over them; false when fewer remain. */
static bool get_bytes(struct blob_reader *r, size_t len, const uint8_t **out)
{
	if (r->bad || (size_t)(r->end - r->p) < len) {
		r->bad = true;
		return false;
	}
	*out = r->p;
	r->p += len;
	return true;
}

/* Reads string i of the next report (see the top of the file). */
static bool get_str(struct report_chunk_reader *rd, int i)
{
	struct blob_reader *m = &rd->sec[REPORT_CHUNK_META];
	uint64_t tag = blob_get_u64(m);
	const uint8_t *s;

	if (m->bad)
		return false;
	if (tag == STR_SAME)
		return rd->i > 0;
	if (tag == STR_NULL) {
		rd->str[i] = NULL;
		return true;
	}
	if (tag - STR_FIRST >= (uint64_t)(m->end - m->p) || !get_bytes(m, tag - STR_FIRST + 1, &s))
		return false;
	/* exactly one NUL, at the end */
	if (s[tag - STR_FIRST] != '\0' || memchr(s, '\0', tag - STR_FIRST))
		return false;
	rd->str[i] = (const char *)s;
	return true;
}

static bool get_blob(struct blob_reader *r, const void **p, size_t *len)
{
	uint64_t n = blob_get_u64(r);
	const uint8_t *b;

	*p = NULL;
	*len = 0;
	if (r->bad)
		return false;
	if (n == 0)
		return true;
	if (n - 1 > (uint64_t)(r->end - r->p) || !get_bytes(r, n - 1, &b) || !plain_ok(b, n - 1))
		return false;
	*p = b;
	*len = n - 1;
	return true;
}

/* The next series blob, joined again from its head and counts when it was split: 0, -EINVAL, -ENOMEM. */
static int get_series(struct report_chunk_reader *rd, const void **p, size_t *len)
{
	struct blob_reader *h = &rd->sec[REPORT_CHUNK_HEAD], *c = &rd->sec[REPORT_CHUNK_COUNTS];
	uint64_t tag = blob_get_u64(h), first, second;
	const uint8_t *a, *b;
	size_t need;

	*p = NULL;
	*len = 0;
	if (h->bad || tag > 2)
		return -EINVAL;
	if (tag == 0)
		return 0;
	first = blob_get_u64(h);
	if (h->bad || first > (uint64_t)(h->end - h->p) || !get_bytes(h, first, &a))
		return -EINVAL;
	if (tag == 1) {
		*p = a;
		*len = first;
		return plain_ok(a, first) ? 0 : -EINVAL;
	}
	second = blob_get_u64(h);
	if (h->bad || first > UINT32_MAX || second > (uint64_t)(c->end - c->p) || !get_bytes(c, second, &b))
		return -EINVAL;
	need = first + second + 4;
	if (need > rd->series_cap) {
		uint8_t *grown = realloc(rd->series, need);

		if (!grown)
			return -ENOMEM;
		rd->series = grown;
		rd->series_cap = need;
	}
	memcpy(rd->series, a, first);
	memcpy(rd->series + first, b, second);
	for (int i = 0; i < 4; i++)
		rd->series[first + second + i] = (uint8_t)(first >> (8 * i));
	*p = rd->series;
	*len = need;
	return plain_ok(rd->series, need) ? 0 : -EINVAL;
}

/* Whether section s is left unread (report_chunk_open); the series' two sections go together. */
static bool skipped(const struct report_chunk_reader *rd, int s)
{
	if (s == REPORT_CHUNK_HEAD || s == REPORT_CHUNK_COUNTS)
		return rd->skip & (1u << REPORT_CHUNK_HEAD | 1u << REPORT_CHUNK_COUNTS);
	return rd->skip & (1u << s);
}

int report_chunk_next(struct report_chunk_reader *rd, struct report_chunk_row *r)
{
	struct blob_reader *m = &rd->sec[REPORT_CHUNK_META];
	int rc;

	if (rd->i == rd->n) {
		/* every section read to its end: nothing left over */
		for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
			if (!skipped(rd, s) && rd->sec[s].p != rd->sec[s].end)
				return -EINVAL;
		return 0;
	}
	memset(r, 0, sizeof(*r));
	rd->seq = add(rd->seq, blob_get_i64(m));
	rd->start_ms = add(rd->start_ms, blob_get_i64(m));
	r->seq = rd->seq;
	r->start_ms = rd->start_ms;
	r->end_ms = add(r->start_ms, blob_get_i64(m));
	r->received_ms = add(r->end_ms, blob_get_i64(m));
	r->dropped = blob_get_i64(m);
	for (int i = 0; i < 4; i++)
		if (!get_str(rd, i))
			return -EINVAL;
	if (!rd->str[0] || !rd->str[1] || !rd->str[2])
		return -EINVAL;
	r->sched_group = rd->str[0];
	r->kernel = rd->str[1];
	r->incarnation = rd->str[2];
	r->health = rd->str[3];
	if (!skipped(rd, REPORT_CHUNK_HOST_HIST) &&
	    !get_blob(&rd->sec[REPORT_CHUNK_HOST_HIST], &r->host_hist, &r->host_hist_len))
		return -EINVAL;
	if (!skipped(rd, REPORT_CHUNK_HEAD) && (rc = get_series(rd, &r->series, &r->series_len)) < 0)
		return rc;
	if (!skipped(rd, REPORT_CHUNK_IOCOST) && !get_blob(&rd->sec[REPORT_CHUNK_IOCOST], &r->iocost, &r->iocost_len))
		return -EINVAL;
	rd->i++;
	return 1;
}

void report_chunk_close(struct report_chunk_reader *rd)
{
	for (int s = 0; s < REPORT_CHUNK_SECTIONS; s++)
		free(rd->scratch[s]);
	free(rd->series);
	memset(rd, 0, sizeof(*rd));
}
