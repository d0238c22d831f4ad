/* gz.c - zlib wrappers. Inflation grows its buffer geometrically but never
 * past the caller's cap; a stream that ends early is an error, not a short
 * result, so truncated uploads are refused rather than half-read.
 */
#include "common/gz.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

bool gz_is_gzip(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int gz_inflate(const void *in, size_t in_len, size_t max_out, char **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap = in_len * 4 + 1024, len = 0;
	char *buf = NULL;
	int err = 0, zr = Z_OK;

	if (cap > max_out + 1)
		cap = max_out + 1;
	if (in_len > UINT32_MAX)
		return -E2BIG;
	/* 16 + MAX_WBITS: gzip framing only; several members are read in turn. */
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	buf = malloc(cap + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)in_len;
	for (;;) {
		if (len == cap) {
			size_t ncap;
			char *nbuf;

			if (cap > max_out) {
				err = -E2BIG;
				goto out;
			}
			ncap = cap * 2 > max_out + 1 ? max_out + 1 : cap * 2;
			nbuf = realloc(buf, ncap + 1);
			if (!nbuf) {
				err = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			cap = ncap;
		}
		zs.next_out = (Bytef *)buf + len;
		zs.avail_out = (uInt)(cap - len);
		zr = inflate(&zs, Z_NO_FLUSH);
		len = cap - zs.avail_out;
		if (len > max_out) {
			err = -E2BIG;
			goto out;
		}
		if (zr == Z_STREAM_END) {
			if (zs.avail_in == 0)
				break;
			/* Concatenated gzip members are one valid file. */
			if (inflateReset(&zs) != Z_OK) {
				err = -EINVAL;
				goto out;
			}
			continue;
		}
		if (zr == Z_BUF_ERROR && zs.avail_in == 0) {
			err = -EINVAL; /* input ended inside the stream */
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			err = zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
			goto out;
		}
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	buf = NULL;
out:
	inflateEnd(&zs);
	free(buf);
	return err;
}

int gz_deflate(const void *in, size_t in_len, char **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap;
	char *buf;
	int zr;

	if (in_len > UINT32_MAX)
		return -EINVAL;
	if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&zs, (uLong)in_len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = (Bytef *)buf;
	zs.avail_out = (uInt)cap;
	zr = deflate(&zs, Z_FINISH);
	if (zr != Z_STREAM_END) {
		deflateEnd(&zs);
		free(buf);
		return -EINVAL;
	}
	*out_len = cap - zs.avail_out;
	*out = buf;
	deflateEnd(&zs);
	return 0;
}
