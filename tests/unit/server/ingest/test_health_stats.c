/* test_health_stats.c - the issue-17 /metrics counters (server/ingest/health_stats.c):
 * nothing is written before a report carried the fields; sums over reports
 * come out exactly, as Prometheus text with HELP and TYPE once per family;
 * a replayed older report adds to the counters but does not move the RSS
 * gauge back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "server/ingest/health_stats.h"

struct text {
	char s[16384];
	size_t n;
};

static void collect(void *arg, const char *text, size_t len)
{
	struct text *t = arg;

	assert_true(t->n + len < sizeof(t->s));
	memcpy(t->s + t->n, text, len);
	t->n += len;
	t->s[t->n] = '\0';
}

static const char *output(struct text *t)
{
	t->n = 0;
	t->s[0] = '\0';
	health_stats_write(collect, t);
	return t->s;
}

static void test_health_stats_nothing_without_reports(void **state)
{
	struct text t;

	health_stats_reset();
	health_stats_add("h", 0, NULL, NULL);
	assert_string_equal(output(&t), "");
}

static void test_health_stats_sums_exactly(void **state)
{
	struct text t;

	health_stats_reset();
	health_stats_add("b", 2000,
			 "{\"nr_rejected\":2,\"events\":{\"x\":3},\"l3\":[{\"wait_ns\":1500000000,\"waits\":1,"
			 "\"idle_sibling_wait_ns\":500000000,\"idle_sibling_waits\":1}],"
			 "\"agent\":{\"cpu_ns\":1000000,\"rss_bytes\":10,\"bpf\":{\"programs\":[{\"name\":\"p\","
			 "\"run_cnt\":4,\"run_time_ns\":250}]}}}",
			 "[{\"ops\":\"s\",\"t_ms\":1,\"kind\":\"error\",\"reason\":\"\",\"message\":\"\"}]");
	/* An older report replayed late: counted, but the gauge keeps the newer RSS. */
	health_stats_add(
	    "b", 1000, "{\"nr_rejected\":1,\"events\":{\"x\":1,\"y\":0},\"agent\":{\"rss_bytes\":99}}",
	    "[{\"ops\":\"s\",\"t_ms\":1,\"kind\":\"error\"},{\"ops\":\"s\",\"t_ms\":2,\"kind\":\"done\"}]");
	health_stats_add("a\"q", 5, "{\"agent\":{\"cpu_ns\":7}}", NULL);
	assert_string_equal(
	    output(&t),
	    "# HELP schedio_scx_events_total sched_ext event counters (/sys/kernel/sched_ext/root/events) summed "
	    "over stored reports.\n"
	    "# TYPE schedio_scx_events_total counter\n"
	    "schedio_scx_events_total{host_id=\"b\",event=\"x\"} 4\n"
	    "schedio_scx_events_total{host_id=\"b\",event=\"y\"} 0\n"
	    "# HELP schedio_scx_rejected_total Tasks sched_ext rejected (nr_rejected deltas) summed over stored "
	    "reports.\n"
	    "# TYPE schedio_scx_rejected_total counter\n"
	    "schedio_scx_rejected_total{host_id=\"b\"} 3\n"
	    "# HELP schedio_scx_exits_total sched_ext scheduler exits (ejections and unloads) by exit kind.\n"
	    "# TYPE schedio_scx_exits_total counter\n"
	    "schedio_scx_exits_total{host_id=\"b\",kind=\"done\"} 1\n"
	    "schedio_scx_exits_total{host_id=\"b\",kind=\"error\"} 2\n"
	    "# HELP schedio_agent_cpu_seconds_total CPU time (user + system) the agent used.\n"
	    "# TYPE schedio_agent_cpu_seconds_total counter\n"
	    "schedio_agent_cpu_seconds_total{host_id=\"a\\\"q\"} 0.000000007\n"
	    "schedio_agent_cpu_seconds_total{host_id=\"b\"} 0.001000000\n"
	    "# HELP schedio_agent_rss_bytes The agent's resident set at the end of its latest report.\n"
	    "# TYPE schedio_agent_rss_bytes gauge\n"
	    "schedio_agent_rss_bytes{host_id=\"b\"} 10\n"
	    "# HELP schedio_agent_bpf_run_seconds_total Run time of the agent's BPF programs (scaled from the "
	    "sampled share of each interval).\n"
	    "# TYPE schedio_agent_bpf_run_seconds_total counter\n"
	    "schedio_agent_bpf_run_seconds_total{host_id=\"b\",program=\"p\"} 0.000000250\n"
	    "# HELP schedio_agent_bpf_runs_total Runs of the agent's BPF programs (scaled from the sampled share "
	    "of each interval).\n"
	    "# TYPE schedio_agent_bpf_runs_total counter\n"
	    "schedio_agent_bpf_runs_total{host_id=\"b\",program=\"p\"} 4\n"
	    "# HELP schedio_l3_wait_seconds_total Runqueue wait of tasks on the CPUs of an L3 domain (domain: its "
	    "index in host.l3_domains).\n"
	    "# TYPE schedio_l3_wait_seconds_total counter\n"
	    "schedio_l3_wait_seconds_total{host_id=\"b\",domain=\"0\"} 1.500000000\n"
	    "# HELP schedio_l3_idle_sibling_wait_seconds_total The part of that wait during which another CPU of "
	    "the same L3 domain was idle.\n"
	    "# TYPE schedio_l3_idle_sibling_wait_seconds_total counter\n"
	    "schedio_l3_idle_sibling_wait_seconds_total{host_id=\"b\",domain=\"0\"} 0.500000000\n");
	health_stats_reset();
	assert_string_equal(output(&t), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_stats_nothing_without_reports),
		cmocka_unit_test(test_health_stats_sums_exactly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
