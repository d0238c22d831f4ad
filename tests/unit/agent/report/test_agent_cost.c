/* test_agent_cost.c - the pure parts of agent/report/agent_cost.c: finding a
 * program id in fdinfo text (a program's fd, a link's, a plain file's, text
 * cut short or malformed), scaling counts measured over part of an interval
 * to all of it, how long statistics count as on when someone else holds the
 * sysctl, and program names kept to the report's alphabet. Then the collector
 * itself on this kernel: cpu_ns follows CPU burnt in the interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "agent/report/agent_cost.h"

#define FIND(lit, id) agent_cost_fdinfo_prog_id(lit, sizeof(lit) - 1, id)

static void test_fdinfo_prog_and_link_name_their_program(void **state)
{
	uint32_t id = 0;

	assert_int_equal(FIND("pos:\t0\nflags:\t02000002\nprog_type:\t26\nprog_tag:\te1a40fee5b340cb9\n"
			      "prog_id:\t11802\nrun_time_ns:\t79697\nrun_cnt:\t39\n",
			      &id),
			 1);
	assert_int_equal(id, 11802);
	assert_int_equal(FIND("pos:\t0\nlink_type:\traw_tracepoint\nlink_id:\t6632\nprog_id:\t42\n"
			      "tp_name:\tsched_wakeup\n",
			      &id),
			 1);
	assert_int_equal(id, 42);
	/* the last line without its newline */
	assert_int_equal(FIND("prog_id:\t4294967295", &id), 1);
	assert_int_equal(id, 4294967295u);
}

static void test_fdinfo_without_valid_id_is_not_a_program(void **state)
{
	uint32_t id = 7;

	assert_int_equal(FIND("pos:\t0\nflags:\t02100000\nmnt_id:\t25\nino:\t12\n", &id), 0);
	assert_int_equal(FIND("", &id), 0);
	assert_int_equal(FIND("prog_id:", &id), 0);
	assert_int_equal(FIND("prog_id:\t\n", &id), 0);
	assert_int_equal(FIND("prog_id:\t4294967296\n", &id), 0); /* past 32 bits */
	assert_int_equal(FIND("prog_id:\t0\n", &id), 0);          /* ids start at 1 */
	assert_int_equal(FIND("prog_id:\t12x\n", &id), 0);
	assert_int_equal(FIND("prog_id:\t-3\n", &id), 0);
	assert_int_equal(FIND("xprog_id:\t5\n", &id), 0); /* a key that merely ends alike */
	assert_int_equal(id, 7);
	/* the length is the end even when the text goes on */
	assert_int_equal(agent_cost_fdinfo_prog_id("prog_id:\t5\n", 8, &id), 0);
	assert_int_equal(agent_cost_fdinfo_prog_id("prog_id:\t59\n", 10, &id), 1);
	assert_int_equal(id, 5);
}

static void test_scale_to_the_whole_interval(void **state)
{
	/* 1 s of 10 s sampled: x10 */
	assert_int_equal(agent_cost_scale(1234, 1000000000ull, 10000000000ull), 12340);
	/* rounded, not truncated: 1 of 3 s sampled, 2 counts -> 6; 1 count over 1.5 of 10 s -> 6.67 -> 7 */
	assert_int_equal(agent_cost_scale(2, 1000000000ull, 3000000000ull), 6);
	assert_int_equal(agent_cost_scale(1, 1500000000ull, 10000000000ull), 7);
	/* nothing sampled, or all of it: the count as measured */
	assert_int_equal(agent_cost_scale(99, 0, 10000000000ull), 99);
	assert_int_equal(agent_cost_scale(99, 10000000000ull, 10000000000ull), 99);
	assert_int_equal(agent_cost_scale(99, 20000000000ull, 10000000000ull), 99);
	/* large counts neither overflow nor lose their magnitude */
	assert_int_equal(agent_cost_scale(1ull << 50, 1000000000ull, 4000000000ull), 1ull << 52);
	assert_int_equal(agent_cost_scale(UINT64_MAX / 2, 1, 10), UINT64_MAX);
}

static void test_sampled_is_the_interval_when_others_hold_stats(void **state)
{
	assert_int_equal(agent_cost_sampled_ns(1000, 10000, true, true), 10000);
	/* turned on or off mid-interval: only our own windows are known to have run */
	assert_int_equal(agent_cost_sampled_ns(1000, 10000, false, true), 1000);
	assert_int_equal(agent_cost_sampled_ns(1000, 10000, true, false), 1000);
	assert_int_equal(agent_cost_sampled_ns(1000, 10000, false, false), 1000);
	/* never more than the interval */
	assert_int_equal(agent_cost_sampled_ns(10001, 10000, false, false), 10000);
}

static void test_prog_names_keep_the_report_alphabet(void **state)
{
	char out[65];

	agent_cost_prog_name("schedio_rq_swtc", 1, out, sizeof(out));
	assert_string_equal(out, "schedio_rq_swtc");
	agent_cost_prog_name("a.b-c d", 1, out, sizeof(out));
	assert_string_equal(out, "a.b_c_d");
	agent_cost_prog_name("", 314, out, sizeof(out));
	assert_string_equal(out, "prog_314");
	agent_cost_prog_name("abcdef", 1, out, 4);
	assert_string_equal(out, "abc");
}

static bool stats_sysctl_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v == 1;
}

/* The collector on this process: cpu_ns covers CPU spent between two collections (unprivileged:
 * without CAP_SYS_ADMIN the statistics sampler only logs; the CPU and RSS figures do not need it). */
static void test_collector_counts_cpu_spent_in_the_interval(void **state)
{
	struct agent_options opt = { .bpf_stats_sample_ms = 0, .bpf_stats_period_ms = 10000 };
	cJSON *rep = cJSON_CreateObject(), *agent = cJSON_AddObjectToObject(rep, "agent"), *scratch;
	struct timespec t0, t;
	void *st = NULL;
	double cpu;

	assert_int_equal(agent_cost_collector.open(&opt, &st), 0);
	scratch = cJSON_CreateObject(); /* the collection that starts the interval: no "agent" */
	assert_int_equal(agent_cost_collector.collect(st, scratch), 0);
	assert_null(scratch->child);
	cJSON_Delete(scratch);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do /* burn 50 ms of CPU */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 50000000L);
	assert_int_equal(agent_cost_collector.collect(st, rep), 0);
	cpu = cJSON_GetNumberValue(cJSON_GetObjectItem(agent, "cpu_ns"));
	assert_true(cpu >= 50e6 && cpu < 60e6);
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(agent, "rss_bytes")) > 0);
	/* No sampling of our own: nothing sampled, unless kernel.bpf_stats_enabled is on for everybody. */
	if (!stats_sysctl_on())
		assert_int_equal(
		    cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(agent, "bpf"), "sampled_ns")), 0);
	agent_cost_collector.close(st);
	cJSON_Delete(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdinfo_prog_and_link_name_their_program),
		cmocka_unit_test(test_fdinfo_without_valid_id_is_not_a_program),
		cmocka_unit_test(test_scale_to_the_whole_interval),
		cmocka_unit_test(test_sampled_is_the_interval_when_others_hold_stats),
		cmocka_unit_test(test_prog_names_keep_the_report_alphabet),
		cmocka_unit_test(test_collector_counts_cpu_spent_in_the_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
