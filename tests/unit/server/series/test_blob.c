/* test_blob.c - server/series/blob.c: varints and strings round-trip at their
 * boundaries with the exact LEB128 bytes, and readers never trust the bytes:
 * truncated or overlong varints, lengths past the end and corrupt packs all
 * end as a sticky "bad" (or -EINVAL), never a read past the input. Packs are
 * zstd; the zlib packs of rows written before issue 18 still unpack.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/series/blob.h"

#include <zlib.h>

static void test_blob_u64_uses_leb128_bytes(void **state)
{
	struct blob b = { 0 };
	const uint8_t want[] = { 0x00, 0x7f, 0x80, 0x01, 0xac, 0x02 };

	(void)state;
	blob_put_u64(&b, 0);
	blob_put_u64(&b, 127);
	blob_put_u64(&b, 128);
	blob_put_u64(&b, 300);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.p, want, sizeof(want));
	blob_free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
}

static void test_blob_u64_round_trips_boundaries(void **state)
{
	const uint64_t vals[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX };
	struct blob b = { 0 };
	struct blob_reader r;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		blob_put_u64(&b, vals[i]);
	/* UINT64_MAX takes the full ten bytes */
	blob_reader_init(&r, b.p, b.len);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		assert_true(blob_get_u64(&r) == vals[i]);
	assert_false(r.bad);
	assert_ptr_equal(r.p, r.end);
	blob_free(&b);

	blob_put_u64(&b, UINT64_MAX);
	assert_int_equal(b.len, 10);
	assert_int_equal(b.p[9], 0x01);
	blob_free(&b);
}

static void test_blob_i64_zigzags_small_negatives_to_one_byte(void **state)
{
	const int64_t vals[] = { 0, -1, 1, -64, 63, -65, INT64_MIN, INT64_MAX };
	struct blob b = { 0 };
	struct blob_reader r;

	(void)state;
	blob_put_i64(&b, -1);
	blob_put_i64(&b, 1);
	blob_put_i64(&b, -64);
	assert_int_equal(b.len, 3);
	assert_int_equal(b.p[0], 0x01);
	assert_int_equal(b.p[1], 0x02);
	assert_int_equal(b.p[2], 0x7f);
	blob_free(&b);

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		blob_put_i64(&b, vals[i]);
	blob_reader_init(&r, b.p, b.len);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		assert_true(blob_get_i64(&r) == vals[i]);
	assert_false(r.bad);
	blob_free(&b);
}

static void test_blob_str_round_trips_including_empty(void **state)
{
	struct blob b = { 0 };
	struct blob_reader r;
	const char *s;
	size_t len;

	(void)state;
	blob_put_str(&b, "sda", 3);
	blob_put_str(&b, NULL, 0);
	blob_put_str(&b, "a\0b", 3);
	assert_int_equal(b.len, 4 + 1 + 4);
	blob_reader_init(&r, b.p, b.len);
	s = blob_get_str(&r, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "sda", 3);
	s = blob_get_str(&r, &len);
	assert_int_equal(len, 0);
	s = blob_get_str(&r, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 3);
	assert_false(r.bad);
	assert_ptr_equal(r.p, r.end);
	blob_free(&b);
}

static void test_blob_truncated_varint_is_bad_and_sticky(void **state)
{
	const uint8_t buf[] = { 0x05, 0xff, 0xff };
	struct blob_reader r;

	(void)state;
	blob_reader_init(&r, buf, sizeof(buf));
	assert_int_equal(blob_get_u64(&r), 5);
	assert_int_equal(blob_get_u64(&r), 0);
	assert_true(r.bad);
	/* a later read of good bytes still fails: one bad read spoils the row */
	r.p = buf;
	assert_int_equal(blob_get_u64(&r), 0);
	assert_true(r.bad);
}

static void test_blob_empty_input_reads_as_bad(void **state)
{
	struct blob_reader r;
	size_t len = 99;

	(void)state;
	blob_reader_init(&r, NULL, 0);
	assert_false(r.bad);
	assert_int_equal(blob_get_u64(&r), 0);
	assert_true(r.bad);

	blob_reader_init(&r, NULL, 4);
	assert_true(r.bad);
	assert_string_equal(blob_get_str(&r, &len), "");
	assert_int_equal(len, 0);
}

static void test_blob_overlong_varint_is_bad(void **state)
{
	uint8_t buf[16];
	struct blob_reader r;

	(void)state;
	/* eleven continuation bytes: more than any u64 needs */
	memset(buf, 0x80, sizeof(buf));
	buf[11] = 0x01;
	blob_reader_init(&r, buf, sizeof(buf));
	assert_int_equal(blob_get_u64(&r), 0);
	assert_true(r.bad);
	/* it stopped within the ten bytes a u64 may take */
	assert_true(r.p <= buf + 10);

	/* the tenth byte still continuing is one too many */
	memset(buf, 0xff, 10);
	buf[10] = 0x00;
	blob_reader_init(&r, buf, 11);
	assert_int_equal(blob_get_u64(&r), 0);
	assert_true(r.bad);
}

static void test_blob_str_length_past_end_is_bad(void **state)
{
	struct blob b = { 0 };
	struct blob_reader r;
	const char *s;
	size_t len = 99;

	(void)state;
	/* a huge length (would wrap a pointer) followed by three bytes */
	blob_put_u64(&b, UINT64_MAX);
	blob_put_u64(&b, 1);
	blob_put_u64(&b, 2);
	blob_put_u64(&b, 3);
	blob_reader_init(&r, b.p, b.len);
	s = blob_get_str(&r, &len);
	assert_true(r.bad);
	assert_int_equal(len, 0);
	assert_string_equal(s, "");
	blob_free(&b);

	/* one byte short of the stated length */
	blob_put_str(&b, "abcd", 4);
	blob_reader_init(&r, b.p, b.len - 1);
	len = 99;
	s = blob_get_str(&r, &len);
	assert_true(r.bad);
	assert_int_equal(len, 0);
	assert_string_equal(s, "");

	/* exactly the stated length is fine */
	blob_reader_init(&r, b.p, b.len);
	s = blob_get_str(&r, &len);
	assert_false(r.bad);
	assert_int_equal(len, 4);
	assert_memory_equal(s, "abcd", 4);
	blob_free(&b);
}

/* A blob of n bytes of a repeating pattern, starting with a version byte. */
static void fill_compressible(struct blob *b, size_t n)
{
	blob_put_u64(b, 1);
	for (size_t i = 1; i < n; i++)
		blob_put_u64(b, i % 7 + 1);
}

static void test_blob_pack_round_trips_large_blob(void **state)
{
	struct blob b = { 0 }, plain = { 0 };
	const uint8_t *out;
	uint8_t *scratch;
	size_t outlen;

	(void)state;
	fill_compressible(&b, 4000);
	fill_compressible(&plain, 4000);
	assert_int_equal(blob_pack(&b), 0);
	assert_int_equal(b.p[0], BLOB_PACKED_ZSTD);
	assert_true(b.len < plain.len / 4);
	assert_int_equal(blob_unpack(b.p, b.len, &out, &outlen, &scratch), 0);
	assert_non_null(scratch);
	assert_ptr_equal(out, scratch);
	assert_int_equal(outlen, plain.len);
	assert_memory_equal(out, plain.p, plain.len);
	free(scratch);
	blob_free(&b);
	blob_free(&plain);
}

static void test_blob_pack_leaves_small_and_incompressible_blobs(void **state)
{
	struct blob b = { 0 };
	const uint8_t *out;
	uint8_t *scratch = (uint8_t *)&b;
	size_t outlen;
	uint8_t noise[2000];
	uint32_t x = 12345;

	(void)state;
	fill_compressible(&b, BLOB_PACK_MIN - 1);
	assert_int_equal(blob_pack(&b), 0);
	assert_int_equal(b.len, BLOB_PACK_MIN - 1);
	assert_int_equal(b.p[0], 1);
	/* an unpacked blob is read in place */
	assert_int_equal(blob_unpack(b.p, b.len, &out, &outlen, &scratch), 0);
	assert_null(scratch);
	assert_ptr_equal(out, b.p);
	assert_int_equal(outlen, b.len);
	blob_free(&b);

	for (size_t i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (uint8_t)(x >> 16);
	}
	blob_put_u64(&b, 1);
	blob_put_str(&b, (const char *)noise, sizeof(noise));
	assert_int_equal(blob_pack(&b), 0);
	assert_int_equal(b.len, 1 + 2 + sizeof(noise));
	assert_int_equal(b.p[0], 1);
	blob_free(&b);
}

static void test_blob_pack_reports_earlier_oom(void **state)
{
	struct blob b = { 0 };

	(void)state;
	fill_compressible(&b, 1000);
	b.oom = true;
	assert_int_equal(blob_pack(&b), -ENOMEM);
	blob_free(&b);
}

static void test_blob_unpack_rejects_corrupt_packs(void **state)
{
	struct blob b = { 0 }, bad = { 0 };
	const uint8_t *out = NULL;
	uint8_t *scratch;
	size_t outlen;

	(void)state;
	/* a plain length of 0, or beyond BLOB_UNPACK_MAX, is refused before allocating */
	blob_put_u64(&bad, BLOB_PACKED);
	blob_put_u64(&bad, 0);
	assert_int_equal(blob_unpack(bad.p, bad.len, &out, &outlen, &scratch), -EINVAL);
	assert_null(scratch);
	blob_free(&bad);
	blob_put_u64(&bad, BLOB_PACKED);
	blob_put_u64(&bad, (uint64_t)BLOB_UNPACK_MAX + 1);
	assert_int_equal(blob_unpack(bad.p, bad.len, &out, &outlen, &scratch), -EINVAL);
	assert_null(scratch);
	blob_free(&bad);
	/* the marker alone: the plain length is truncated */
	blob_put_u64(&bad, BLOB_PACKED);
	assert_int_equal(blob_unpack(bad.p, bad.len, &out, &outlen, &scratch), -EINVAL);
	blob_free(&bad);

	fill_compressible(&b, 4000);
	assert_int_equal(blob_pack(&b), 0);
	assert_int_equal(b.p[0], BLOB_PACKED_ZSTD);
	/* the compressed stream cut short */
	assert_int_equal(blob_unpack(b.p, b.len - 5, &out, &outlen, &scratch), -EINVAL);
	assert_null(scratch);
	/* a plain length that does not match what decompresses: 4000 is a0 1f, make it 4001 */
	assert_int_equal(b.p[1], 0xa0);
	assert_int_equal(b.p[2], 0x1f);
	b.p[1] = 0xa1;
	assert_int_equal(blob_unpack(b.p, b.len, &out, &outlen, &scratch), -EINVAL);
	assert_null(scratch);
	b.p[1] = 0xa0;
	assert_int_equal(blob_unpack(b.p, b.len, &out, &outlen, &scratch), 0);
	free(scratch);
	/* garbage after the marker */
	memset(b.p + 3, 0xa5, b.len - 3);
	assert_int_equal(blob_unpack(b.p, b.len, &out, &outlen, &scratch), -EINVAL);
	assert_null(scratch);
	blob_free(&b);
}

/* Rows written before issue 18 are zlib streams behind BLOB_PACKED: they still unpack. */
static void test_blob_unpack_reads_old_zlib_packs(void **state)
{
	struct blob plain = { 0 }, old = { 0 };
	uLongf zlen = compressBound(4000);
	const uint8_t *out;
	uint8_t *scratch;
	size_t outlen;

	(void)state;
	fill_compressible(&plain, 4000);
	blob_put_u64(&old, BLOB_PACKED);
	blob_put_u64(&old, plain.len);
	assert_true(blob_reserve(&old, zlen));
	assert_int_equal(compress2(old.p + old.len, &zlen, plain.p, plain.len, 1), Z_OK);
	old.len += zlen;
	assert_int_equal(blob_unpack(old.p, old.len, &out, &outlen, &scratch), 0);
	assert_int_equal(outlen, plain.len);
	assert_memory_equal(out, plain.p, plain.len);
	free(scratch);
	/* packing an already packed blob leaves it as it is */
	outlen = old.len;
	assert_int_equal(blob_pack(&old), 0);
	assert_int_equal(old.len, outlen);
	assert_int_equal(old.p[0], BLOB_PACKED);
	blob_free(&old);
	blob_free(&plain);
}

/* Two sections join as first || second || u32 first-length, and pack and unpack as one blob. */
static void test_blob_sections_join_split_and_pack(void **state)
{
	struct blob b = { 0 };
	const uint8_t *out;
	uint8_t *scratch;
	size_t outlen, first, second;

	(void)state;
	blob_put_u64(&b, 2);
	blob_put_str(&b, "key", 3);
	for (int i = 0; i < 1000; i++)
		blob_put_u64(blob_aux(&b), (uint64_t)(i * 7 % 20) + 1);
	blob_join(&b);
	assert_null(b.aux);
	assert_int_equal(b.split, 5);
	assert_int_equal(b.len, 5 + 1000 + 4);
	assert_int_equal(b.p[b.len - 4], 5);
	assert_int_equal(b.p[b.len - 1], 0);
	assert_true(blob_split(b.p, b.len, &first, &second));
	assert_int_equal(first, 5);
	assert_int_equal(second, 1000);
	assert_int_equal(b.p[first], 1);
	/* a second join does nothing */
	blob_join(&b);
	assert_int_equal(b.len, 1009);
	assert_int_equal(blob_pack(&b), 0);
	assert_int_equal(b.p[0], BLOB_PACKED_ZSTD);
	assert_true(b.len < 400);
	assert_int_equal(blob_unpack(b.p, b.len, &out, &outlen, &scratch), 0);
	assert_int_equal(outlen, 1009);
	assert_true(blob_split(out, outlen, &first, &second));
	assert_int_equal(first, 5);
	assert_int_equal(out[first + 999], 999 * 7 % 20 + 1);
	free(scratch);
	blob_free(&b);

	/* a trailer pointing past the end, or no room for one */
	assert_false(blob_split((const uint8_t[]){ 1, 2, 9, 0, 0, 0 }, 6, &first, &second));
	assert_false(blob_split((const uint8_t[]){ 0, 0, 0 }, 3, &first, &second));
	assert_true(blob_split((const uint8_t[]){ 1, 2, 2, 0, 0, 0 }, 6, &first, &second));
	assert_int_equal(second, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blob_u64_uses_leb128_bytes),
		cmocka_unit_test(test_blob_u64_round_trips_boundaries),
		cmocka_unit_test(test_blob_i64_zigzags_small_negatives_to_one_byte),
		cmocka_unit_test(test_blob_str_round_trips_including_empty),
		cmocka_unit_test(test_blob_truncated_varint_is_bad_and_sticky),
		cmocka_unit_test(test_blob_empty_input_reads_as_bad),
		cmocka_unit_test(test_blob_overlong_varint_is_bad),
		cmocka_unit_test(test_blob_str_length_past_end_is_bad),
		cmocka_unit_test(test_blob_pack_round_trips_large_blob),
		cmocka_unit_test(test_blob_pack_leaves_small_and_incompressible_blobs),
		cmocka_unit_test(test_blob_pack_reports_earlier_oom),
		cmocka_unit_test(test_blob_unpack_rejects_corrupt_packs),
		cmocka_unit_test(test_blob_unpack_reads_old_zlib_packs),
		cmocka_unit_test(test_blob_sections_join_split_and_pack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
