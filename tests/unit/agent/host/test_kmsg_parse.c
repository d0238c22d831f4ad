/* test_kmsg_parse.c - agent/host/kmsg_parse.c: /dev/kmsg records split into
 * sequence, timestamp and text (dictionary lines left out); the sched_ext
 * "enabled", "disabled" and message lines recognised with the kernel's escapes undone,
 * anything else (other lines, cut or malformed ones) not; each reason of
 * scx_exit_reason() mapped to the report's exit kind. Records are the ones
 * sid's 7.2 kernel logged for scx_fifo and scx_broken in the VM. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "agent/host/kmsg_parse.h"

static void test_kmsg_record_fields_and_text_without_dictionary(void **state)
{
	const char rec[] =
	    "6,267,1084953,-;pci 0000:00:02.0: [1234:1111] type 00\n SUBSYSTEM=pci\n DEVICE=+pci:0000:00:02.0\n";
	struct kmsg_record r;

	(void)state;
	assert_int_equal(kmsg_parse_record(rec, strlen(rec), &r), 0);
	assert_int_equal(r.level, 6);
	assert_int_equal(r.seq, 267);
	assert_int_equal(r.ts_us, 1084953);
	assert_int_equal(r.text_len, strlen("pci 0000:00:02.0: [1234:1111] type 00"));
	assert_memory_equal(r.text, "pci 0000:00:02.0: [1234:1111] type 00", r.text_len);
}

static void test_kmsg_record_facility_and_extra_fields(void **state)
{
	const char rec[] = "30,5,12,c,caller=T1;hello"; /* facility 3, level 6; no newline */
	struct kmsg_record r;

	(void)state;
	assert_int_equal(kmsg_parse_record(rec, strlen(rec), &r), 0);
	assert_int_equal(r.level, 6);
	assert_int_equal(r.facility, 3);
	assert_int_equal(r.text_len, 5);
}

static void test_kmsg_record_malformed_is_einval(void **state)
{
	const char *bad[] = { "",         "6",         "6,1",      "6,1,2",
			      "6,1,2,-",  "x,1,2,-;t", "6,,2,-;t", "6,1,99999999999999999999999,-;t",
			      "6;1,2,-;t" };
	struct kmsg_record r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(kmsg_parse_record(bad[i], strlen(bad[i]), &r), -EINVAL);
}

static enum kmsg_scx_type line(const char *text, struct kmsg_scx_line *out)
{
	return kmsg_parse_scx_line(text, strlen(text), out);
}

static void test_kmsg_scx_disabled_stall(void **state)
{
	struct kmsg_scx_line l;

	(void)state;
	assert_int_equal(line("sched_ext: BPF scheduler \"scx_broken\" disabled (runnable task stall)", &l),
			 KMSG_SCX_DISABLED);
	assert_string_equal(l.ops, "scx_broken");
	assert_string_equal(l.reason, "runnable task stall");
	assert_string_equal(kmsg_scx_exit_kind(l.reason), "error_stall");
}

static void test_kmsg_scx_enabled_and_partial(void **state)
{
	struct kmsg_scx_line l;

	(void)state;
	assert_int_equal(line("sched_ext: BPF scheduler \"scx_fifo\" enabled", &l), KMSG_SCX_ENABLED);
	assert_string_equal(l.ops, "scx_fifo");
	assert_false(l.partial);
	assert_int_equal(line("sched_ext: BPF scheduler \"scx_fifo\" enabled (partial)", &l), KMSG_SCX_ENABLED);
	assert_true(l.partial);
}

static void test_kmsg_scx_message_unescaped(void **state)
{
	struct kmsg_scx_line l;

	(void)state;
	assert_int_equal(line("sched_ext: scx_broken: kworker/0:0[9] failed to run for 3.008s", &l), KMSG_SCX_MESSAGE);
	assert_string_equal(l.ops, "scx_broken");
	assert_string_equal(l.message, "kworker/0:0[9] failed to run for 3.008s");
	/* a tab stays, a byte past ASCII and a NUL become '?', a cut escape stays as it is */
	assert_int_equal(line("sched_ext: s: a\\x09b\\xc3\\x00c\\x4", &l), KMSG_SCX_MESSAGE);
	assert_string_equal(l.message, "a\tb??c\\x4");
}

static void test_kmsg_scx_other_lines_are_not_exits(void **state)
{
	const char *other[] = {
		"sched_ext: BPF scheduler \"scx_fifo\" enabled (something else)",
		"sched_ext: BPF scheduler \"\" enabled",
		"sched_ext: BPF scheduler \"scx_fifo\" disabled (cut",
		"sched_ext: BPF scheduler \"\" disabled (runtime error)",
		"sched_ext: BPF scheduler \"x\" disabled ()x",
		"sched_ext: no colon here",
		"sched_ext: two words: message",
		"sched_ext:",
		"   __scx_exit+0x4f/0x70",
		"pci 0000:00:02.0: vgaarb: bridge control possible",
	};
	struct kmsg_scx_line l;

	(void)state;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		assert_int_equal(line(other[i], &l), KMSG_SCX_NONE);
}

static void test_kmsg_scx_long_fields_are_cut(void **state)
{
	char text[4096], ops[200];
	struct kmsg_scx_line l;

	(void)state;
	memset(ops, 'o', 100);
	ops[100] = '\0';
	snprintf(text, sizeof(text), "sched_ext: %s: ", ops);
	memset(text + strlen(text), 'm', 3000);
	text[strlen("sched_ext: ") + 102 + 3000] = '\0';
	assert_int_equal(line(text, &l), KMSG_SCX_MESSAGE);
	assert_int_equal(strlen(l.message), KMSG_SCX_MESSAGE_MAX - 1);
	snprintf(text, sizeof(text), "sched_ext: BPF scheduler \"x\" disabled (%0300d)", 1);
	assert_int_equal(line(text, &l), KMSG_SCX_DISABLED);
	assert_int_equal(strlen(l.reason), KMSG_SCX_REASON_MAX - 1);
	/* an ops name past the kernel's 128 bytes is not the kernel's line */
	memset(ops, 'o', 150);
	ops[150] = '\0';
	snprintf(text, sizeof(text), "sched_ext: BPF scheduler \"%s\" disabled (runtime error)", ops);
	assert_int_equal(line(text, &l), KMSG_SCX_NONE);
}

static void test_kmsg_scx_exit_kinds(void **state)
{
	(void)state;
	assert_string_equal(kmsg_scx_exit_kind("unregistered from user space"), "unreg");
	assert_string_equal(kmsg_scx_exit_kind("unregistered from BPF"), "unreg_bpf");
	assert_string_equal(kmsg_scx_exit_kind("unregistered from the main kernel"), "unreg_kern");
	assert_string_equal(kmsg_scx_exit_kind("disabled by sysrq-S"), "sysrq");
	assert_string_equal(kmsg_scx_exit_kind("runtime error"), "error");
	assert_string_equal(kmsg_scx_exit_kind("scx_bpf_error"), "error_bpf");
	assert_string_equal(kmsg_scx_exit_kind("runnable task stall"), "error_stall");
	assert_string_equal(kmsg_scx_exit_kind("parent exiting"), "unknown");
	assert_string_equal(kmsg_scx_exit_kind("<UNKNOWN>"), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmsg_record_fields_and_text_without_dictionary),
		cmocka_unit_test(test_kmsg_record_facility_and_extra_fields),
		cmocka_unit_test(test_kmsg_record_malformed_is_einval),
		cmocka_unit_test(test_kmsg_scx_disabled_stall),
		cmocka_unit_test(test_kmsg_scx_enabled_and_partial),
		cmocka_unit_test(test_kmsg_scx_message_unescaped),
		cmocka_unit_test(test_kmsg_scx_other_lines_are_not_exits),
		cmocka_unit_test(test_kmsg_scx_long_fields_are_cut),
		cmocka_unit_test(test_kmsg_scx_exit_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
