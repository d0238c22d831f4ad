/* test_options.c - cli/bench/options.c: defaults, every option, and the
 * command lines that must be refused with a message naming the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/bench/options.h"
#include "cli/command.h"

/* main.c's, which the CLI library leaves out */
const char *command_default_server(void)
{
	return "http://127.0.0.1:8080";
}

static int parse(struct bench_options *o, char *err, const char *a0, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = (char *)"bench";
	va_start(ap, a0);
	for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return bench_options_parse(argc, argv, o, err, 256);
}

static void test_defaults(void **state)
{
	struct bench_options o;
	char err[256];

	assert_int_equal(parse(&o, err, "/dev/nvme0n1", NULL), 0);
	assert_string_equal(o.target, "/dev/nvme0n1");
	assert_int_equal(o.phases, 0x3f);
	assert_true(o.min_phase == 10 && o.max_phase == 30);
	assert_int_equal(o.max_depth, 256);
	assert_int_equal(o.size, 0);
	assert_false(o.destructive || o.force || o.read_only || o.json || o.submit || o.help);
	assert_null(o.output);
}

static void test_every_option(void **state)
{
	struct bench_options o;
	char err[256];

	assert_int_equal(parse(&o, err, "--destructive", "--force", "--size", "4G", "--min-phase", "5", "--max-phase",
			       "12.5", "--max-depth", "64", "--output", "r.json", "--json", "--server", "http://h:1",
			       "--token", "t", "--phases", "wbps,rrandiops", "/dev/sdb", NULL),
			 0);
	assert_true(o.destructive && o.force && o.json);
	assert_int_equal(o.size, 4ull << 30);
	assert_true(o.min_phase == 5 && o.max_phase == 12.5);
	assert_int_equal(o.max_depth, 64);
	assert_string_equal(o.output, "r.json");
	assert_string_equal(o.client.server, "http://h:1");
	assert_string_equal(o.client.token, "t");
	assert_int_equal(o.phases, (1u << 3) | (1u << 2));
	assert_true(bench_options_writes(o.phases));
	assert_int_equal(parse(&o, err, "--read-only", "x", NULL), 0);
	assert_int_equal(o.phases, 0x07);
	assert_false(bench_options_writes(o.phases));
	assert_int_equal(parse(&o, err, "--depth", "32", "x", NULL), 0);
	assert_int_equal(o.depth, 32);
	assert_int_equal(parse(&o, err, "--help", NULL), 0);
	assert_true(o.help);
}

static void test_sizes(void **state)
{
	uint64_t v;

	assert_int_equal(bench_options_size("512M", &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(bench_options_size("2GiB", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(bench_options_size("1T", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(bench_options_size("1048576", &v), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(bench_options_size("-1G", &v), -1);
	assert_int_equal(bench_options_size("1X", &v), -1);
	assert_int_equal(bench_options_size("", &v), -1);
	assert_int_equal(bench_options_size("99999999999T", &v), -1);
}

static void test_bad_command_lines_are_named(void **state)
{
	struct bench_options o;
	char err[256];

	assert_int_equal(parse(&o, err, NULL), -1);
	assert_non_null(strstr(err, "no TARGET"));
	assert_int_equal(parse(&o, err, "a", "b", NULL), -1);
	assert_non_null(strstr(err, "one TARGET"));
	assert_int_equal(parse(&o, err, "--phases", "rbps,bogus", "x", NULL), -1);
	assert_non_null(strstr(err, "bogus"));
	assert_int_equal(parse(&o, err, "--phases", ",", "x", NULL), -1);
	assert_non_null(strstr(err, "empty"));
	assert_int_equal(parse(&o, err, "--read-only", "--phases", "wbps", "x", NULL), -1);
	assert_non_null(strstr(err, "contradict"));
	assert_int_equal(parse(&o, err, "--min-phase", "0", "x", NULL), -1);
	assert_non_null(strstr(err, "--min-phase"));
	assert_int_equal(parse(&o, err, "--max-phase", "nan", "x", NULL), -1);
	assert_non_null(strstr(err, "--max-phase"));
	assert_int_equal(parse(&o, err, "--min-phase", "20", "--max-phase", "10", "x", NULL), -1);
	assert_non_null(strstr(err, "longer than"));
	assert_int_equal(parse(&o, err, "--depth", "0", "x", NULL), -1);
	assert_non_null(strstr(err, "--depth"));
	assert_int_equal(parse(&o, err, "--max-depth", "1000", "x", NULL), -1);
	assert_non_null(strstr(err, "--max-depth"));
	assert_int_equal(parse(&o, err, "--size", "0", "x", NULL), -1);
	assert_non_null(strstr(err, "--size"));
	assert_int_equal(parse(&o, err, "--bogus", "x", NULL), -1);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(parse(&o, err, "--submit", "--read-only", "x", NULL), -1);
	assert_non_null(strstr(err, "not submittable"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bad_command_lines_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
