/* test_fsutil.c - fs_read_all: a whole file read back byte for byte (across
 * the buffer's growth, NUL-terminated), an empty file, the size cap, and a
 * missing file as -ENOENT.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/fsutil.h"

/* Writes len bytes of a pattern to a new temp file; returns its path (static). */
static const char *temp_file(size_t len)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/schedio-fsutil-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	for (size_t i = 0; i < len; i++)
		fputc((int)('a' + i % 26), f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_read_all_whole_file(void **state)
{
	static const size_t sizes[] = { 0, 1, 65535, 65536, 65537, 300000 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		const char *path = temp_file(sizes[k]);
		char *buf = NULL;
		size_t len = 99;

		assert_int_equal(fs_read_all(path, 1 << 20, &buf, &len), 0);
		assert_int_equal(len, sizes[k]);
		assert_int_equal(buf[len], '\0');
		for (size_t i = 0; i < len; i++)
			assert_int_equal(buf[i], 'a' + i % 26);
		free(buf);
		unlink(path);
	}
}

static void test_read_all_cap(void **state)
{
	const char *path = temp_file(5000);
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(fs_read_all(path, 4999, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(fs_read_all(path, 5000, &buf, &len), 0); /* exactly at the cap is fine */
	assert_int_equal(len, 5000);
	free(buf);
	unlink(path);
	assert_int_equal(fs_read_all("/nonexistent/schedio-fsutil", 10, &buf, &len), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_all_whole_file),
		cmocka_unit_test(test_read_all_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
