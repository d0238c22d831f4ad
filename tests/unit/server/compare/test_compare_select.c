/* test_compare_select.c - server/compare/compare_select.c: the selector of a
 * comparison's arm. Every term is read into its field, spaces around terms
 * are dropped, eevdf and fair both select the kernel's own classes, kernel is
 * a prefix, the canonical text is the same for any order of the terms and
 * parses back to the same selector, and each malformed form is refused with
 * a message naming what is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "server/compare/compare_select.h"

static struct compare_select sel;
static char err[512];

/* Parses text, expecting success. */
static void ok(const char *text)
{
	err[0] = '\0';
	if (compare_select_parse(text, &sel, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", text, err);
}

/* Parses text, expecting a refusal whose message contains want. */
static void refused(const char *text, const char *want)
{
	err[0] = '\0';
	if (compare_select_parse(text, &sel, err, sizeof(err)) == 0)
		fail_msg("'%s' was taken", text ? text : "(null)");
	if (!strstr(err, want))
		fail_msg("'%s': message '%s' does not say '%s'", text ? text : "(null)", err, want);
}

static void test_compare_select_reads_every_term(void **state)
{
	(void)state;
	ok("sched=scx_fifo,label.role=web,host=h-1,kernel=6.12,label.canary=1");
	assert_string_equal(sel.sched, "scx_fifo");
	assert_string_equal(sel.host, "h-1");
	assert_string_equal(sel.kernel, "6.12");
	assert_int_equal(sel.nlabels, 2);
	assert_string_equal(sel.labels[0].key, "role");
	assert_string_equal(sel.labels[0].value, "web");
	assert_string_equal(sel.labels[1].key, "canary");
	assert_string_equal(sel.labels[1].value, "1");

	ok("host=only");
	assert_string_equal(sel.host, "only");
	assert_string_equal(sel.sched, "");
	assert_string_equal(sel.kernel, "");
	assert_int_equal(sel.nlabels, 0);
}

static void test_compare_select_drops_spaces_around_terms(void **state)
{
	(void)state;
	ok("  sched = scx_fifo ,\tlabel.role= web server  ");
	assert_string_equal(sel.sched, "scx_fifo");
	assert_string_equal(sel.labels[0].value, "web server");
	/* a host id keeps what is inside it, '=' included */
	ok("host=a=b");
	assert_string_equal(sel.host, "a=b");
}

static void test_compare_select_matches_schedulers_kernels_hosts(void **state)
{
	(void)state;
	ok("sched=eevdf");
	assert_true(compare_select_sched_matches(&sel, "eevdf"));
	assert_true(compare_select_sched_matches(&sel, "fair"));
	assert_false(compare_select_sched_matches(&sel, "scx_fifo"));
	assert_false(compare_select_sched_matches(&sel, NULL));
	ok("sched=fair");
	assert_true(compare_select_sched_matches(&sel, "eevdf"));
	assert_true(compare_select_sched_matches(&sel, "fair"));
	ok("sched=scx_fifo");
	assert_true(compare_select_sched_matches(&sel, "scx_fifo"));
	assert_false(compare_select_sched_matches(&sel, "scx_fifo2"));
	assert_false(compare_select_sched_matches(&sel, "eevdf"));

	ok("kernel=6.1");
	assert_true(compare_select_kernel_matches(&sel, "6.1.0-18-amd64"));
	assert_true(compare_select_kernel_matches(&sel, "6.12.0"));
	assert_false(compare_select_kernel_matches(&sel, "5.15.0"));
	assert_false(compare_select_kernel_matches(&sel, "6"));
	assert_false(compare_select_kernel_matches(&sel, NULL));
	/* no sched, kernel or host term: everything matches */
	assert_true(compare_select_sched_matches(&sel, "anything"));
	assert_true(compare_select_host_matches(&sel, "any"));

	ok("host=h1");
	assert_true(compare_select_host_matches(&sel, "h1"));
	assert_false(compare_select_host_matches(&sel, "h10"));
	assert_true(compare_select_kernel_matches(&sel, NULL));
}

static void test_compare_select_canonical_text_round_trips(void **state)
{
	struct compare_select first;
	char a[COMPARE_SELECT_MAX_LEN + 1], b[COMPARE_SELECT_MAX_LEN + 1];
	size_t n;

	(void)state;
	ok("label.zone=b , kernel=6.12,label.app=web, sched=scx_fifo,host=h1");
	n = compare_select_format(&sel, a, sizeof(a));
	assert_string_equal(a, "sched=scx_fifo,host=h1,kernel=6.12,label.app=web,label.zone=b");
	assert_int_equal(n, strlen(a));
	first = sel;
	ok(a);
	assert_memory_equal(&first.sched, &sel.sched, sizeof(sel.sched));
	compare_select_format(&sel, b, sizeof(b));
	assert_string_equal(a, b);
	/* another order of the same terms, same text */
	ok("host=h1,label.zone=b,sched=scx_fifo,label.app=web,kernel=6.12");
	compare_select_format(&sel, b, sizeof(b));
	assert_string_equal(a, b);
	/* too small a buffer: cut, NUL-terminated, and the length it needed */
	assert_int_equal(compare_select_format(&sel, b, 10), strlen(a));
	assert_string_equal(b, "sched=scx");
}

static void test_compare_select_refuses_each_bad_form(void **state)
{
	char big[COMPARE_SELECT_MAX_LEN + 20];

	(void)state;
	refused(NULL, "a selector is required");
	refused("", "the selector is empty");
	refused("   ", "the selector is empty");
	refused("sched=a,,host=b", "empty term");
	refused("sched=a,", "empty term");
	refused(",sched=a", "empty term");
	refused("scx_fifo", "term 'scx_fifo' has no '='");
	refused("schd=scx_fifo", "unknown term 'schd'");
	refused("=x", "unknown term ''");
	refused("sched=", "sched= needs a scheduler");
	refused("host= ", "host= needs a host id");
	refused("kernel=", "kernel= needs the start of a kernel release");
	refused("sched=a,sched=b", "sched= is given twice");
	refused("host=a,host=a", "host= is given twice");
	refused("label.role=web,label.role=db", "label.role is given twice");
	refused("label=web", "label=... needs a key");
	refused("label.=web", "label.=web needs a key");
	refused("label.Role=web", "label key 'Role' must be a lowercase letter");
	refused("label.9a=web", "label key '9a'");
	refused("label.a-b=web", "label key 'a-b'");
	refused("label.role=", "label.role= needs a value");
	refused("label.role=a=b", "label.role=a=b: a label value is 1 to 128 bytes");
	refused("label.role=\"web\"", "a label value is");
	refused("label.role=caf\xc3\xa9", "label.role=caf??: a label value is");
	refused("sched=a\tb\x01", "has a control character");
	memset(big, 'x', sizeof(big));
	memcpy(big, "host=", 5);
	big[5 + COMPARE_SELECT_MAX_HOST + 1] = '\0';
	refused(big, "is longer than the limit of 128 bytes");
	big[5 + COMPARE_SELECT_MAX_HOST] = '\0';
	ok(big);
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	refused(big, "longer than the limit of 4096 bytes");
}

static void test_compare_select_label_limits(void **state)
{
	char text[4096], key[80], value[200];
	size_t n = 0;

	(void)state;
	/* 63-byte key and 128-byte value are the limits */
	memset(key, 'k', 63);
	key[63] = '\0';
	memset(value, 'v', 128);
	value[128] = '\0';
	snprintf(text, sizeof(text), "label.%s=%s", key, value);
	ok(text);
	assert_string_equal(sel.labels[0].key, key);
	assert_string_equal(sel.labels[0].value, value);
	snprintf(text, sizeof(text), "label.%sk=%s", key, value);
	refused(text, "must be a lowercase letter");
	snprintf(text, sizeof(text), "label.%s=%sv", key, value);
	refused(text, "a label value is 1 to 128 bytes");
	/* 32 labels, not 33 */
	for (int i = 0; i < 32; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%slabel.l%d=v", i ? "," : "", i);
	ok(text);
	assert_int_equal(sel.nlabels, 32);
	snprintf(text + n, sizeof(text) - n, ",label.l32=v");
	refused(text, "more than 32 label terms");
}

static void test_compare_select_quotes_bad_terms_safely(void **state)
{
	char text[200];

	(void)state;
	/* a long bad term is cut in the message, and quotes or bytes above ASCII become '?' */
	memset(text, 'q', sizeof(text));
	memcpy(text, "bad'\xff", 5);
	text[150] = '\0';
	refused(text, "term 'bad??qqq");
	assert_non_null(strstr(err, "...' has no '='"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_select_reads_every_term),
		cmocka_unit_test(test_compare_select_drops_spaces_around_terms),
		cmocka_unit_test(test_compare_select_matches_schedulers_kernels_hosts),
		cmocka_unit_test(test_compare_select_canonical_text_round_trips),
		cmocka_unit_test(test_compare_select_refuses_each_bad_form),
		cmocka_unit_test(test_compare_select_label_limits),
		cmocka_unit_test(test_compare_select_quotes_bad_terms_safely),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
