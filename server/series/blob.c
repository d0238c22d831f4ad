/* blob.c - see blob.h. Readers never trust the bytes: every read is bounds
 * checked and failure is sticky, so a corrupt row decodes to "bad" instead of
 * reading past its end. */
#include "server/series/blob.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static bool blob_reserve(struct blob *b, size_t more)
{
	size_t cap;
	uint8_t *np;

	if (b->oom)
		return false;
	if (b->len + more <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

void blob_put_u64(struct blob *b, uint64_t v)
{
	if (!blob_reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}

void blob_put_i64(struct blob *b, int64_t v)
{
	blob_put_u64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void blob_put_str(struct blob *b, const char *s, size_t len)
{
	blob_put_u64(b, len);
	if (!blob_reserve(b, len))
		return;
	if (len)
		memcpy(b->p + b->len, s, len);
	b->len += len;
}

void blob_free(struct blob *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void blob_reader_init(struct blob_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->end = r->p + len;
	r->bad = p == NULL && len > 0;
}

uint64_t blob_get_u64(struct blob_reader *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64 && !r->bad; shift += 7) {
		uint8_t c;

		if (r->p >= r->end)
			break;
		c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

int64_t blob_get_i64(struct blob_reader *r)
{
	uint64_t u = blob_get_u64(r);

	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

const char *blob_get_str(struct blob_reader *r, size_t *len)
{
	uint64_t n = blob_get_u64(r);
	const char *s;

	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		*len = 0;
		return "";
	}
	s = (const char *)r->p;
	r->p += n;
	*len = (size_t)n;
	return s;
}

/* Each thread keeps one deflate and one inflate stream and resets them per
 * blob: setting a stream up costs more than packing a few KiB. A small
 * window (4 KiB) fits blobs of this size. Freed when the thread exits. */
struct zstreams {
	z_stream def, inf;
	bool def_ok, inf_ok;
};

static pthread_once_t zkey_once = PTHREAD_ONCE_INIT;
static pthread_key_t zkey;

static void zstreams_free(void *p)
{
	struct zstreams *z = p;

	if (z->def_ok)
		deflateEnd(&z->def);
	if (z->inf_ok)
		inflateEnd(&z->inf);
	free(z);
}

static void zkey_make(void)
{
	pthread_key_create(&zkey, zstreams_free);
}

static struct zstreams *zstreams(void)
{
	struct zstreams *z;

	pthread_once(&zkey_once, zkey_make);
	z = pthread_getspecific(zkey);
	if (!z) {
		z = calloc(1, sizeof(*z));
		if (z)
			pthread_setspecific(zkey, z);
	}
	return z;
}

int blob_pack(struct blob *b)
{
	struct blob packed = { 0 };
	struct zstreams *z;
	size_t bound;

	if (b->oom)
		return -ENOMEM;
	if (b->len < BLOB_PACK_MIN || b->len > BLOB_UNPACK_MAX)
		return 0;
	z = zstreams();
	if (!z)
		return -ENOMEM;
	if (!z->def_ok) {
		/* Level 1: most of the gain (about half) for a fraction of the CPU. */
		if (deflateInit2(&z->def, 1, Z_DEFLATED, 12, 5, Z_DEFAULT_STRATEGY) != Z_OK)
			return -ENOMEM;
		z->def_ok = true;
	} else if (deflateReset(&z->def) != Z_OK) {
		return -ENOMEM;
	}
	bound = deflateBound(&z->def, b->len);
	blob_put_u64(&packed, BLOB_PACKED);
	blob_put_u64(&packed, b->len);
	if (!blob_reserve(&packed, bound))
		return -ENOMEM;
	z->def.next_in = b->p;
	z->def.avail_in = (uInt)b->len;
	z->def.next_out = packed.p + packed.len;
	z->def.avail_out = (uInt)bound;
	if (deflate(&z->def, Z_FINISH) != Z_STREAM_END || packed.len + z->def.total_out >= b->len) {
		blob_free(&packed);
		return 0;
	}
	packed.len += z->def.total_out;
	blob_free(b);
	*b = packed;
	return 0;
}

int blob_unpack(const void *p, size_t len, const uint8_t **out, size_t *outlen, uint8_t **scratch)
{
	struct blob_reader r;
	struct zstreams *z;
	uint64_t plain;
	int rc;

	*scratch = NULL;
	if (len == 0 || ((const uint8_t *)p)[0] != BLOB_PACKED) {
		*out = p;
		*outlen = len;
		return 0;
	}
	blob_reader_init(&r, p, len);
	blob_get_u64(&r);
	plain = blob_get_u64(&r);
	if (r.bad || plain == 0 || plain > BLOB_UNPACK_MAX)
		return -EINVAL;
	z = zstreams();
	if (!z)
		return -ENOMEM;
	if (!z->inf_ok) {
		if (inflateInit(&z->inf) != Z_OK)
			return -ENOMEM;
		z->inf_ok = true;
	} else if (inflateReset(&z->inf) != Z_OK) {
		return -ENOMEM;
	}
	*scratch = malloc(plain);
	if (!*scratch)
		return -ENOMEM;
	z->inf.next_in = (Bytef *)r.p;
	z->inf.avail_in = (uInt)(r.end - r.p);
	z->inf.next_out = *scratch;
	z->inf.avail_out = (uInt)plain;
	rc = inflate(&z->inf, Z_FINISH);
	if (rc != Z_STREAM_END || z->inf.total_out != plain) {
		free(*scratch);
		*scratch = NULL;
		return -EINVAL;
	}
	*out = *scratch;
	*outlen = plain;
	return 0;
}
