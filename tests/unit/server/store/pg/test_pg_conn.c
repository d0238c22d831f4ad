/* test_pg_conn.c - the parts of server/store/pg/pg_conn.c that need no database:
 * which --db values select PostgreSQL, and the binary parameter encoding
 * (8-byte big-endian integers, text and bytea with NULL and empty kept apart). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/store/pg/pg_conn.h"

static void test_pg_conninfo_selects_the_backend(void **state)
{
	(void)state;
	assert_true(pg_is_conninfo("postgresql://schedio@db/schedio"));
	assert_true(pg_is_conninfo("postgres://db/schedio?sslmode=require"));
	assert_true(pg_is_conninfo("host=db dbname=schedio"));
	assert_true(pg_is_conninfo("dbname=schedio"));
	assert_false(pg_is_conninfo("schedio.db"));
	assert_false(pg_is_conninfo("/var/lib/schedio/schedio.db"));
	assert_false(pg_is_conninfo("postgresql.db"));
	assert_false(pg_is_conninfo(""));
	assert_false(pg_is_conninfo(NULL));
}

static void test_pg_params_encode_binary(void **state)
{
	static const unsigned char be[8] = { 0x00, 0x00, 0x01, 0x8c, 0x00, 0x00, 0x00, 0x2a };
	struct pg_params p = { 0 };

	(void)state;
	pg_p_int(&p, 0x18c0000002aLL);
	pg_p_text(&p, "host-a");
	pg_p_text(&p, NULL);
	pg_p_blob(&p, NULL, 0, true);
	pg_p_blob(&p, "xy", 2, false);
	assert_int_equal(p.n, 5);
	assert_int_equal(p.len[0], 8);
	assert_memory_equal(p.v[0], be, 8);
	assert_int_equal(p.len[1], 6);
	assert_memory_equal(p.v[1], "host-a", 6);
	assert_null(p.v[2]);
	/* A present empty blob is an empty BYTEA, an absent one SQL NULL. */
	assert_non_null(p.v[3]);
	assert_int_equal(p.len[3], 0);
	assert_null(p.v[4]);
	for (int i = 0; i < p.n; i++)
		assert_int_equal(p.fmt[i], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg_conninfo_selects_the_backend),
		cmocka_unit_test(test_pg_params_encode_binary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
