/* test_gz.c - gzip in and out: round trips, the output cap that stops gzip
 * bombs, truncated or corrupt input refused rather than half-read, members
 * concatenated, and a body exactly at the cap or one byte past it; a
 * caller's own buffer (too small, or larger than the cap), the thread's kept
 * state reused after a corrupt body, a size hint a body cannot inflate, and a
 * member header's own CRC checked.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "common/gz.h"

static void test_gz_round_trip(void **state)
{
	const char *msg = "{\"schema\":\"schedio.report.v1\"}";
	char *gz = NULL, *back = NULL;
	size_t gzlen = 0, backlen = 0;

	assert_int_equal(gz_deflate(msg, strlen(msg), &gz, &gzlen), 0);
	assert_true(gz_is_gzip(gz, gzlen));
	assert_int_equal(gz_inflate(gz, gzlen, 1024, &back, &backlen), 0);
	assert_int_equal(backlen, strlen(msg));
	assert_string_equal(back, msg);
	free(gz);
	free(back);
}

static void test_gz_bomb_stops_at_cap(void **state)
{
	size_t big = 64u << 20;
	char *zeros = calloc(1, big), *gz = NULL, *out = NULL;
	size_t gzlen = 0, outlen = 0;

	assert_int_equal(gz_deflate(zeros, big, &gz, &gzlen), 0);
	assert_true(gzlen < 200u << 10); /* 64 MiB of zeros packs into well under 200 KiB */
	assert_int_equal(gz_inflate(gz, gzlen, 1u << 20, &out, &outlen), -E2BIG);
	assert_null(out);
	/* exactly at the cap is fine */
	assert_int_equal(gz_inflate(gz, gzlen, big, &out, &outlen), 0);
	assert_int_equal(outlen, big);
	free(out);
	free(gz);
	free(zeros);
}

static void test_gz_truncated_and_corrupt_are_refused(void **state)
{
	char text[4096], *gz = NULL, *out = NULL;
	size_t gzlen = 0, outlen = 0;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + (i * 7919) % 26);
	assert_int_equal(gz_deflate(text, sizeof(text), &gz, &gzlen), 0);
	for (size_t cut = 1; cut < gzlen; cut += 7)
		assert_int_equal(gz_inflate(gz, cut, 1u << 20, &out, &outlen), -EINVAL);
	gz[gzlen / 2] ^= 0x55;
	assert_int_not_equal(gz_inflate(gz, gzlen, 1u << 20, &out, &outlen), 0);
	assert_int_equal(gz_inflate("not gzip at all", 15, 1024, &out, &outlen), -EINVAL);
	assert_false(gz_is_gzip("{}", 2));
	free(gz);
}

/* Members concatenated are one body, read across the buffer's growth; the cap
 * counts all of them, and a body exactly at the cap fits. */
static void test_gz_members_and_the_cap(void **state)
{
	char text[100000], *a = NULL, *b = NULL, *both, *out = NULL;
	size_t alen = 0, blen = 0, outlen = 0;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + (i * 7919 + i / 13) % 26);
	assert_int_equal(gz_deflate(text, sizeof(text), &a, &alen), 0);
	assert_int_equal(gz_deflate("!", 1, &b, &blen), 0);
	both = malloc(alen + blen);
	assert_non_null(both);
	memcpy(both, a, alen);
	memcpy(both + alen, b, blen);
	assert_int_equal(gz_inflate(both, alen + blen, 1u << 20, &out, &outlen), 0);
	assert_int_equal(outlen, sizeof(text) + 1);
	assert_memory_equal(out, text, sizeof(text));
	assert_int_equal(out[sizeof(text)], '!');
	assert_int_equal(out[outlen], '\0');
	free(out);
	/* exactly at the cap, and one byte past it */
	assert_int_equal(gz_inflate(a, alen, sizeof(text), &out, &outlen), 0);
	assert_int_equal(outlen, sizeof(text));
	free(out);
	out = NULL;
	assert_int_equal(gz_inflate(a, alen, sizeof(text) - 1, &out, &outlen), -E2BIG);
	assert_null(out);
	assert_int_equal(gz_inflate(both, alen + blen, sizeof(text), &out, &outlen), -E2BIG);
	assert_null(out);
	free(both);
	free(a);
	free(b);
}

/* A caller's buffer: grown when short, the cap still holding when it is larger than
 * the cap, and the thread's state reused after a corrupt body without harm. */
static void test_gz_into_a_callers_buffer(void **state)
{
	char text[50000], *gz = NULL, *buf, *junk;
	size_t gzlen = 0, cap, len = 0;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + (i * 31 + i / 7) % 26);
	assert_int_equal(gz_deflate(text, sizeof(text), &gz, &gzlen), 0);
	/* its last member's recorded size: the whole text and its NUL */
	assert_int_equal(gz_inflated_hint(gz, gzlen, 1u << 20), sizeof(text) + 1);
	assert_int_equal(gz_inflated_hint(gz, gzlen, 100), 101);
	/* too small a buffer grows */
	cap = 16;
	buf = malloc(cap);
	assert_non_null(buf);
	assert_int_equal(gz_inflate_buf(gz, gzlen, 1u << 20, &buf, &cap, &len), 0);
	assert_int_equal(len, sizeof(text));
	assert_true(cap > len);
	assert_memory_equal(buf, text, sizeof(text));
	assert_int_equal(buf[len], '\0');
	/* a buffer larger than the cap: the cap still refuses */
	assert_int_equal(gz_inflate_buf(gz, gzlen, sizeof(text) - 1, &buf, &cap, &len), -E2BIG);
	assert_int_equal(gz_inflate_buf(gz, gzlen, sizeof(text), &buf, &cap, &len), 0);
	assert_int_equal(len, sizeof(text));
	/* corrupt and truncated bodies leave the thread's state fit for the next one */
	junk = malloc(gzlen);
	assert_non_null(junk);
	memcpy(junk, gz, gzlen);
	junk[gzlen / 2] ^= 0x55;
	assert_int_equal(gz_inflate_buf(junk, gzlen, 1u << 20, &buf, &cap, &len), -EINVAL);
	assert_int_equal(gz_inflate_buf(gz, gzlen / 2, 1u << 20, &buf, &cap, &len), -EINVAL);
	memset(buf, 'x', cap);
	assert_int_equal(gz_inflate_buf(gz, gzlen, 1u << 20, &buf, &cap, &len), 0);
	assert_int_equal(len, sizeof(text));
	assert_memory_equal(buf, text, sizeof(text));
	free(buf);
	/* a recorded size past what deflate can reach from these bytes is not believed */
	gz[gzlen - 1] = (char)0x7f;
	assert_true(gz_inflated_hint(gz, gzlen, SIZE_MAX / 2) <= gzlen * 4 + 1024);
	free(junk);
	free(gz);
}

/* A member header with a name and its own CRC (FHCRC): read when the CRC matches,
 * refused as corrupt when it does not, as zlib does (libdeflate alone skips it). */
static void test_gz_header_crc_checked(void **state)
{
	static const char text[] = "{\"schema\":\"schedio.report.v1\"}";
	unsigned char *body;
	char *gz = NULL, *out = NULL;
	size_t gzlen = 0, hl = 0, outlen = 0;
	uLong crc;

	assert_int_equal(gz_deflate(text, sizeof(text) - 1, &gz, &gzlen), 0);
	assert_int_equal((unsigned char)gz[3], 0); /* zlib writes a bare 10-byte header */
	body = malloc(gzlen + 32);
	assert_non_null(body);
	memcpy(body, gz, 10);
	body[3] = 0x02 | 0x08; /* FHCRC | FNAME */
	hl = 10;
	memcpy(body + hl, "r.json", 7);
	hl += 7;
	crc = crc32(0, body, (uInt)hl);
	body[hl++] = (unsigned char)(crc & 0xff);
	body[hl++] = (unsigned char)((crc >> 8) & 0xff);
	memcpy(body + hl, gz + 10, gzlen - 10);
	assert_int_equal(gz_inflate(body, hl + gzlen - 10, 1024, &out, &outlen), 0);
	assert_int_equal(outlen, sizeof(text) - 1);
	assert_memory_equal(out, text, outlen);
	free(out);
	out = NULL;
	body[hl - 1] ^= 0x01;
	assert_int_equal(gz_inflate(body, hl + gzlen - 10, 1024, &out, &outlen), -EINVAL);
	assert_null(out);
	free(body);
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gz_round_trip),
		cmocka_unit_test(test_gz_bomb_stops_at_cap),
		cmocka_unit_test(test_gz_truncated_and_corrupt_are_refused),
		cmocka_unit_test(test_gz_members_and_the_cap),
		cmocka_unit_test(test_gz_into_a_callers_buffer),
		cmocka_unit_test(test_gz_header_crc_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
