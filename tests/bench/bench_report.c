/* bench_report.c - see bench_report.h. */
#include "bench_report.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

static size_t put_head(char *head, size_t size, const char *prefix, unsigned host, unsigned long long seq,
		       long long start_ms, long long interval_ms)
{
	return (size_t)snprintf(head, size,
				"{\"schema\":\"schedio.report.v1\",\"seq\":%llu,\"agent\":{\"version\":\"bench\"},"
				"\"interval\":{\"start_ms\":%lld,\"end_ms\":%lld},\"host\":{\"id\":\"%s-%05u\","
				"\"hostname\":\"%s-%05u\",\"kernel\":\"6.1.0-bench\",\"arch\":\"x86_64\",\"cpus\":2,"
				"\"l3_domains\":[[0,1]]},\"sched_ext\":{\"state\":\"disabled\",\"ops\":null},",
				seq, start_ms, start_ms + interval_ms, prefix, host, prefix, host);
}

int bench_gz_tail_make(const char *tail, struct bench_gz_tail *out)
{
	z_stream zs = { 0 };
	size_t n = strlen(tail);

	memset(out, 0, sizeof(*out));
	if (deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	out->raw = malloc(deflateBound(&zs, n));
	if (!out->raw) {
		deflateEnd(&zs);
		return -1;
	}
	zs.next_in = (unsigned char *)tail;
	zs.avail_in = (uInt)n;
	zs.next_out = out->raw;
	zs.avail_out = (uInt)deflateBound(&zs, n);
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(out->raw);
		return -1;
	}
	out->raw_len = zs.total_out;
	out->plain_len = n;
	out->crc = crc32(crc32(0, NULL, 0), (const unsigned char *)tail, (uInt)n);
	deflateEnd(&zs);
	return 0;
}

/* The head's deflate stream, set up once and reset per report: a head is a few
 * hundred bytes, so a small window and hash (windowBits 9, memLevel 1) find its
 * matches as well, and setting up a full-size stream per report cost the load
 * generator more than the deflating. One thread (loadgen's) uses it. */
static z_stream head_zs;
static bool head_zs_ok;

char *bench_body_gzip(const char *prefix, unsigned host, unsigned long long seq, long long start_ms,
		      long long interval_ms, const struct bench_gz_tail *tail, size_t *len)
{
	static const unsigned char gz_header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	char head[512];
	size_t hl = put_head(head, sizeof(head), prefix, host, seq, start_ms, interval_ms), cap, o;
	unsigned long crc, isize;
	unsigned char *body;
	z_stream *zs = &head_zs;

	if (!head_zs_ok) {
		if (deflateInit2(zs, 6, Z_DEFLATED, -9, 1, Z_DEFAULT_STRATEGY) != Z_OK)
			return NULL;
		head_zs_ok = true;
	} else if (deflateReset(zs) != Z_OK) {
		return NULL;
	}
	cap = sizeof(gz_header) + deflateBound(zs, hl) + 16 + tail->raw_len + 8;
	body = malloc(cap);
	if (!body)
		return NULL;
	memcpy(body, gz_header, sizeof(gz_header));
	zs->next_in = (unsigned char *)head;
	zs->avail_in = (uInt)hl;
	zs->next_out = body + sizeof(gz_header);
	zs->avail_out = (uInt)(cap - sizeof(gz_header) - tail->raw_len - 8);
	/* A full flush ends byte-aligned with no final block and nothing later may refer back. */
	if (deflate(zs, Z_FULL_FLUSH) != Z_OK) {
		free(body);
		return NULL;
	}
	o = sizeof(gz_header) + zs->total_out;
	memcpy(body + o, tail->raw, tail->raw_len);
	o += tail->raw_len;
	crc = crc32_combine(crc32(crc32(0, NULL, 0), (const unsigned char *)head, (uInt)hl), tail->crc,
			    (z_off_t)tail->plain_len);
	isize = (unsigned long)(hl + tail->plain_len);
	for (int i = 0; i < 4; i++)
		body[o++] = (unsigned char)(crc >> (8 * i));
	for (int i = 0; i < 4; i++)
		body[o++] = (unsigned char)(isize >> (8 * i));
	*len = o;
	return (char *)body;
}

char *bench_body(const char *prefix, unsigned host, unsigned long long seq, long long start_ms, long long interval_ms,
		 const char *tail, size_t *len)
{
	char head[512];
	size_t hl, tl = strlen(tail);
	char *body;

	hl = put_head(head, sizeof(head), prefix, host, seq, start_ms, interval_ms);
	body = malloc(hl + tl + 1);
	if (!body)
		return NULL;
	memcpy(body, head, hl);
	memcpy(body + hl, tail, tl + 1);
	*len = hl + tl;
	return body;
}
