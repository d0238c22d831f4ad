/* test_seq.c - agent/delivery/seq.c: seq only ever grows, across restarts
 * (seq_load, or seq_next reading the file itself), a persisted value never
 * lowers the one in memory, an empty or corrupt file does not reset it, the
 * file is replaced whole (no temp file left), and a failed write reserves
 * nothing. The incarnation id is new for every process and nothing of it is
 * kept in the state folder.
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

/* Asserts that dir holds exactly one entry (dot files aside) and returns its name (static buffer). */
static const char *only_entry(const char *dir)
{
	static char name[256];
	struct dirent *de;
	int files = 0;
	DIR *d;

	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s", de->d_name);
		files++;
	}
	closedir(d);
	assert_int_equal(files, 1);
	return name;
}

static void test_seq_write_leaves_only_the_seq_file(void **state)
{
	const char *dir = fresh_dir();
	uint64_t mem = 0;

	(void)state;
	for (uint64_t i = 1; i <= 5; i++)
		next_is(dir, &mem, i);
	assert_string_equal(only_entry(dir), "seq");
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

/* seq_incarnation_new, which must succeed with a well-formed id. */
static void incarnation_new(char out[SEQ_INCARNATION_LEN + 1])
{
	memset(out, 'x', SEQ_INCARNATION_LEN + 1);
	assert_int_equal(seq_incarnation_new(out), 0);
	assert_int_equal(strlen(out), SEQ_INCARNATION_LEN);
	assert_int_equal(strspn(out, "0123456789abcdef"), SEQ_INCARNATION_LEN);
}

static void test_incarnation_is_new_for_every_process(void **state)
{
	char ids[64][SEQ_INCARNATION_LEN + 1];

	(void)state;
	for (int i = 0; i < 64; i++) {
		incarnation_new(ids[i]);
		for (int k = 0; k < i; k++)
			assert_string_not_equal(ids[i], ids[k]);
	}
}

static void test_incarnation_leaves_the_state_dir_alone(void **state)
{
	const char *dir = fresh_dir();
	char id[SEQ_INCARNATION_LEN + 1];
	uint64_t mem = 0, seq;

	(void)state;
	assert_int_equal(seq_next(dir, &mem, &seq), 0);
	incarnation_new(id);
	/* nothing but seq is kept: a rewound or lost state folder cannot bring an old id back */
	assert_string_equal(only_entry(dir), "seq");
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
		cmocka_unit_test(test_incarnation_is_new_for_every_process),
		cmocka_unit_test(test_incarnation_leaves_the_state_dir_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
