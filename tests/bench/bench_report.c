/* bench_report.c - see bench_report.h. */
#include "bench_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

static size_t put_hist(char *o, const char *head)
{
	size_t n = (size_t)sprintf(o, "%s", head);
	unsigned start = 80 + rnd(40), count = 0;

	n += (size_t)sprintf(o + n, "\"buckets\":[");
	for (int i = 0; i < 60; i++) {
		unsigned c = 1 + rnd(20);

		count += c;
		n += (size_t)sprintf(o + n, "%s[%u,%u]", i ? "," : "", start + i, c);
	}
	n += (size_t)sprintf(o + n, "],\"count\":%u,\"sum_ns\":%u,\"max_ns\":4000000}", count, count * 50000);
	return n;
}

/* Everything after the host section: runqlat and iocost, closed with "}". */
char *bench_tail(void)
{
	char *o = malloc(1 << 16), head[128];
	size_t n = 0;

	n += (size_t)sprintf(o + n,
			     "\"runqlat\":{\"layout\":{\"grouping_power\":4,\"max_value_power\":36},\"cgroups\":[");
	for (int i = 0; i < 20; i++) {
		snprintf(head, sizeof(head), "%s{\"path\":\"%s%d\",", i ? "," : "", i ? "/system.slice/svc" : "/", i);
		if (i == 0)
			snprintf(head, sizeof(head), "{\"path\":\"/\",");
		n += put_hist(o + n, head);
	}
	n += (size_t)sprintf(o + n, "],\"cpus\":[");
	for (int c = 0; c < 2; c++) {
		snprintf(head, sizeof(head), "%s{\"cpu\":%d,", c ? "," : "", c);
		n += put_hist(o + n, head);
	}
	n += (size_t)sprintf(o + n, "]},\"iocost\":{\"source\":\"weights\",\"disks\":[");
	for (int d = 0; d < 2; d++)
		n += (size_t)sprintf(
		    o + n,
		    "%s{\"dev\":\"253:%d\",\"name\":\"vd%c\",\"model\":\"BENCH SSD\",\"fwrev\":\"1.0\","
		    "\"size_bytes\":1000204886016,\"rotational\":false,\"enabled\":true,\"vrate_pct\":%u}",
		    d ? "," : "", d * 16, 'a' + d, 90 + rnd(20));
	n += (size_t)sprintf(o + n, "],\"cgroups\":[");
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < 10; i++)
			n += (size_t)sprintf(
			    o + n,
			    "%s{\"path\":\"/workload%d.slice\",\"dev\":\"253:%d\",\"weight\":%d,"
			    "\"usage_pct\":%u.%u,\"hweight_active_pct\":%u.5,\"hweight_inuse_pct\":%u.25,"
			    "\"wait_us\":%u,\"indebt_us\":%u,\"indelay_us\":%u}",
			    d || i ? "," : "", i, d * 16, 100 * (1 + i % 3), rnd(50), rnd(10), rnd(30), rnd(30),
			    rnd(5000), rnd(100), rnd(100));
	n += (size_t)sprintf(o + n, "]}}");
	o[n] = '\0';
	return o;
}

char *bench_body(const char *prefix, unsigned host, unsigned long long seq, long long start_ms, long long interval_ms,
		 const char *tail, size_t *len)
{
	char head[512];
	size_t hl, tl = strlen(tail);
	char *body;

	hl = (size_t)snprintf(head, sizeof(head),
			      "{\"schema\":\"schedio.report.v1\",\"seq\":%llu,\"agent\":{\"version\":\"bench\"},"
			      "\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld},\"host\":{\"id\":\"%s-%05u\","
			      "\"hostname\":\"%s-%05u\",\"kernel\":\"6.1.0-bench\",\"arch\":\"x86_64\",\"cpus\":2,"
			      "\"l3_domains\":[[0,1]]},\"sched_ext\":{\"state\":\"disabled\",\"ops\":null},",
			      seq, start_ms, start_ms + interval_ms, prefix, host, prefix, host);
	body = malloc(hl + tl + 1);
	if (!body)
		return NULL;
	memcpy(body, head, hl);
	memcpy(body + hl, tail, tl + 1);
	*len = hl + tl;
	return body;
}
