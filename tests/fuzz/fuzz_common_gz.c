/* fuzz_common_gz.c - libFuzzer target for gz_inflate, which reads every
 * gzip request body (reports, SSD results) with libdeflate. The input's first
 * byte picks the output cap, the rest is the body. Any bytes are answered
 * without a crash, and the answer is zlib's own reading of them, done the
 * plain way (one buffer of the cap's size, Z_NO_FLUSH, member after member):
 * inflated with the same bytes, NUL-terminated, exactly when zlib inflates
 * them, and refused otherwise. Which fault a refusal names (too large or
 * corrupt) must match too, but for a body that is both: the two libraries
 * check a match's length and its distance in different orders. gz_inflate
 * grows its buffer in steps and checks the cap after each, so this checks
 * that the steps change nothing. The same body then goes through
 * gz_inflate_buf into a caller's buffer of a size the first byte also picks
 * (as the server brings a kept one), with the same answer; both reuse the
 * thread's decompressor, input after input.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/gz.h"

static const size_t caps[] = { 0, 1, 17, 100, 4096, 65536, 1u << 20 };
static const size_t bufs[] = { 1, 2, 64, 4096, 100000 };

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

/* True when rc answers as ref does: the same code, or both refusals when the
 * body is also corrupt (zlib refuses it with any cap, as a cap of the body's
 * whole output shows: only then may the named fault differ). */
static bool same_verdict(int rc, int ref, const uint8_t *in, size_t in_len)
{
	static uint8_t big[1u << 22];
	size_t n;

	if (rc == ref)
		return true;
	if (rc == 0 || ref == 0)
		return false;
	return reference(in, in_len, sizeof(big) - 1, big, &n) == -EINVAL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max_out, len = 0, ref_len = 0, bcap, blen = 0;
	uint8_t *ref;
	char *out = NULL, *buf = NULL;
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
	if (!same_verdict(rc, ref_rc, data, size))
		abort();
	if (rc == 0 && (!out || len != ref_len || memcmp(out, ref, len) != 0 || out[len] != '\0'))
		abort();
	if (rc != 0 && out)
		abort(); /* nothing is handed out on failure */
	bcap = bufs[(data[-1] / 8) % (sizeof(bufs) / sizeof(bufs[0]))];
	buf = malloc(bcap);
	if (!buf)
		goto out;
	rc = gz_inflate_buf(data, size, max_out, &buf, &bcap, &blen);
	if (rc == -ENOMEM)
		goto out;
	if (!same_verdict(rc, ref_rc, data, size) ||
	    (rc == 0 && (blen != ref_len || memcmp(buf, ref, blen) != 0 || buf[blen] != '\0')))
		abort();
out:
	free(buf);
	free(out);
	free(ref);
	return 0;
}
