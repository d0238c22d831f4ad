/* fuzz_common_gz.c - libFuzzer target for gz_inflate, which reads every
 * gzip request body (reports, SSD results). The input's first byte picks the
 * output cap, the rest is the body. Any bytes are answered without a crash,
 * and the answer is zlib's own reading of them, done the plain way (one
 * buffer of the cap's size, Z_NO_FLUSH, member after member): the same
 * verdict (inflated, too large, or corrupt) and, when inflated, the same
 * bytes, NUL-terminated. gz_inflate grows its buffer in steps and checks the
 * cap after each, so this checks that the steps change nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/gz.h"

static const size_t caps[] = { 0, 1, 17, 100, 4096, 65536, 1u << 20 };

/* The reference: 0, -E2BIG or -EINVAL, as gz_inflate documents them. */
static int reference(const uint8_t *in, size_t in_len, size_t max_out, uint8_t *out, size_t *out_len)
{
	z_stream zs = { 0 };
	int zr, rc = -EINVAL;

	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		abort();
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = out;
	zs.avail_out = (uInt)(max_out + 1);
	for (;;) {
		zr = inflate(&zs, Z_NO_FLUSH);
		if (zs.total_out > max_out) {
			rc = -E2BIG;
			break;
		}
		if (zr == Z_STREAM_END) {
			if (zs.avail_in == 0) {
				rc = 0;
				break;
			}
			if (inflateReset(&zs) != Z_OK)
				break;
			continue;
		}
		if (zr != Z_OK) /* corrupt, or the input ended inside a member */
			break;
	}
	*out_len = (size_t)(zs.next_out - out);
	inflateEnd(&zs);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max_out, len = 0, ref_len = 0;
	uint8_t *ref;
	char *out = NULL;
	int rc, ref_rc;

	if (size < 1)
		return 0;
	max_out = caps[data[0] % (sizeof(caps) / sizeof(caps[0]))];
	data++;
	size--;
	ref = malloc(max_out + 1);
	if (!ref)
		return 0;
	rc = gz_inflate(data, size, max_out, &out, &len);
	ref_rc = reference(data, size, max_out, ref, &ref_len);
	if (rc == -ENOMEM)
		goto out;
	if (rc != ref_rc)
		abort();
	if (rc == 0 && (!out || len != ref_len || memcmp(out, ref, len) != 0 || out[len] != '\0'))
		abort();
	if (rc != 0 && out)
		abort(); /* nothing is handed out on failure */
out:
	free(out);
	free(ref);
	return 0;
}
