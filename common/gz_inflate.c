/* gz_inflate.c - gzip in, with libdeflate: a request body is whole in
 * memory, and libdeflate inflates a whole buffer about twice as fast as
 * zlib's streaming inflate (BENCHMARKS.md, session 32). Members are read in
 * turn; the output grows geometrically but never past the caller's cap; a
 * member that ends early, or whose header or data checksum is wrong, is an
 * error, not a short result, so truncated or corrupt uploads are refused
 * rather than half-read. Each thread keeps its decompressor.
 */
#include "common/gz.h"

#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* RFC 1952's header flags, and the fixed part of a header and a member's trailer. */
#define GZ_FHCRC 0x02
#define GZ_FEXTRA 0x04
#define GZ_FNAME 0x08
#define GZ_FCOMMENT 0x10
#define GZ_HEADER 10
#define GZ_TRAILER 8

static pthread_key_t dec_key;
static pthread_once_t dec_once = PTHREAD_ONCE_INIT;
static bool dec_key_ok;

static void dec_drop(void *p)
{
	libdeflate_free_decompressor(p);
}

static void dec_key_make(void)
{
	dec_key_ok = pthread_key_create(&dec_key, dec_drop) == 0;
}

/* This thread's decompressor (*owned: one of its own the caller frees, when the
 * thread cannot keep one), or NULL when out of memory. */
static struct libdeflate_decompressor *thread_decompressor(bool *owned)
{
	struct libdeflate_decompressor *d;

	pthread_once(&dec_once, dec_key_make);
	d = dec_key_ok ? pthread_getspecific(dec_key) : NULL;
	*owned = false;
	if (d)
		return d;
	d = libdeflate_alloc_decompressor();
	if (d)
		*owned = !dec_key_ok || pthread_setspecific(dec_key, d) != 0;
	return d;
}

/* False when the member header at p (n bytes to the input's end) says it has a
 * header CRC that does not match: libdeflate skips that field, zlib checks it. */
static bool header_crc_ok(const unsigned char *p, size_t n)
{
	size_t at = GZ_HEADER;

	if (n < GZ_HEADER || !(p[3] & GZ_FHCRC))
		return true; /* nothing to check here; libdeflate judges the rest */
	if (p[3] & GZ_FEXTRA) {
		if (n < at + 2)
			return true;
		at += 2 + ((size_t)p[at] | (size_t)p[at + 1] << 8);
	}
	for (int f = GZ_FNAME; f <= GZ_FCOMMENT; f <<= 1)
		if (p[3] & f) {
			while (at < n && p[at])
				at++;
			at++;
		}
	if (at + 2 > n)
		return true;
	return (libdeflate_crc32(0, p, at) & 0xffff) == ((uint32_t)p[at] | (uint32_t)p[at + 1] << 8);
}

size_t gz_inflated_hint(const void *in, size_t in_len, size_t max_out)
{
	const unsigned char *p = in;
	size_t hint = in_len * 4 + 1024, last = 0;

	/* A member ends with its inflated size mod 2^32; deflate inflates at most ~1032:1. */
	if (in_len >= GZ_HEADER + GZ_TRAILER)
		last = (size_t)p[in_len - 4] | (size_t)p[in_len - 3] << 8 | (size_t)p[in_len - 2] << 16 |
		       (size_t)p[in_len - 1] << 24;
	if (last < in_len * 1032 && last + 1 > hint)
		hint = last + 1;
	return hint > max_out + 1 ? max_out + 1 : hint;
}

int gz_inflate_buf(const void *in, size_t in_len, size_t max_out, char **bufp, size_t *capp, size_t *out_len)
{
	const unsigned char *p = in;
	struct libdeflate_decompressor *d;
	size_t cap = *capp, len = 0, pos = 0;
	char *buf = *bufp;
	bool owned;
	int err = 0;

	if (in_len == 0)
		return -EINVAL; /* no member: not gzip data */
	if (in_len > UINT32_MAX)
		return -E2BIG;
	d = thread_decompressor(&owned);
	if (!d)
		return -ENOMEM;
	do {
		/* what this member may write: the buffer's room, but no more than the cap leaves; past
		 * that libdeflate says it ran out of space before it would see a later fault, as zlib
		 * streaming into a buffer one byte larger than the cap does */
		size_t room = buf && cap > len + 1 ? cap - 1 - len : 0, used = 0, made = 0;
		enum libdeflate_result r = LIBDEFLATE_INSUFFICIENT_SPACE;

		if (room > max_out - len)
			room = max_out - len;
		if (!header_crc_ok(p + pos, in_len - pos)) {
			err = -EINVAL;
			goto out;
		}
		if (buf && (room > 0 || len == max_out))
			r = libdeflate_gzip_decompress_ex(d, p + pos, in_len - pos, buf + len, room, &used, &made);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
			size_t ncap = !buf ? gz_inflated_hint(in, in_len, max_out) : cap * 2;
			char *nbuf;

			if (buf && room == max_out - len) { /* the cap, not the buffer, is what ran out */
				err = -E2BIG;
				goto out;
			}
			if (ncap > max_out + 1)
				ncap = max_out + 1;
			if (ncap < len + 2)
				ncap = len + 2;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				err = -ENOMEM;
				goto out;
			}
			*bufp = buf = nbuf;
			*capp = cap = ncap;
			continue; /* the member again, into the larger buffer */
		}
		if (r != LIBDEFLATE_SUCCESS) {
			err = -EINVAL;
			goto out;
		}
		pos += used;
		len += made;
	} while (pos < in_len);
	buf[len] = '\0';
	*out_len = len;
out:
	if (owned)
		libdeflate_free_decompressor(d);
	return err;
}

int gz_inflate(const void *in, size_t in_len, size_t max_out, char **out, size_t *out_len)
{
	char *buf = NULL;
	size_t cap = 0;
	int err = gz_inflate_buf(in, in_len, max_out, &buf, &cap, out_len);

	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}
