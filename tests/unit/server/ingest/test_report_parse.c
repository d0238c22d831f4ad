/* test_report_parse.c - report checking (server/ingest/report_parse.c): a valid report becomes
 * blobs that decode to what was sent; each kind of bad input is refused with
 * the right status and a message naming the field or the limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "server/series/iocost_set.h"
#include "server/ingest/report_parse.h"
#include "server/series/runqlat_set.h"

#define HEAD                                                                                                           \
	"{\"schema\":\"schedio.report.v1\",\"seq\":3,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\"},"                    \
	"\"interval\":{\"start_ms\":1000,\"end_ms\":11000}"

static int parse(const char *body, struct report *rep, char *err)
{
	return report_parse(body, strlen(body), rep, err, 512);
}

static void test_report_valid_decodes_to_what_was_sent(void **state)
{
	const char *body =
	    HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
		 "\"cgroups\":[{\"path\":\"/a\",\"count\":6,\"buckets\":[[40,1],[10,2],[40,3]]}]},"
		 "\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"rusty\"},"
		 "\"iocost\":{\"disks\":[{\"dev\":\"8:0\",\"name\":\"sda\",\"model\":\"SSD X\",\"enabled\":true,"
		 "\"cost_model\":{\"ctrl\":\"user\"},\"vrate_pct\":99.5}],"
		 "\"cgroups\":[{\"path\":\"/a\",\"dev\":\"8:0\",\"weight\":100,\"usage_pct\":12.25}]},"
		 "\"unknown_field\":{\"ignored\":true}}";
	struct report rep;
	struct runqlat_set s = { 0 };
	struct iocost_set io = { 0 };
	char err[512];
	double v;

	assert_int_equal(parse(body, &rep, err), 0);
	assert_string_equal(rep.machine_id, "m1");
	assert_string_equal(rep.sched_group, "rusty");
	assert_int_equal(rep.seq, 3);
	assert_int_equal(runqlat_set_add_blob(&s, rep.series.p, rep.series.len, NULL, NULL), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0]->hist.buckets[10], 2);
	assert_int_equal(s.v[0]->hist.buckets[40], 4);
	assert_int_equal(runqlat_set_add_blob(&s, rep.host_hist.p, rep.host_hist.len, NULL, NULL), 0);
	assert_int_equal(s.v[1]->kind, RUNQLAT_HOST);
	assert_int_equal(hist_total(s.v[1]->hist.buckets), 6);
	assert_int_equal(iocost_set_add_blob(&io, rep.iocost.p, rep.iocost.len), 0);
	assert_int_equal(io.n, 2);
	assert_true(iocost_row_value(io.v[1], IOCOST_USAGE, &v));
	assert_true(v > 12.24 && v < 12.26);
	assert_non_null(strstr(rep.disks_json, "\"model\":\"SSD X\""));
	assert_non_null(strstr(rep.disks_json, "\"ctrl\":\"user\""));
	runqlat_set_free(&s);
	iocost_set_free(&io);
	report_free(&rep);
}

static void test_report_takes_utf8_names(void **state)
{
	struct report rep;
	char err[512];

	/* 2-, 3- and 4-byte sequences at the edges of their ranges */
	assert_int_equal(parse("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"\xc2\x80\xdf\xbf\","
			       "\"hostname\":\"h\xc3\xa9\xe2\x82\xac\xef\xbf\xbf\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"},"
			       "\"interval\":{\"start_ms\":1,\"end_ms\":2}}",
			       &rep, err),
			 0);
	assert_string_equal(rep.hostname, "h\xc3\xa9\xe2\x82\xac\xef\xbf\xbf\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
	report_free(&rep);
}

static void expect(const char *body, int status, const char *needle)
{
	struct report rep;
	char err[512];

	assert_int_equal(parse(body, &rep, err), status);
	if (!strstr(err, needle))
		fail_msg("'%s' does not mention '%s'", err, needle);
	report_free(&rep);
}

static void test_report_bad_input_names_the_problem(void **state)
{
	char big[6000];

	expect("{\"schema\":", 400, "not valid JSON");
	expect("[1,2]", 400, "JSON object");
	expect(HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
		    "\"cgroups\":[{\"path\":\"a.slice\",\"count\":1,\"buckets\":[[40,1]]}]}}",
	       400, "runqlat.cgroups[0].path must start with '/'");
	expect("{\"seq\":1}", 400, "missing required field schema");
	expect("{\"schema\":\"schedio.report.v1\",\"host\":{\"id\":\"a\",\"hostname\":\"b\"}}", 400,
	       "missing required field seq");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"hostname\":\"b\"},\"interval\":{}}", 400,
	       "missing required field host.id");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"b\"},"
	       "\"interval\":{\"start_ms\":1}}",
	       400, "missing required field interval.end_ms");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":\"1\"}", 400, "seq must be an integer");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":0}", 400, "seq is out of range");
	expect("{\"schema\":\"schedio.report.v2\",\"seq\":1}", 422, "unknown report schema");
	expect(HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":5,\"max_value_power\":36}}}", 422,
	       "unknown histogram layout");
	expect(HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
		    "\"cgroups\":[{\"path\":\"/\",\"buckets\":[[528,1]]}]}}",
	       400, "runqlat.cgroups[0].buckets[0]");
	expect(
	    "{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"b\",\"cpus\":\"two\"},"
	    "\"interval\":{\"start_ms\":1,\"end_ms\":2}}",
	    400, "host.cpus must be an integer");
	expect(HEAD ",\"iocost\":{\"cgroups\":[{\"path\":\"/\"}]}}", 400, "iocost.cgroups[0].dev");
	/* strings must be well-formed UTF-8: a stray continuation byte, an overlong
	 * form, a surrogate, a code point past U+10FFFF, a sequence cut short */
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"b\x80\"}}", 400,
	       "UTF-8");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"\xc0\xaf\"}}", 400,
	       "UTF-8");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"\xed\xa0\x80\"}}",
	       400, "UTF-8");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"\xf4\x90\x80\x80\"}}",
	       400, "UTF-8");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"\xe2\x82\"}}", 400,
	       "UTF-8");
	memset(big, 'x', sizeof(big));
	snprintf(big, sizeof(big),
		 HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
		      "\"cgroups\":[{\"path\":\"/%05000d\"}]}}",
		 0);
	expect(big, 400, "limit of 4096 bytes");
}

/* delivery.dropped is kept as sent; absent is 0; a negative or non-integer count is refused. */
static void test_report_delivery_dropped(void **state)
{
	struct report rep;
	char err[512];

	assert_int_equal(parse(HEAD ",\"delivery\":{\"dropped\":7}}", &rep, err), 0);
	assert_int_equal(rep.dropped, 7);
	report_free(&rep);
	assert_int_equal(parse(HEAD ",\"delivery\":{}}", &rep, err), 0);
	assert_int_equal(rep.dropped, 0);
	report_free(&rep);
	assert_int_equal(parse(HEAD "}", &rep, err), 0);
	assert_int_equal(rep.dropped, 0);
	report_free(&rep);
	expect(HEAD ",\"delivery\":{\"dropped\":-1}}", 400, "delivery.dropped is out of range");
	expect(HEAD ",\"delivery\":{\"dropped\":\"3\"}}", 400, "delivery.dropped must be an integer");
	expect(HEAD ",\"delivery\":[1]}", 400, "delivery must be an object");
}

#define RQ0 HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
#define IOC0 HEAD ",\"iocost\":{"

/* Fields the server does not store are still checked as the schema states
 * them (types, ranges, enums, patterns, required members, no null), so what
 * it stores the schema also passes; each refusal names the member. */
static void test_report_refuses_what_the_schema_refuses(void **state)
{
	struct report rep;
	char err[512];

	(void)state;
	expect(RQ0 "\"attach\":5}}", 400, "runqlat.attach must be a string");
	expect(RQ0 "\"attach\":\"kprobe\"}}", 400, "runqlat.attach must be one of tp_btf, raw_tp");
	expect(RQ0 "\"cpus\":[{\"cpu\":0,\"p50_ns\":\"3\"}]}}", 400, "runqlat.cpus[0].p50_ns must be an integer");
	expect(RQ0 "\"cpus\":[{\"cpu\":0,\"p999_ns\":-1}]}}", 400, "runqlat.cpus[0].p999_ns is out of range");
	expect(RQ0 "\"cpus\":null}}", 400, "runqlat.cpus must not be null");
	expect(RQ0 "\"by_scheduler\":null}}", 400, "runqlat.by_scheduler must not be null");
	expect(IOC0 "\"source\":\"guess\"}}", 400, "iocost.source must be one of tracepoints, weights");
	expect(IOC0 "\"io_controller\":1}}", 400, "iocost.io_controller must be true or false");
	expect(IOC0 "\"parse_warnings\":-1}}", 400, "iocost.parse_warnings is out of range");
	expect(IOC0 "\"disks\":[{\"dev\":\"sda\",\"name\":\"sda\",\"enabled\":true}]}}", 400,
	       "iocost.disks[0].dev must be MAJOR:MINOR");
	expect(IOC0 "\"disks\":[{\"dev\":\"8:0\",\"name\":\"sda\"}]}}", 400,
	       "missing required field iocost.disks[0].enabled");
	expect(IOC0 "\"disks\":[{\"dev\":\"8:0\",\"name\":\"sda\",\"enabled\":null}]}}", 400,
	       "iocost.disks[0].enabled must not be null");
	expect(IOC0 "\"cgroups\":[{\"path\":\"/\",\"dev\":\"8:0\",\"rbytes\":-1}]}}", 400,
	       "iocost.cgroups[0].rbytes is out of range");
	expect(IOC0 "\"cgroups\":[{\"path\":\"/\",\"dev\":\"8:0\",\"wait_us\":-1}]}}", 400,
	       "iocost.cgroups[0].wait_us is out of range");
	expect(IOC0 "\"cgroups\":[{\"path\":\"/\",\"dev\":\"8:0\",\"hweight_source\":\"x\"}]}}", 400,
	       "iocost.cgroups[0].hweight_source must be one of");
	expect(IOC0 "\"cgroups\":[{\"path\":\"/\",\"dev\":\"8:0\",\"active_pct\":\"1\"}]}}", 400,
	       "iocost.cgroups[0].active_pct must be a number");
	expect(HEAD ",\"sched_ext\":{\"ops\":null}}", 400, "missing required field sched_ext.state");
	expect(HEAD ",\"sched_ext\":{\"state\":\"disabled\"}}", 400, "missing required field sched_ext.ops");
	expect(HEAD ",\"sched_ext\":{\"state\":null,\"ops\":null}}", 400, "sched_ext.state must not be null");
	expect(HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"a\",\"transitions\":[{\"t_ms\":1,"
		    "\"state\":\"enabled\"}]}}",
	       400, "missing required field sched_ext.transitions[0].ops");
	expect(HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"a\",\"transitions\":[{\"t_ms\":\"1\","
		    "\"state\":\"enabled\",\"ops\":null}]}}",
	       400, "sched_ext.transitions[0].t_ms must be an integer");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"b\","
	       "\"l3_domains\":[{\"cpus\":[0],\"size_kb\":-1}]},\"interval\":{\"start_ms\":1,\"end_ms\":2}}",
	       400, "host.l3_domains[0].size_kb is out of range");
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":1,\"host\":{\"id\":\"a\",\"hostname\":\"b\","
	       "\"l3_domains\":[{\"cpus\":[0,-1]}]},\"interval\":{\"start_ms\":1,\"end_ms\":2}}",
	       400, "host.l3_domains[0].cpus[1] must be a CPU number");
	expect(HEAD ",\"agent\":null}", 400, "agent must not be null");
	/* an unknown member may be anything, null too (newer agents) */
	assert_int_equal(parse(HEAD ",\"host2\":null}", &rep, err), 0);
	report_free(&rep);
	/* null stays the value of the members whose schema has it */
	assert_int_equal(parse(HEAD ",\"sched_ext\":{\"state\":\"disabled\",\"ops\":null,\"transitions\":[{\"t_ms\":1,"
				    "\"state\":\"enabled\",\"ops\":null}]}}",
			       &rep, err),
			 0);
	assert_null(rep.sched_ops);
	report_free(&rep);
}
#undef RQ0
#undef IOC0

/* agent.incarnation is kept as sent; absent is "" (null is refused); anything but 32 lowercase hex digits is
 * refused, since it decides with host and seq whether a report is a duplicate. */
/* An object that names a member twice is refused wherever it is, known field
 * or not, with its place: a validator keeping the last and this server the
 * first would read two different reports. */
static void test_report_duplicate_names_refused(void **state)
{
	char big[4096], *p = big;
	int i;

	(void)state;
	expect("{\"schema\":\"schedio.report.v1\",\"seq\":3,\"seq\":4,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\"},"
	       "\"interval\":{\"start_ms\":1000,\"end_ms\":11000}}",
	       400, "seq is given twice");
	expect(HEAD ",\"iocost\":{\"disks\":[{\"dev\":\"8:0\",\"name\":\"sda\",\"enabled\":true,\"model\":\"SSD X\","
		    "\"model\":{\"ctrl\":\"user\"}}]}}",
	       400, "iocost.disks[0].model is given twice");
	expect(HEAD ",\"x\":[{},[{\"y\":1,\"y\":1}]]}", 400, "x[1][0].y is given twice");
	/* sections that check their own names keep their messages */
	expect(HEAD ",\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"s\",\"events\":{\"a\":1,\"a\":2}}}", 400,
	       "sched_ext.events.a is given twice");
	/* a large object is sorted, not compared pairwise: the duplicate is found at either end */
	p += snprintf(p, sizeof(big), "%s,\"x\":{", HEAD);
	for (i = 0; i < 200; i++)
		p += snprintf(p, sizeof(big) - (size_t)(p - big), "\"k%d\":%d,", i, i);
	snprintf(p, sizeof(big) - (size_t)(p - big), "\"k0\":0}}");
	expect(big, 400, "x.k0 is given twice");
	snprintf(p, sizeof(big) - (size_t)(p - big), "\"k200\":0}}");
	{
		struct report rep;
		char err[512];

		assert_int_equal(parse(big, &rep, err), 0);
		report_free(&rep);
	}
}

static void test_report_agent_incarnation(void **state)
{
	struct report rep;
	char err[512];

	(void)state;
	assert_int_equal(parse(HEAD ",\"agent\":{\"version\":\"1\",\"incarnation\":"
				    "\"0123456789abcdef0123456789abcdef\"}}",
			       &rep, err),
			 0);
	assert_string_equal(rep.incarnation, "0123456789abcdef0123456789abcdef");
	assert_string_equal(rep.agent_version, "1");
	report_free(&rep);
	assert_int_equal(parse(HEAD ",\"agent\":{\"version\":\"1\"}}", &rep, err), 0);
	assert_string_equal(rep.incarnation, "");
	report_free(&rep);
	/* null is no value the schema has here: leave the member out instead */
	expect(HEAD ",\"agent\":{\"incarnation\":null}}", 400, "agent.incarnation must not be null");
	assert_int_equal(parse(HEAD "}", &rep, err), 0);
	assert_string_equal(rep.incarnation, "");
	report_free(&rep);
	expect(HEAD ",\"agent\":{\"incarnation\":42}}", 400, "agent.incarnation must be a string");
	expect(HEAD ",\"agent\":{\"incarnation\":\"\"}}", 400, "agent.incarnation must be 32 lowercase hex digits");
	expect(HEAD ",\"agent\":{\"incarnation\":\"0123456789abcdef\"}}", 400,
	       "agent.incarnation must be 32 lowercase hex digits");
	expect(HEAD ",\"agent\":{\"incarnation\":\"0123456789ABCDEF0123456789ABCDEF\"}}", 400,
	       "agent.incarnation must be 32 lowercase hex digits");
	expect(HEAD ",\"agent\":{\"incarnation\":\"0123456789abcdef0123456789abcdeg\"}}", 400,
	       "agent.incarnation must be 32 lowercase hex digits");
	expect(HEAD ",\"agent\":{\"incarnation\":\"0123456789abcdef0123456789abcdef0\"}}", 400,
	       "agent.incarnation is longer than the limit of 32 bytes");
}

#define RQ                                                                                                             \
	"\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"                                       \
	"\"cpus\":[{\"cpu\":0,\"count\":10,\"buckets\":[[20,4],[60,6]]}],"
#define HEAD_K(k)                                                                                                      \
	"{\"schema\":\"schedio.report.v1\",\"seq\":3,\"host\":{\"id\":\"m1\",\"hostname\":\"h1\","                     \
	"\"kernel\":\"" k "\"},\"interval\":{\"start_ms\":1000,\"end_ms\":11000},"                                     \
	"\"sched_ext\":{\"state\":\"enabled\",\"ops\":\"scx_fifo\"},"

/* The split of body's host_hist, as runqlat_set_add_sched yields it. */
static void split_of(const char *body, struct runqlat_set *got)
{
	struct report rep;
	char err[512];

	if (parse(body, &rep, err))
		fail_msg("refused: %s", err);
	assert_int_equal(runqlat_set_add_sched(got, rep.host_hist.p, rep.host_hist.len, rep.sched_group), 0);
	report_free(&rep);
}

/* null ops is the kernel's fair class by kernel version; entries of one scheduler merge. */
static void test_report_by_scheduler_splits_the_host(void **state)
{
	struct runqlat_set got = { 0 };

	split_of(HEAD_K("6.12.0-amd64") RQ "\"by_scheduler\":[{\"ops\":null,\"count\":4,\"buckets\":[[20,4]]},"
					   "{\"ops\":\"scx_fifo\",\"count\":2,\"buckets\":[[60,2]],\"p50_ns\":1},"
					   "{\"ops\":\"scx_fifo\",\"count\":4,\"buckets\":[[60,4]]}]}}",
		 &got);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.v[0]->key, "eevdf");
	assert_int_equal(got.v[0]->hist.count, 4);
	assert_int_equal(got.v[0]->hist.buckets[20], 4);
	assert_string_equal(got.v[1]->key, "scx_fifo");
	assert_int_equal(got.v[1]->hist.count, 6);
	assert_int_equal(got.v[1]->hist.buckets[60], 6);
	runqlat_set_free(&got);
	split_of(HEAD_K("5.15.0") RQ "\"by_scheduler\":[{\"ops\":null,\"count\":4,\"buckets\":[[20,4]]},"
				     "{\"ops\":\"scx_fifo\",\"count\":6,\"buckets\":[[60,6]]}]}}",
		 &got);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.v[0]->key, "fair");
	runqlat_set_free(&got);
	split_of(HEAD_K("6.6.1") RQ "\"by_scheduler\":[{\"ops\":null,\"count\":10,\"buckets\":[[20,4],[60,6]]}]}}",
		 &got);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0]->key, "eevdf");
	assert_int_equal(got.v[0]->hist.count, 10);
	runqlat_set_free(&got);
	/* Absent: the whole host under the report's group. */
	split_of(HEAD_K("6.6.1") RQ "\"cgroups\":[]}}", &got);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0]->key, "scx_fifo");
	assert_int_equal(got.v[0]->hist.count, 10);
	runqlat_set_free(&got);
}

static void test_report_by_scheduler_bad_input(void **state)
{
	char big[16384];
	size_t o;

	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":null,\"count\":4,\"buckets\":[[20,4]]}]}}", 400,
	       "runqlat.by_scheduler counts add up to 4, but the host total is 10");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":null,\"count\":10,\"buckets\":[[20,4]]}]}}", 400,
	       "runqlat.by_scheduler buckets add up to 4");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":\"\",\"count\":10}]}}", 400,
	       "runqlat.by_scheduler[0].ops must be null or a non-empty string");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"count\":10}]}}", 400,
	       "runqlat.by_scheduler[0].ops must be null or a non-empty string");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":null},{\"ops\":7}]}}", 400,
	       "runqlat.by_scheduler[1].ops must be null");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[3]}}", 400, "runqlat.by_scheduler[0] must be an object");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":{}}}", 400, "runqlat.by_scheduler must be an array");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":null,\"count\":\"10\"}]}}", 400,
	       "runqlat.by_scheduler[0].count must be an integer");
	expect(HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":null,\"buckets\":[[999,1]]}]}}", 400,
	       "runqlat.by_scheduler[0].buckets[0]");
	o = (size_t)snprintf(big, sizeof(big), HEAD_K("6.12") RQ "\"by_scheduler\":[{\"ops\":\"");
	memset(big + o, 'x', 300);
	o += 300;
	snprintf(big + o, sizeof(big) - o, "\",\"count\":10}]}}");
	expect(big, 400, "runqlat.by_scheduler[0].ops is longer than the limit of 256 bytes");
	o = (size_t)snprintf(big, sizeof(big), HEAD_K("6.12") RQ "\"by_scheduler\":[");
	for (int i = 0; i < 65; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "%s{\"ops\":\"s%d\"}", i ? "," : "", i);
	snprintf(big + o, sizeof(big) - o, "]}}");
	expect(big, 400, "runqlat.by_scheduler has more than the limit of 64 entries");
}

/* body parsed with buckets scanned from text (the default) and through the tree: the same status,
 * message and stored bytes. */
static void same_both_ways(const char *body, int want_status)
{
	struct report a, b;
	char ea[512], eb[512];
	int sa, sb;

	sa = parse(body, &a, ea);
	report_parse_raw_buckets = false;
	sb = parse(body, &b, eb);
	report_parse_raw_buckets = true;
	if (sa != want_status || sa != sb)
		fail_msg("%s: status %d (text) and %d (tree), want %d: %s / %s", body, sa, sb, want_status,
			 sa ? ea : "", sb ? eb : "");
	if (sa)
		assert_string_equal(ea, eb);
	assert_int_equal(a.series.len, b.series.len);
	assert_int_equal(a.host_hist.len, b.host_hist.len);
	if (a.series.len)
		assert_memory_equal(a.series.p, b.series.p, a.series.len);
	if (a.host_hist.len)
		assert_memory_equal(a.host_hist.p, b.host_hist.p, a.host_hist.len);
	if (a.disks_json || b.disks_json)
		assert_string_equal(a.disks_json, b.disks_json);
	report_free(&a);
	report_free(&b);
}

static void test_report_buckets_text_and_tree_agree(void **state)
{
	static const char *const ok[] = {
		"[[40,1],[10,2],[40,3]]", "[ [ 1 , 2 ] ,\n\t[3,0]\r]", "[]",       "[[0,0]]", "[[1,2.0]]", "[[1e1,2]]",
		"[[1,123456789012345]]",  "[[1,1234567890123456]]",    "[[-0,1]]",
	};
	static const char *const bad[] = {
		"[[1]]",        "[[1,2,3]]",        "[[-1,2]]",    "[[1,-2]]",
		"[[1,2.5]]",    "[[9999,1]]",       "[[1,\"2\"]]", "[{\"a\":1}]",
		"[[1,2],null]", "[[1,2]],\"x\":[1", "[[01,2]]",    "[[1,123456789012345678]]",
	};
	char body[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(body, sizeof(body),
			 HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
			      "\"cgroups\":[{\"path\":\"/a\",\"count\":6,\"buckets\":%s}]}}",
			 ok[i]);
		same_both_ways(body, 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(body, sizeof(body),
			 HEAD ",\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},"
			      "\"cgroups\":[{\"path\":\"/a\",\"count\":6,\"buckets\":%s}]}}",
			 bad[i]);
		same_both_ways(body, 400);
	}
	/* "buckets" elsewhere: an object member named twice inside it is still found, and a disk's
	 * cost model stored as sent reads the same as through the tree. */
	same_both_ways(HEAD ",\"x\":{\"buckets\":[{\"a\":1,\"a\":2}]}}", 400);
	same_both_ways(HEAD ",\"iocost\":{\"disks\":[{\"dev\":\"8:0\",\"name\":\"sda\",\"enabled\":true,\"cost_model\":"
			    "{\"ctrl\":\"user\",\"buckets\":[ 1.0 , 2e1 ,\"\\u0041\"]}}]}}",
		       0);
	{
		struct report rep;
		char err[512];

		assert_int_equal(parse(HEAD ",\"iocost\":{\"disks\":[{\"dev\":\"8:0\",\"name\":\"sda\",\"enabled\":"
					    "true,\"cost_model\":{\"buckets\":[ 1.0 ,\"\\u0041\"]}}]}}",
				       &rep, err),
				 0);
		assert_non_null(strstr(rep.disks_json, "\"buckets\":[1,\"A\"]"));
		report_free(&rep);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_valid_decodes_to_what_was_sent),
		cmocka_unit_test(test_report_takes_utf8_names),
		cmocka_unit_test(test_report_bad_input_names_the_problem),
		cmocka_unit_test(test_report_delivery_dropped),
		cmocka_unit_test(test_report_refuses_what_the_schema_refuses),
		cmocka_unit_test(test_report_duplicate_names_refused),
		cmocka_unit_test(test_report_agent_incarnation),
		cmocka_unit_test(test_report_by_scheduler_splits_the_host),
		cmocka_unit_test(test_report_by_scheduler_bad_input),
		cmocka_unit_test(test_report_buckets_text_and_tree_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
