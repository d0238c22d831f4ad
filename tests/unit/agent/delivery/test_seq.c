/* test_seq.c - agent/delivery/seq.c: seq only ever grows, across restarts
 * (seq_load, or seq_next reading the file itself), a persisted value never
 * lowers the one in memory, an empty or corrupt file does not reset it, the
 * file is replaced whole (no temp file left), and a failed write reserves
 * nothing. The incarnation id is made and persisted before the first seq,
 * kept while the seq file is valid, and made anew whenever the seq file (or
 * the id itself) is missing or corrupt, so a seq that restarts at 1 always
 * has a new id; without a state folder every call is a new id.
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
#include <dirent.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "agent/delivery/seq.h"

static char base[] = "/tmp/schedio-test-seq-XXXXXX";
static int ndir;

/* A new empty state directory under base. */
static const char *fresh_dir(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/s%d", base, ndir++);
	assert_int_equal(mkdir(path, 0755), 0);
	return path;
}

/* Writes text as dir/seq. */
static void write_seq_file(const char *dir, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seq", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The contents of dir/seq (static buffer). */
static const char *read_seq_file(const char *dir)
{
	static char buf[64];
	char path[600];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/seq", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Writes text as dir/seq and loads it over *mem, which must succeed. */
static void load_text(const char *dir, const char *text, uint64_t *mem)
{
	write_seq_file(dir, text);
	assert_int_equal(seq_load(dir, mem), 0);
}

/* Reserves the next seq under dir and checks it is want, in memory and on disk. */
static void next_is(const char *dir, uint64_t *mem, uint64_t want)
{
	char text[32];
	uint64_t out = 0;

	assert_int_equal(seq_next(dir, mem, &out), 0);
	assert_true(out == want);
	assert_true(*mem == want);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)want);
	assert_string_equal(read_seq_file(dir), text);
}

static void test_seq_without_state_dir_counts_in_memory(void **state)
{
	uint64_t mem = 0, out = 0;

	(void)state;
	assert_int_equal(seq_next(NULL, &mem, &out), 0);
	assert_int_equal(out, 1);
	assert_int_equal(seq_next(NULL, &mem, &out), 0);
	assert_int_equal(out, 2);
	assert_int_equal(mem, 2);
}

static void test_seq_starts_at_one_and_persists_each_value(void **state)
{
	const char *dir = fresh_dir();
	uint64_t mem = 0;

	(void)state;
	assert_int_equal(seq_load(dir, &mem), 0);
	assert_int_equal(mem, 0);
	next_is(dir, &mem, 1);
	next_is(dir, &mem, 2);
}

static void test_seq_survives_restart(void **state)
{
	const char *dir = fresh_dir();
	uint64_t mem = 0;

	(void)state;
	for (uint64_t i = 1; i <= 3; i++)
		next_is(dir, &mem, i);

	/* a restart that loads first */
	mem = 0;
	assert_int_equal(seq_load(dir, &mem), 0);
	assert_int_equal(mem, 3);
	next_is(dir, &mem, 4);

	/* a restart that does not: seq_next reads the file itself */
	mem = 0;
	next_is(dir, &mem, 5);
}

static void test_seq_load_never_lowers_memory(void **state)
{
	const char *dir = fresh_dir();
	uint64_t mem = 10;

	(void)state;
	load_text(dir, "3\n", &mem);
	assert_int_equal(mem, 10);
	next_is(dir, &mem, 11);

	/* a higher persisted value wins, surrounding whitespace and all */
	load_text(dir, "  18446744073709551000 \n", &mem);
	assert_true(mem == 18446744073709551000ull);
}

static void test_seq_empty_or_corrupt_file_keeps_memory(void **state)
{
	const char *dir = fresh_dir();
	uint64_t mem = 5;

	(void)state;
	load_text(dir, "", &mem);
	assert_int_equal(mem, 5);
	load_text(dir, "garbage\n", &mem);
	assert_int_equal(mem, 5);
	next_is(dir, &mem, 6);

	/* with nothing in memory an empty file starts over at 1 */
	write_seq_file(dir, "");
	mem = 0;
	next_is(dir, &mem, 1);
}

static void test_seq_write_leaves_only_the_seq_file(void **state)
{
	const char *dir = fresh_dir();
	uint64_t mem = 0;
	struct dirent *de;
	int files = 0;
	DIR *d;

	(void)state;
	for (uint64_t i = 1; i <= 5; i++)
		next_is(dir, &mem, i);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		assert_string_equal(de->d_name, "seq");
		files++;
	}
	closedir(d);
	assert_int_equal(files, 1);
}

static void test_seq_failed_write_reserves_nothing(void **state)
{
	char dir[600];
	uint64_t mem = 7, out = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/no/such/dir", base);
	assert_int_equal(seq_next(dir, &mem, &out), -ENOENT);
	assert_int_equal(mem, 7);
	assert_int_equal(out, 0);
	/* a missing file is not an error for load */
	assert_int_equal(seq_load(dir, &mem), 0);
	assert_int_equal(mem, 7);
}

static void test_seq_load_reports_unreadable_file(void **state)
{
	const char *dir = fresh_dir();
	char path[600];
	uint64_t mem = 4;

	(void)state;
	snprintf(path, sizeof(path), "%s/seq", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_true(seq_load(dir, &mem) < 0);
	assert_int_equal(mem, 4);
}

/* Writes text as dir/name. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* seq_incarnation under dir, which must succeed with a well-formed id. */
static void incarnation_of(const char *dir, char out[SEQ_INCARNATION_LEN + 1])
{
	memset(out, 'x', SEQ_INCARNATION_LEN + 1);
	assert_int_equal(seq_incarnation(dir, out), 0);
	assert_int_equal(strlen(out), SEQ_INCARNATION_LEN);
	assert_int_equal(strspn(out, "0123456789abcdef"), SEQ_INCARNATION_LEN);
}

/* The id persisted under dir (static buffer). */
static const char *read_incarnation_file(const char *dir)
{
	static char buf[64];
	char path[600];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/incarnation", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

static void test_incarnation_persisted_before_first_seq_and_kept(void **state)
{
	const char *dir = fresh_dir();
	char a[SEQ_INCARNATION_LEN + 1], b[SEQ_INCARNATION_LEN + 1];
	uint64_t mem = 0;

	(void)state;
	incarnation_of(dir, a);
	assert_string_equal(read_incarnation_file(dir), a);
	next_is(dir, &mem, 1);
	next_is(dir, &mem, 2);

	/* a restart with the state intact: same incarnation, seq goes on */
	incarnation_of(dir, b);
	assert_string_equal(a, b);
	mem = 0;
	assert_int_equal(seq_load(dir, &mem), 0);
	next_is(dir, &mem, 3);
}

static void test_incarnation_new_when_no_seq_was_persisted(void **state)
{
	const char *dir = fresh_dir();
	char a[SEQ_INCARNATION_LEN + 1], b[SEQ_INCARNATION_LEN + 1];

	(void)state;
	/* a crash after the id and before the first seq: the next start may count from 1 again */
	incarnation_of(dir, a);
	incarnation_of(dir, b);
	assert_string_not_equal(a, b);
	assert_string_equal(read_incarnation_file(dir), b);
}

static void test_incarnation_new_when_seq_lost_or_corrupt(void **state)
{
	const char *dir = fresh_dir();
	char a[SEQ_INCARNATION_LEN + 1], b[SEQ_INCARNATION_LEN + 1], c[SEQ_INCARNATION_LEN + 1];
	char path[600];
	uint64_t mem = 0;

	(void)state;
	incarnation_of(dir, a);
	next_is(dir, &mem, 1);
	snprintf(path, sizeof(path), "%s/seq", dir);
	assert_int_equal(unlink(path), 0);
	incarnation_of(dir, b);
	assert_string_not_equal(a, b);

	write_seq_file(dir, "garbage\n");
	incarnation_of(dir, c);
	assert_string_not_equal(b, c);
	write_seq_file(dir, "");
	incarnation_of(dir, a);
	assert_string_not_equal(a, c);
	assert_string_equal(read_incarnation_file(dir), a);
}

static void test_incarnation_new_when_id_corrupt(void **state)
{
	const char *dir = fresh_dir();
	char a[SEQ_INCARNATION_LEN + 1], b[SEQ_INCARNATION_LEN + 1];

	(void)state;
	write_seq_file(dir, "41\n");
	write_file(dir, "incarnation", "0123456789ABCDEF0123456789ABCDEF\n");
	incarnation_of(dir, a);
	assert_string_not_equal(a, "0123456789abcdef0123456789abcdef");
	assert_string_equal(read_incarnation_file(dir), a);
	write_file(dir, "incarnation", "0123456789abcdef\n");
	incarnation_of(dir, b);
	assert_string_not_equal(a, b);

	/* a well-formed one is taken as it is */
	write_file(dir, "incarnation", "0123456789abcdef0123456789abcdef\n");
	incarnation_of(dir, a);
	assert_string_equal(a, "0123456789abcdef0123456789abcdef");
}

static void test_incarnation_without_state_dir_is_new_each_run(void **state)
{
	char a[SEQ_INCARNATION_LEN + 1], b[SEQ_INCARNATION_LEN + 1];

	(void)state;
	incarnation_of(NULL, a);
	incarnation_of(NULL, b);
	assert_string_not_equal(a, b);
}

static void test_incarnation_unwritable_state_dir_is_an_error(void **state)
{
	char dir[600], out[SEQ_INCARNATION_LEN + 1];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/no/such/dir", base);
	assert_int_equal(seq_incarnation(dir, out), -ENOENT);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_without_state_dir_counts_in_memory),
		cmocka_unit_test(test_seq_starts_at_one_and_persists_each_value),
		cmocka_unit_test(test_seq_survives_restart),
		cmocka_unit_test(test_seq_load_never_lowers_memory),
		cmocka_unit_test(test_seq_empty_or_corrupt_file_keeps_memory),
		cmocka_unit_test(test_seq_write_leaves_only_the_seq_file),
		cmocka_unit_test(test_seq_failed_write_reserves_nothing),
		cmocka_unit_test(test_seq_load_reports_unreadable_file),
		cmocka_unit_test(test_incarnation_persisted_before_first_seq_and_kept),
		cmocka_unit_test(test_incarnation_new_when_no_seq_was_persisted),
		cmocka_unit_test(test_incarnation_new_when_seq_lost_or_corrupt),
		cmocka_unit_test(test_incarnation_new_when_id_corrupt),
		cmocka_unit_test(test_incarnation_without_state_dir_is_new_each_run),
		cmocka_unit_test(test_incarnation_unwritable_state_dir_is_an_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
