/* test_kallsyms.c - finding ext_sched_class in a kallsyms listing: the
 * built-in symbol only (not a module's or a longer name's), hidden addresses
 * told apart from a missing symbol, malformed lines skipped; the cause of
 * hidden addresses named from the capability and kptr_restrict; and the
 * running kernel's own listing read without error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/runqlat/kallsyms.h"

static int find_in(const char *text, const char *name, uint64_t *addr)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rc = kallsyms_find(f, name, addr);
	fclose(f);
	return rc;
}

static void test_kallsyms_finds_the_builtin_symbol(void **state)
{
	const char *text = "ffffffff81000000 T _text\n"
			   "ffffffff82b1eb00 D ext_sched_class_extra\n"
			   "ffffffffc0001000 d ext_sched_class\t[some_module]\n"
			   "garbage line\n"
			   "zz D ext_sched_class\n"
			   "ffffffff82b1eb80 D ext_sched_class\n"
			   "ffffffff82b1ec00 D fair_sched_class\n";
	uint64_t addr = 0;

	assert_int_equal(find_in(text, "ext_sched_class", &addr), 0);
	assert_true(addr == 0xffffffff82b1eb80ULL);
	assert_int_equal(find_in(text, "fair_sched_class", &addr), 0);
	assert_true(addr == 0xffffffff82b1ec00ULL);
}

static void test_kallsyms_missing_and_hidden(void **state)
{
	uint64_t addr = 7;

	assert_int_equal(find_in("ffffffff81000000 T _text\n", "ext_sched_class", &addr), -ENOENT);
	assert_int_equal(find_in("", "ext_sched_class", &addr), -ENOENT);
	/* kptr_restrict: every address printed as zeros */
	assert_int_equal(find_in("0000000000000000 D ext_sched_class\n", "ext_sched_class", &addr), -EPERM);
	/* no newline at the end, an over-long address */
	assert_int_equal(find_in("1ffffffff82b1eb80 D ext_sched_class", "ext_sched_class", &addr), -ENOENT);
	assert_int_equal(find_in("ff D ext_sched_class", "ext_sched_class", &addr), 0);
	assert_true(addr == 0xff);
	assert_int_equal(kallsyms_lookup("/nonexistent/kallsyms", "x", &addr), -ENOENT);
}

static void test_kallsyms_hidden_reason_names_the_cause(void **state)
{
	const char *no_cap =
	    "CAP_SYSLOG is missing from this process (a systemd unit with ProtectKernelLogs= drops it)";
	const char *everyone = "kernel.kptr_restrict=2 hides them from everyone";

	/* 0 and 1 show addresses to CAP_SYSLOG: without it, the capability is the cause */
	assert_string_equal(kallsyms_hidden_reason(false, 0), no_cap);
	assert_string_equal(kallsyms_hidden_reason(false, 1), no_cap);
	assert_string_equal(kallsyms_hidden_reason(false, -1), no_cap);
	/* 2 hides them whatever the capabilities: the capability is not the cause */
	assert_string_equal(kallsyms_hidden_reason(false, 2), everyone);
	assert_string_equal(kallsyms_hidden_reason(true, 2), everyone);
	/* with the capability and 0 or 1 neither is blamed */
	assert_null(strstr(kallsyms_hidden_reason(true, 0), "missing"));
	assert_null(strstr(kallsyms_hidden_reason(true, 1), "=2"));
	assert_non_null(kallsyms_hidden_cause());
}

static void test_kallsyms_reads_the_running_kernel(void **state)
{
	uint64_t addr;
	int rc = kallsyms_lookup("/proc/kallsyms", "schedule", &addr);

	/* root sees the address; others (or kptr_restrict=2) see zeros */
	assert_true(rc == 0 || rc == -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_finds_the_builtin_symbol),
		cmocka_unit_test(test_kallsyms_missing_and_hidden),
		cmocka_unit_test(test_kallsyms_hidden_reason_names_the_cause),
		cmocka_unit_test(test_kallsyms_reads_the_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
