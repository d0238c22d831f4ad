/* test_scx_libbpf.c - the CLI runs with the pinned libbpf, not Debian 12's
 * 1.1: the library linked in is >= 1.4 and is the one whose headers the CLI
 * was compiled against (one libbpf in the binary, not two mixed); the version
 * comparison and the line `schedio scx version` prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>

#include "cli/scx/scx_libbpf.h"

static void test_scx_libbpf_linked_is_at_least_1_4(void **state)
{
	(void)state;
	assert_true(scx_libbpf_at_least_min(libbpf_major_version(), libbpf_minor_version()));
	/* The code and the library agree: the headers are the library's own. */
	assert_int_equal(libbpf_major_version(), LIBBPF_MAJOR_VERSION);
	assert_int_equal(libbpf_minor_version(), LIBBPF_MINOR_VERSION);
	/* Its version string says the same ("v1.5"). */
	char want[32];
	snprintf(want, sizeof(want), "v%u.%u", libbpf_major_version(), libbpf_minor_version());
	assert_string_equal(libbpf_version_string(), want);
}

static void test_scx_libbpf_minimum(void **state)
{
	(void)state;
	assert_false(scx_libbpf_at_least_min(1, 1)); /* Debian 12 */
	assert_false(scx_libbpf_at_least_min(1, 3));
	assert_false(scx_libbpf_at_least_min(0, 8));
	assert_true(scx_libbpf_at_least_min(1, 4));
	assert_true(scx_libbpf_at_least_min(1, 7));
	assert_true(scx_libbpf_at_least_min(2, 0));
}

static void test_scx_libbpf_describe(void **state)
{
	char line[128], want[64];

	(void)state;
	scx_libbpf_describe(line, sizeof(line));
	snprintf(want, sizeof(want), "libbpf %u.%u (", libbpf_major_version(), libbpf_minor_version());
	assert_memory_equal(line, want, strlen(want));
	assert_null(strstr(line, "too old"));
	/* A short buffer is cut, still terminated. */
	scx_libbpf_describe(line, 8);
	assert_string_equal(line, "libbpf ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scx_libbpf_linked_is_at_least_1_4),
		cmocka_unit_test(test_scx_libbpf_minimum),
		cmocka_unit_test(test_scx_libbpf_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
