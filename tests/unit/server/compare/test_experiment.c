/* test_experiment.c - server/compare/experiment.c: a saved experiment's
 * definition. Defaults fill what is left out, selectors are stored in their
 * canonical text, the three window forms are read (last_hours moving with
 * the time it is read at), the canonical JSON parses back to itself, and
 * every malformed definition is refused with a message naming the field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/compare/experiment.h"

static struct experiment e, again;
static char err[512];

static void ok(const char *text)
{
	err[0] = '\0';
	if (experiment_parse(text, strlen(text), &e, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", text, err);
}

static void refused(const char *text, const char *want)
{
	err[0] = '\0';
	if (experiment_parse(text, strlen(text), &e, err, sizeof(err)) == 0)
		fail_msg("'%s' was taken", text);
	if (!strstr(err, want))
		fail_msg("'%s': message '%s' does not say '%s'", text, err, want);
}

static char *canonical(const struct experiment *x)
{
	cJSON *doc = experiment_to_json(x);
	char *text = cJSON_PrintUnformatted(doc);

	cJSON_Delete(doc);
	return text;
}

static void test_experiment_defaults_and_canonical_selectors(void **state)
{
	char *t;

	(void)state;
	ok("{\"name\": \"fifo vs eevdf\", \"a\": \" sched = scx_fifo \", \"b\": \"sched=eevdf\", "
	   "\"window\": {\"last_hours\": 24}}");
	assert_string_equal(e.name, "fifo vs eevdf");
	assert_string_equal(e.q.sel_text[0], "sched=scx_fifo");
	assert_int_equal(e.q.metric, COMPARE_P99);
	assert_true(e.q.threshold == 0.05);
	assert_string_equal(e.q.cgroup, "");
	assert_int_equal(e.window, EXPERIMENT_LAST_HOURS);
	t = canonical(&e);
	assert_string_equal(t, "{\"name\":\"fifo vs eevdf\",\"a\":\"sched=scx_fifo\",\"b\":\"sched=eevdf\","
			       "\"metric\":\"p99\",\"threshold\":0.05,\"cgroup\":null,\"window\":{\"last_hours\":24}}");
	free(t);
}

static void test_experiment_windows(void **state)
{
	char *t1, *t2;

	(void)state;
	ok("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"last_hours\": 2}}");
	experiment_at(&e, 10 * 3600000LL);
	assert_int_equal(e.q.from[0], 8 * 3600000LL);
	assert_int_equal(e.q.to[1], 10 * 3600000LL);
	ok("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"from\": 5, \"to\": 9}}");
	experiment_at(&e, 10 * 3600000LL); /* a fixed window stays */
	assert_int_equal(e.window, EXPERIMENT_FIXED);
	assert_int_equal(e.q.from[1], 5);
	assert_int_equal(e.q.to[0], 9);
	ok("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"metric\": \"mean\", \"threshold\": 0.1, "
	   "\"cgroup\": \"/w.slice/\", \"window\": {\"b_to\": 4, \"b_from\": 3, \"a_from\": 9007199254740991, "
	   "\"a_to\": 9007199254740992}}");
	assert_int_equal(e.window, EXPERIMENT_BEFORE_AFTER);
	assert_int_equal(e.q.from[0], 9007199254740991LL);
	assert_string_equal(e.q.cgroup, "/w.slice");
	t1 = canonical(&e);
	if (experiment_parse(t1, strlen(t1), &again, err, sizeof(err)))
		fail_msg("%s: %s", t1, err);
	t2 = canonical(&again);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
}

static void test_experiment_refuses_naming_the_field(void **state)
{
	(void)state;
	refused("", "not valid JSON");
	refused("[1]", "must be a JSON object");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"last_hours\": 1}, \"x\": 1}",
		"unknown field 'x'");
	refused("{\"name\": \"x\", \"name\": \"y\"}", "name is given twice");
	refused("{\"\\u00e9t\\u00e9\": 1}", "unknown field '\?\?t\?\?'");
	refused("{\"a\": \"host=h\"}", "name is required");
	refused("{\"name\": \"\\t\"}", "name has a control character");
	refused("{\"name\": \"x\", \"a\": \"host=h\"}", "b is required");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"hst=h\"}", "b: unknown term 'hst'");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"metric\": \"p98\"}", "metric must be");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"threshold\": 1}", "threshold must be");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"cgroup\": \"x\"}", "cgroup must be");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\"}", "window is required");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"from\": 1, \"a_to\": 2}}",
		"not a mix");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"from\": 1, \"to\": 2, "
		"\"to\": 3}}",
		"window: to is given twice");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"from\": 10000000000000000, "
		"\"to\": 10000000000000001}}",
		"window.from must be a non-negative integer");
	refused("{\"name\": \"x\", \"a\": \"host=h\", \"b\": \"host=h\", \"window\": {\"a_from\": 1, \"a_to\": 2, "
		"\"b_from\": 2, \"b_to\": 2}}",
		"window: b_to must be after b_from");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_experiment_defaults_and_canonical_selectors),
		cmocka_unit_test(test_experiment_windows),
		cmocka_unit_test(test_experiment_refuses_naming_the_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
