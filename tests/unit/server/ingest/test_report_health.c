/* test_report_health.c - the issue-17 fields of a report (server/ingest/report_parse.c,
 * parse_health): sched_ext enable_seq, nr_rejected, events, schedulers and
 * exits, runqlat.l3_domains and the agent's cpu_ns, rss_bytes and bpf. A
 * valid report becomes exactly the canonical health_json and exits_json
 * written out here by hand; reports without them have neither; each
 * malformed field is a 400 naming it, with the limits accepted at the limit
 * and refused one past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/ingest/report_parse.h"

#define HEAD                                                                                                           \
	"{\"schema\":\"schedio.report.v1\",\"seq\":3,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\"},"                    \
	"\"interval\":{\"start_ms\":1000,\"end_ms\":11000}"
#define RQ "\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"

static int parse(const char *body, struct report *rep, char *err)
{
	return report_parse(body, strlen(body), rep, err, 512);
}

static void test_health_valid_becomes_canonical_json(void **state)
{
	const char *body =
	    HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"fifo\",\"enable_seq\":7,\"nr_rejected\":2,"
		 "\"events\":{\"select_cpu_fallback\":3,\"dispatch_keep_last\":0},"
		 "\"schedulers\":[{\"ops\":\"fifo\",\"enable_seq\":6,\"first_ms\":900,\"last_ms\":5000,"
		 "\"partial\":false,\"future\":1},{\"ops\":\"broken\",\"first_ms\":6000,\"last_ms\":6000}],"
		 "\"exits\":[{\"ops\":\"broken\",\"t_ms\":7000,\"kind\":\"error_stall\",\"reason\":\"runnable task "
		 "stall\",\"message\":\"kworker/0:1[42] failed to run for 2.004s\"},"
		 "{\"ops\":\"fifo\",\"t_ms\":5500,\"kind\":\"unreg\"}]}," RQ
		 "\"l3_domains\":[{\"cpus\":[0,1],\"wait_ns\":123456,\"waits\":100,\"idle_sibling_wait_ns\":2345,"
		 "\"idle_sibling_waits\":7},{\"wait_ns\":0,\"waits\":0,\"idle_sibling_wait_ns\":0,"
		 "\"idle_sibling_waits\":0}]},"
		 "\"agent\":{\"version\":\"1\",\"cpu_ns\":1234567,\"rss_bytes\":9000000,\"bpf\":{\"sampled_ns\":"
		 "1000000000,\"programs\":[{\"name\":\"schedio_rq_swtch\",\"run_cnt\":12345,\"run_time_ns\":678901},"
		 "{\"name\":\"a.B_9\",\"run_cnt\":0,\"run_time_ns\":0}]}}}";
	struct report rep;
	char err[512];

	assert_int_equal(parse(body, &rep, err), 0);
	assert_non_null(rep.health_json);
	assert_string_equal(
	    rep.health_json,
	    "{\"enable_seq\":7,\"nr_rejected\":2,\"events\":{\"select_cpu_fallback\":3,\"dispatch_keep_last\":0},"
	    "\"schedulers\":[{\"ops\":\"fifo\",\"enable_seq\":6,\"first_ms\":900,\"last_ms\":5000,\"partial\":false},"
	    "{\"ops\":\"broken\",\"first_ms\":6000,\"last_ms\":6000}],"
	    "\"l3\":[{\"cpus\":[0,1],\"wait_ns\":123456,\"waits\":100,\"idle_sibling_wait_ns\":2345,"
	    "\"idle_sibling_waits\":7},{\"wait_ns\":0,\"waits\":0,\"idle_sibling_wait_ns\":0,\"idle_sibling_waits\":0}]"
	    ","
	    "\"agent\":{\"cpu_ns\":1234567,\"rss_bytes\":9000000,\"bpf\":{\"sampled_ns\":1000000000,\"programs\":"
	    "[{\"name\":\"schedio_rq_swtch\",\"run_cnt\":12345,\"run_time_ns\":678901},"
	    "{\"name\":\"a.B_9\",\"run_cnt\":0,\"run_time_ns\":0}]}}}");
	/* Exits keep the report's order; reason and message default to "". */
	assert_string_equal(rep.exits_json,
			    "[{\"ops\":\"broken\",\"t_ms\":7000,\"kind\":\"error_stall\",\"reason\":\"runnable task "
			    "stall\",\"message\":\"kworker/0:1[42] failed to run for 2.004s\"},"
			    "{\"ops\":\"fifo\",\"t_ms\":5500,\"kind\":\"unreg\",\"reason\":\"\",\"message\":\"\"}]");
	report_free(&rep);
}

static void test_health_absent_from_older_reports(void **state)
{
	static const char *const bodies[] = {
		HEAD "}",
		HEAD ",\"sched_ext\":{\"state\":\"disabled\",\"ops\":null},\"agent\":{\"version\":\"0.1.0\"}}",
		HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"x\",\"exits\":[]}}",
		HEAD "," RQ "\"cpus\":[{\"cpu\":0,\"count\":1,\"buckets\":[[3,1]]}]}}",
	};
	struct report rep;
	char err[512];

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		assert_int_equal(parse(bodies[i], &rep, err), 0);
		assert_null(rep.health_json);
		assert_null(rep.exits_json);
		report_free(&rep);
	}
	/* Only the agent's cost: the rest stays absent. */
	assert_int_equal(parse(HEAD ",\"agent\":{\"rss_bytes\":5}}", &rep, err), 0);
	assert_string_equal(rep.health_json, "{\"agent\":{\"rss_bytes\":5}}");
	assert_null(rep.exits_json);
	report_free(&rep);
}

static void expect(const char *body, int status, const char *needle)
{
	struct report rep;
	char err[512] = "";
	int rc = parse(body, &rep, err);

	if (rc != status || !strstr(err, needle))
		fail_msg("status %d (want %d), error '%s' (want '%s') for %.200s", rc, status, err, needle, body);
	report_free(&rep);
}

static void expect_ok(const char *body)
{
	struct report rep;
	char err[512] = "";

	if (parse(body, &rep, err) != 0)
		fail_msg("refused: %s", err);
	report_free(&rep);
}

#define SCX(x) HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"x\"," x "}}"
#define L3(x) HEAD "," RQ "\"l3_domains\":[" x "]}}"
#define L3_OK "\"wait_ns\":10,\"waits\":2,\"idle_sibling_wait_ns\":10,\"idle_sibling_waits\":2"
#define AGENT(x) HEAD ",\"agent\":{" x "}}"
#define EXIT(x) SCX("\"exits\":[{\"ops\":\"x\",\"t_ms\":1" x "}]")
#define SCX_PREFIX HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"x\","
#define SCX_PREFIX_EVENTS SCX_PREFIX "\"events\":{"
#define SCX_PREFIX_SCHED SCX_PREFIX "\"schedulers\":["
#define SCX_PREFIX_EXITS SCX_PREFIX "\"exits\":["

static void test_health_bad_input_names_the_field(void **state)
{
	expect(SCX("\"enable_seq\":\"7\""), 400, "sched_ext.enable_seq must be an integer");
	expect(SCX("\"enable_seq\":-1"), 400, "sched_ext.enable_seq is out of range");
	expect(SCX("\"nr_rejected\":1.5"), 400, "sched_ext.nr_rejected must be an integer");
	expect(SCX("\"nr_rejected\":-2"), 400, "sched_ext.nr_rejected is out of range");
	expect(SCX("\"events\":[]"), 400, "sched_ext.events must be an object");
	expect(SCX("\"events\":{\"Bad\":1}"), 400, "sched_ext.events names must be 1..64 characters of [a-z0-9_]");
	expect(SCX("\"events\":{\"\":1}"), 400, "sched_ext.events names must be");
	expect(SCX("\"events\":{\"scx_ev-x\":1}"), 400, "sched_ext.events names must be");
	expect(SCX("\"events\":{\"a\":-1}"), 400, "sched_ext.events.a must be an integer >= 0");
	expect(SCX("\"events\":{\"a\":\"1\"}"), 400, "sched_ext.events.a must be an integer >= 0");
	expect(SCX("\"events\":{\"a\":1,\"a\":2}"), 400, "sched_ext.events.a is given twice");
	expect(SCX("\"schedulers\":{}"), 400, "sched_ext.schedulers must be an array");
	expect(SCX("\"schedulers\":[1]"), 400, "sched_ext.schedulers[0] must be an object");
	expect(SCX("\"schedulers\":[{\"first_ms\":1,\"last_ms\":2}]"), 400,
	       "missing required field sched_ext.schedulers[0].ops");
	expect(SCX("\"schedulers\":[{\"ops\":\"a\",\"last_ms\":2}]"), 400,
	       "missing required field sched_ext.schedulers[0].first_ms");
	expect(SCX("\"schedulers\":[{\"ops\":\"a\",\"first_ms\":3,\"last_ms\":2}]"), 400,
	       "sched_ext.schedulers[0].last_ms is before sched_ext.schedulers[0].first_ms");
	expect(SCX("\"schedulers\":[{\"ops\":\"a\",\"first_ms\":1,\"last_ms\":2,\"partial\":1}]"), 400,
	       "sched_ext.schedulers[0].partial must be true or false");
	expect(SCX("\"schedulers\":[{\"ops\":\"a\",\"enable_seq\":-1,\"first_ms\":1,\"last_ms\":2}]"), 400,
	       "sched_ext.schedulers[0].enable_seq is out of range");
	expect(SCX("\"exits\":{}"), 400, "sched_ext.exits must be an array");
	expect(EXIT(""), 400, "missing required field sched_ext.exits[0].kind");
	expect(EXIT(",\"kind\":\"oops\""), 400, "sched_ext.exits[0].kind 'oops' is not one of done, unreg");
	expect(EXIT(",\"kind\":\"\""), 400, "sched_ext.exits[0].kind must not be empty");
	expect(EXIT(",\"kind\":\"error\",\"reason\":5"), 400, "sched_ext.exits[0].reason must be a string");
	expect(SCX("\"exits\":[{\"t_ms\":1,\"kind\":\"done\"}]"), 400, "missing required field sched_ext.exits[0].ops");
	expect(SCX("\"exits\":[{\"ops\":\"x\",\"t_ms\":-1,\"kind\":\"done\"}]"), 400,
	       "sched_ext.exits[0].t_ms is out of range");
	expect(L3("{\"wait_ns\":10,\"waits\":2,\"idle_sibling_wait_ns\":11,\"idle_sibling_waits\":2}"), 400,
	       "runqlat.l3_domains[0].idle_sibling_wait_ns (11) is more than wait_ns (10)");
	expect(L3("{" L3_OK "},{\"wait_ns\":10,\"waits\":2,\"idle_sibling_wait_ns\":1,\"idle_sibling_waits\":3}"), 400,
	       "runqlat.l3_domains[1].idle_sibling_waits (3) is more than waits (2)");
	expect(L3("{\"wait_ns\":10,\"waits\":2,\"idle_sibling_wait_ns\":1}"), 400,
	       "missing required field runqlat.l3_domains[0].idle_sibling_waits");
	expect(L3("{\"wait_ns\":-10,\"waits\":2,\"idle_sibling_wait_ns\":1,\"idle_sibling_waits\":1}"), 400,
	       "runqlat.l3_domains[0].wait_ns is out of range");
	expect(L3("{\"cpus\":[-1]," L3_OK "}"), 400, "runqlat.l3_domains[0].cpus must hold CPU numbers");
	expect(L3("{\"cpus\":{}," L3_OK "}"), 400, "runqlat.l3_domains[0].cpus must be an array");
	expect(L3("[]"), 400, "runqlat.l3_domains[0] must be an object");
	expect(HEAD "," RQ "\"l3_domains\":{}}}", 400, "runqlat.l3_domains must be an array");
	expect(AGENT("\"cpu_ns\":-1"), 400, "agent.cpu_ns is out of range");
	expect(AGENT("\"cpu_ns\":1e300"), 400, "agent.cpu_ns is out of range");
	expect(AGENT("\"rss_bytes\":true"), 400, "agent.rss_bytes must be an integer");
	expect(AGENT("\"bpf\":7"), 400, "agent.bpf must be an object");
	expect(AGENT("\"bpf\":{\"sampled_ns\":-1}"), 400, "agent.bpf.sampled_ns is out of range");
	expect(AGENT("\"bpf\":{\"programs\":{}}"), 400, "agent.bpf.programs must be an array");
	expect(AGENT("\"bpf\":{\"programs\":[{\"name\":\"a b\",\"run_cnt\":1,\"run_time_ns\":1}]}"), 400,
	       "agent.bpf.programs[0].name must be 1..64 characters of [A-Za-z0-9_.]");
	expect(AGENT("\"bpf\":{\"programs\":[{\"name\":\"a\",\"run_time_ns\":1}]}"), 400,
	       "missing required field agent.bpf.programs[0].run_cnt");
	expect(AGENT("\"bpf\":{\"programs\":[{\"name\":\"a\",\"run_cnt\":1,\"run_time_ns\":-1}]}"), 400,
	       "agent.bpf.programs[0].run_time_ns is out of range");
}

/* Builds "{prefix}item,item,...{suffix}" with n items made by fmt (one %d). */
static char *repeat(const char *prefix, const char *fmt, int n, const char *suffix)
{
	size_t cap = strlen(prefix) + strlen(suffix) + (size_t)n * (strlen(fmt) + 24) + 1, o;
	char *s = malloc(cap);

	assert_non_null(s);
	o = (size_t)snprintf(s, cap, "%s", prefix);
	for (int i = 0; i < n; i++) {
		if (i)
			s[o++] = ',';
		o += (size_t)snprintf(s + o, cap - o, fmt, i);
	}
	snprintf(s + o, cap - o, "%s", suffix);
	return s;
}

static void test_health_limits_at_and_past(void **state)
{
	static const struct {
		const char *prefix, *fmt, *suffix, *msg;
		int max;
	} lists[] = {
		{ SCX_PREFIX_EVENTS, "\"e%d\":1", "}}}", "sched_ext.events has more than the limit of 64 names", 64 },
		{ SCX_PREFIX_SCHED, "{\"ops\":\"s%d\",\"first_ms\":1,\"last_ms\":1}", "]}}",
		  "sched_ext.schedulers has more than the limit of 64 entries", 64 },
		{ SCX_PREFIX_EXITS, "{\"ops\":\"s%d\",\"t_ms\":1,\"kind\":\"error\"}", "]}}",
		  "sched_ext.exits has more than the limit of 64 entries", 64 },
		{ HEAD ",\"agent\":{\"bpf\":{\"programs\":[", "{\"name\":\"p%d\",\"run_cnt\":1,\"run_time_ns\":1}",
		  "]}}}", "agent.bpf.programs has more than the limit of 64 entries", 64 },
		{ HEAD "," RQ "\"l3_domains\":[", "{\"cpus\":[%d]," L3_OK "}", "]}}",
		  "runqlat.l3_domains has more than the limit of 4096 entries", 4096 },
	};
	char name[80], *body;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		body = repeat(lists[i].prefix, lists[i].fmt, lists[i].max, lists[i].suffix);
		expect_ok(body);
		free(body);
		body = repeat(lists[i].prefix, lists[i].fmt, lists[i].max + 1, lists[i].suffix);
		expect(body, 400, lists[i].msg);
		free(body);
	}
	/* Strings: reason 256 and message 1024 bytes, names 64 characters. */
	body = malloc(4096);
	assert_non_null(body);
	snprintf(body, 4096, EXIT(",\"kind\":\"error\",\"reason\":\"%0256d\",\"message\":\"%01024d\""), 0, 0);
	expect_ok(body);
	snprintf(body, 4096, EXIT(",\"kind\":\"error\",\"reason\":\"%0257d\""), 0);
	expect(body, 400, "sched_ext.exits[0].reason is longer than the limit of 256 bytes");
	snprintf(body, 4096, EXIT(",\"kind\":\"error\",\"message\":\"%01025d\""), 0);
	expect(body, 400, "sched_ext.exits[0].message is longer than the limit of 1024 bytes");
	memset(name, 'a', 64);
	name[64] = '\0';
	snprintf(body, 4096, SCX("\"events\":{\"%s\":1}"), name);
	expect_ok(body);
	snprintf(body, 4096, AGENT("\"bpf\":{\"programs\":[{\"name\":\"%s\",\"run_cnt\":1,\"run_time_ns\":1}]}"), name);
	expect_ok(body);
	snprintf(body, 4096, SCX("\"events\":{\"%sa\":1}"), name);
	expect(body, 400, "sched_ext.events names must be 1..64 characters");
	snprintf(body, 4096, AGENT("\"bpf\":{\"programs\":[{\"name\":\"%sa\",\"run_cnt\":1,\"run_time_ns\":1}]}"),
		 name);
	expect(body, 400, "agent.bpf.programs[0].name is longer than the limit of 64 bytes");
	/* Counts up to 2^53 (exact in JSON) are taken; past it refused. */
	expect_ok(AGENT("\"cpu_ns\":9007199254740992"));
	expect(AGENT("\"cpu_ns\":9007199254740994"), 400, "agent.cpu_ns is out of range");
	free(body);
}

static void test_health_exit_kinds(void **state)
{
	static const char *const eject[] = { "error", "error_bpf", "error_stall", "sysrq", "unreg_kern" };
	static const char *const keep[] = { "done", "unreg", "unreg_bpf", "unknown" };

	for (size_t i = 0; i < sizeof(eject) / sizeof(eject[0]); i++) {
		assert_true(report_exit_kind_index(eject[i]) >= 0);
		assert_true(report_exit_is_ejection(eject[i]));
	}
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		assert_true(report_exit_kind_index(keep[i]) >= 0);
		assert_false(report_exit_is_ejection(keep[i]));
	}
	assert_int_equal(report_exit_kind_index("ERROR"), -1);
	assert_int_equal(report_exit_kind_index(NULL), -1);
	assert_null(report_exit_kinds[REPORT_EXIT_KINDS]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_valid_becomes_canonical_json),
		cmocka_unit_test(test_health_absent_from_older_reports),
		cmocka_unit_test(test_health_bad_input_names_the_field),
		cmocka_unit_test(test_health_limits_at_and_past),
		cmocka_unit_test(test_health_exit_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
