/* gz.c - gzip out (zlib, as the agent compresses its reports) and the gzip
 * magic check. Inflation is gz_inflate.c's.
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
