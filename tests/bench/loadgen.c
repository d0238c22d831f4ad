/* loadgen.c - a load generator for schedio-server's ingest and query API
 * (libcurl multi, one thread), for tests/bench/run.sh.
 *
 * Ingest: realistic reports (20 cgroups of ~60 non-zero buckets, 2 CPUs, 2
 * disks with 20 iocost cgroup rows) from --hosts simulated hosts at an
 * open-loop --rate: request i is due at t0 + i/rate, and its latency is
 * measured from when it was due, so a slow server cannot hide its queueing
 * (no coordinated omission). A body is a per-request head (seq, host,
 * interval) followed by one of a few pre-built tails, so generating load
 * costs almost nothing next to the server's work. --gzip sends them as agents
 * do, gzip level 6: each tail is deflated once and a body compresses only its
 * head (bench_body_gzip), so the load generator does not steal the server's CPU.
 * Burst: --burst N opens N connections at once and keeps them, sending
 * rounds of N simultaneous reports (the "held connections" check).
 * Closed loop: --closed N runs N senders for --duration, each sending its
 * next report as soon as the previous one was answered, so demand always
 * matches what the server can take; it counts answers per status, checks
 * that every 503 carries Retry-After, and with --log FILE writes one
 * "hostname seq status" line per answer (the overload test compares them
 * with what the database holds). SIGTERM ends a closed loop early: no new
 * report is sent, and those in flight are answered (or fail) and logged.
 * Query: --get PATH --repeat N times one GET sequentially. --dump prints one
 * realistic report body (for benchmarks that time the server's code directly).
 * --shuffle sends each round of --hosts reports (one interval of the fleet) in a
 * new random order instead of host after host: in a fleet whose agents
 * restarted at different times, the hosts that report in one commit are
 * scattered over the server's per-host indexes, not neighbours in them.
 * --seq-from N starts every host's seq at N, so a run continues the hosts of
 * a database bench_fill filled (--host-prefix fill) instead of resending
 * what it holds.
 * --timeline FILE (open loop) writes one line per second of the run, by when
 * requests were due: "second reports errors p50_ms p99_ms max_ms", so a slow
 * tail can be placed in time (a checkpoint, a rollup round).
 * Prints one line of figures; in the open loop, when a request failed, the
 * line ends with the count per status other than 200 (0: no answer).
 * Exits non-zero if any request failed.
 */
#include <curl/curl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_report.h"

/* Distinct report tails (histograms and iocost rows) sent round robin. The
 * server trains its blob dictionaries on the first reports it gets
 * (--blob-dict-samples, 1,000 by default): with a few tails repeated, a
 * dictionary would hold the test data itself and pack it as no fleet's reports
 * pack. With this many, a tail is about one sample among the 1,000. */
#define TAILS 1024

struct opts {
	const char *url, *token, *get;
	unsigned hosts, rate, duration_s, concurrency, burst, rounds, repeat, closed;
	const char *host_prefix, *log, *timeline;
	long long start_ms, interval_ms;
	int gzip;    /* --gzip: bodies sent gzip-compressed (Content-Encoding: gzip), as agents send them */
	int dump;    /* --dump: print one realistic report body and exit */
	int shuffle; /* --shuffle: each round of hosts in a new random order */
	unsigned long long seq_from; /* --seq-from: each host's first seq (continues a filled database) */
};

struct req {
	CURL *easy;
	char *body;
	size_t len;
	double due;
	long status;
	struct curl_slist *hdr;
	unsigned host;
	unsigned long long seq;
	int retry_after; /* the answer carried a Retry-After header */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t discard(char *p, size_t s, size_t n, void *u)
{
	return s * n;
}

static char *tails[TAILS];
static struct bench_gz_tail gz_tails[TAILS];

static void make_body(struct req *r, const struct opts *o, unsigned host, unsigned long long seq)
{
	long long start = o->start_ms + (long long)(seq - 1) * o->interval_ms;

	free(r->body);
	if (o->gzip)
		r->body = bench_body_gzip(o->host_prefix, host, seq, start, o->interval_ms,
					  &gz_tails[(host + seq) % TAILS], &r->len);
	else
		r->body =
		    bench_body(o->host_prefix, host, seq, start, o->interval_ms, tails[(host + seq) % TAILS], &r->len);
}

static unsigned *order; /* --shuffle: this round's order of hosts */
static unsigned long long order_rng = 0x9e3779b97f4a7c15ULL;

/* The host of the n-th report: rounds of every host once, each round in turn
 * (or, with --shuffle, in a new random order); n counts up by one a call. */
static unsigned host_of(const struct opts *o, unsigned long long n)
{
	unsigned i = (unsigned)(n % o->hosts);

	if (!order)
		return i;
	if (i == 0)
		for (unsigned k = o->hosts - 1; k > 0; k--) {
			unsigned j, t;

			order_rng ^= order_rng << 13;
			order_rng ^= order_rng >> 7;
			order_rng ^= order_rng << 17;
			j = (unsigned)(order_rng % (k + 1));
			t = order[k];
			order[k] = order[j];
			order[j] = t;
		}
	return order[i];
}

/* Each host's last seq sent: seq_from - 1 before the first report. */
static unsigned long long *new_seqs(const struct opts *o)
{
	unsigned long long *seqs = calloc(o->hosts, sizeof(*seqs));

	for (unsigned h = 0; seqs && o->seq_from > 1 && h < o->hosts; h++)
		seqs[h] = o->seq_from - 1;
	return seqs;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double q)
{
	if (!n)
		return 0;
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

static struct curl_slist *headers(const struct opts *o)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char auth[600];

	h = curl_slist_append(h, "Expect:");
	if (o->gzip)
		h = curl_slist_append(h, "Content-Encoding: gzip");
	if (o->token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", o->token);
		h = curl_slist_append(h, auth);
	}
	return h;
}

static void setup_post(struct req *r, const struct opts *o, struct curl_slist *hdr, const char *url)
{
	if (!r->easy) {
		r->easy = curl_easy_init();
		curl_easy_setopt(r->easy, CURLOPT_URL, url);
		curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
		curl_easy_setopt(r->easy, CURLOPT_TIMEOUT, 60L);
		curl_easy_setopt(r->easy, CURLOPT_TCP_NODELAY, 1L);
	}
	curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->body);
	curl_easy_setopt(r->easy, CURLOPT_POSTFIELDSIZE, (long)r->len);
}

/* One answer of the open loop, for --timeline. */
struct answer {
	double due, lat; /* seconds from the run's start; seconds waited */
	int failed;
};

/* --timeline: per second of due time, the answers' count, failures and latency percentiles. */
static int write_timeline(const char *path, struct answer *a, size_t n)
{
	FILE *f = fopen(path, "w");
	double *lat = calloc(n ? n : 1, sizeof(*lat));
	size_t i = 0;
	int rc = -1;

	if (!f || !lat)
		goto out;
	fprintf(f, "second reports errors p50_ms p99_ms max_ms\n");
	while (i < n) {
		long sec = (long)a[i].due;
		size_t k = 0, bad = 0;

		for (; i < n && (long)a[i].due == sec; i++) {
			lat[k++] = a[i].lat;
			bad += (size_t)a[i].failed;
		}
		qsort(lat, k, sizeof(*lat), cmp_d);
		fprintf(f, "%ld %zu %zu %.2f %.2f %.2f\n", sec, k, bad, pct(lat, k, 0.5) * 1e3, pct(lat, k, 0.99) * 1e3,
			lat[k - 1] * 1e3);
	}
	rc = 0;
out:
	if (f && fclose(f) != 0)
		rc = -1;
	free(lat);
	return rc;
}

static int cmp_due(const void *a, const void *b)
{
	double x = ((const struct answer *)a)->due, y = ((const struct answer *)b)->due;

	return (x > y) - (x < y);
}

/* Open-loop ingest at o->rate for o->duration_s (or rounds of o->burst at once). */
static int run_ingest(const struct opts *o)
{
	char url[1024];
	CURLM *multi = curl_multi_init();
	struct curl_slist *hdr = headers(o);
	unsigned slots = o->burst ? o->burst : o->concurrency;
	struct req *reqs = calloc(slots, sizeof(*reqs)), **idle = calloc(slots, sizeof(*idle));
	unsigned long long total =
	    o->burst ? (unsigned long long)o->burst * o->rounds : (unsigned long long)o->rate * o->duration_s;
	unsigned long long sent = 0, done = 0, errors = 0, *seqs = new_seqs(o);
	double *lat = calloc(total, sizeof(*lat)), t0, end;
	struct answer *ans = o->timeline ? calloc(total, sizeof(*ans)) : NULL;
	size_t nidle = slots;
	int running = 0;
	long statuses[600] = { 0 };

	snprintf(url, sizeof(url), "%s/api/v1/reports", o->url);
	for (unsigned i = 0; i < slots; i++)
		idle[i] = &reqs[i];
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)slots);
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)slots);
	t0 = now_s();
	while (done < total) {
		double now = now_s();
		CURLMsg *m;
		int left;

		while (sent < total && nidle > 0) {
			double due = o->burst ? now : t0 + (double)sent / o->rate;
			struct req *r;
			unsigned host;

			if (o->burst && sent % o->burst == 0 && sent > done)
				break; /* a round starts when the previous one has finished */
			if (!o->burst && due > now)
				break;
			r = idle[--nidle];
			host = host_of(o, sent);
			make_body(r, o, host, ++seqs[host]);
			setup_post(r, o, hdr, url);
			r->due = due;
			curl_multi_add_handle(multi, r->easy);
			sent++;
		}
		curl_multi_perform(multi, &running);
		while ((m = curl_multi_info_read(multi, &left))) {
			struct req *r;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &r->status);
			if (m->data.result != CURLE_OK || r->status != 200) {
				errors++;
				if (errors <= 5)
					fprintf(stderr, "loadgen: request failed: %s (HTTP %ld)\n",
						curl_easy_strerror(m->data.result), r->status);
			}
			statuses[r->status >= 0 && r->status < 600 ? r->status : 0]++;
			lat[done] = now_s() - r->due;
			if (ans)
				ans[done] = (struct answer){ .due = r->due - t0,
							     .lat = lat[done],
							     .failed = m->data.result != CURLE_OK || r->status != 200 };
			done++;
			curl_multi_remove_handle(multi, m->easy_handle);
			idle[nidle++] = r;
		}
		curl_multi_poll(multi, NULL, 0, o->burst ? 100 : 1, NULL);
	}
	end = now_s();
	qsort(lat, done, sizeof(*lat), cmp_d);
	printf("reports=%llu errors=%llu seconds=%.2f rate=%.0f/s latency_ms p50=%.2f p90=%.2f p99=%.2f max=%.2f%s",
	       done, errors, end - t0, (double)done / (end - t0), pct(lat, done, 0.5) * 1e3, pct(lat, done, 0.9) * 1e3,
	       pct(lat, done, 0.99) * 1e3, done ? lat[done - 1] * 1e3 : 0, o->burst ? " (burst)" : "");
	/* what the errors were, on the same line: "statuses=503:27,0:2" (0: no answer) */
	for (int st = 0, first = 1; errors && st < 600; st++)
		if (st != 200 && statuses[st]) {
			printf("%s%d:%ld", first ? " statuses=" : ",", st, statuses[st]);
			first = 0;
		}
	printf("\n");
	if (ans) {
		qsort(ans, done, sizeof(*ans), cmp_due);
		if (write_timeline(o->timeline, ans, done) < 0)
			fprintf(stderr, "loadgen: cannot write %s\n", o->timeline);
	}
	for (unsigned i = 0; i < slots; i++) {
		if (reqs[i].easy)
			curl_easy_cleanup(reqs[i].easy);
		free(reqs[i].body);
	}
	curl_multi_cleanup(multi);
	curl_slist_free_all(hdr);
	free(reqs);
	free(idle);
	free(seqs);
	free(lat);
	free(ans);
	return errors ? 1 : 0;
}

static size_t note_retry_after(char *p, size_t s, size_t n, void *u)
{
	struct req *r = u;

	if (s * n >= 12 && strncasecmp(p, "Retry-After:", 12) == 0)
		r->retry_after = 1;
	return s * n;
}

/* Queues sender r's next report (the next seq of the next host in turn). */
static void closed_send(CURLM *multi, struct req *r, const struct opts *o, struct curl_slist *hdr, const char *url,
			unsigned long long *seqs, unsigned long long n)
{
	r->host = host_of(o, n);
	r->seq = ++seqs[r->host];
	make_body(r, o, r->host, r->seq);
	setup_post(r, o, hdr, url);
	curl_easy_setopt(r->easy, CURLOPT_HEADERFUNCTION, note_retry_after);
	curl_easy_setopt(r->easy, CURLOPT_HEADERDATA, r);
	r->retry_after = 0;
	r->due = now_s();
	curl_multi_add_handle(multi, r->easy);
}

static volatile sig_atomic_t closed_stop;

/* SIGTERM: the closed loop sends nothing more. */
static void on_term(int sig)
{
	(void)sig;
	closed_stop = 1;
}

/* Closed loop: o->closed senders for o->duration_s (or until SIGTERM), each sending again once
 * answered. A sender resends at once after a 503, so the demand never drops below what the
 * server can take. */
static int run_closed(const struct opts *o)
{
	char url[1024];
	CURLM *multi = curl_multi_init();
	struct curl_slist *hdr = headers(o);
	struct req *reqs = calloc(o->closed, sizeof(*reqs));
	unsigned long long sent = 0, done = 0, nlat = 0, cap = 1 << 16, *seqs = new_seqs(o);
	unsigned long long ok = 0, shed = 0, shed_no_retry_after = 0, other = 0;
	double *lat = malloc(cap * sizeof(*lat)), t0, end;
	FILE *log = o->log ? fopen(o->log, "w") : NULL;
	int running = 0;

	if (!reqs || !seqs || !lat || (o->log && !log)) {
		fprintf(stderr, "loadgen: cannot start the closed loop (memory or --log)\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	snprintf(url, sizeof(url), "%s/api/v1/reports", o->url);
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)o->closed);
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)o->closed);
	t0 = now_s();
	end = t0 + o->duration_s;
	for (unsigned i = 0; i < o->closed; i++)
		closed_send(multi, &reqs[i], o, hdr, url, seqs, sent++);
	do {
		CURLMsg *m;
		int left;

		curl_multi_perform(multi, &running);
		while ((m = curl_multi_info_read(multi, &left))) {
			struct req *r;
			CURLcode res = m->data.result;

			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &r->status);
			if (res != CURLE_OK)
				r->status = 0;
			if (r->status >= 200 && r->status <= 299) {
				ok++;
			} else if (r->status == 503) {
				shed++;
				shed_no_retry_after += !r->retry_after;
			} else {
				if (++other <= 5)
					fprintf(stderr, "loadgen: request failed: %s (HTTP %ld)\n",
						curl_easy_strerror(res), r->status);
			}
			if (log)
				fprintf(log, "%s-%05u %llu %ld\n", o->host_prefix, r->host, r->seq, r->status);
			if (nlat == cap) {
				double *more = realloc(lat, 2 * cap * sizeof(*lat));

				if (more) {
					lat = more;
					cap *= 2;
				}
			}
			if (nlat < cap)
				lat[nlat++] = now_s() - r->due;
			done++;
			curl_multi_remove_handle(multi, m->easy_handle);
			if (!closed_stop && now_s() < end)
				closed_send(multi, r, o, hdr, url, seqs, sent++);
		}
		curl_multi_poll(multi, NULL, 0, 10, NULL);
	} while (running > 0 || done < sent);
	end = now_s();
	qsort(lat, nlat, sizeof(*lat), cmp_d);
	printf("closed=%u reports=%llu ok=%llu shed=%llu shed_without_retry_after=%llu other=%llu seconds=%.2f "
	       "ok_rate=%.0f/s latency_ms p50=%.2f p99=%.2f max=%.2f\n",
	       o->closed, done, ok, shed, shed_no_retry_after, other, end - t0, (double)ok / (end - t0),
	       pct(lat, nlat, 0.5) * 1e3, pct(lat, nlat, 0.99) * 1e3, nlat ? lat[nlat - 1] * 1e3 : 0);
	if (log)
		fclose(log);
	for (unsigned i = 0; i < o->closed; i++) {
		if (reqs[i].easy)
			curl_easy_cleanup(reqs[i].easy);
		free(reqs[i].body);
	}
	curl_multi_cleanup(multi);
	curl_slist_free_all(hdr);
	free(reqs);
	free(seqs);
	free(lat);
	return other || shed_no_retry_after ? 1 : 0;
}

static int run_get(const struct opts *o)
{
	char url[2048];
	CURL *c = curl_easy_init();
	double *lat = calloc(o->repeat, sizeof(*lat));
	unsigned errors = 0;
	long status = 0;

	snprintf(url, sizeof(url), "%s%s", o->url, o->get);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	for (unsigned i = 0; i < o->repeat; i++) {
		double t = now_s();
		CURLcode rc = curl_easy_perform(c);

		lat[i] = now_s() - t;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (rc != CURLE_OK || status != 200)
			errors++;
	}
	qsort(lat, o->repeat, sizeof(*lat), cmp_d);
	printf("get=%s repeat=%u errors=%u latency_ms median=%.2f p90=%.2f max=%.2f\n", o->get, o->repeat, errors,
	       pct(lat, o->repeat, 0.5) * 1e3, pct(lat, o->repeat, 0.9) * 1e3, lat[o->repeat - 1] * 1e3);
	curl_easy_cleanup(c);
	free(lat);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "token", required_argument, NULL, 't' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "rate", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "burst", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "get", required_argument, NULL, 'g' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "start-ms", required_argument, NULL, 's' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "host-prefix", required_argument, NULL, 'p' },
		{ "gzip", no_argument, NULL, 'z' },
		{ "dump", no_argument, NULL, 'D' },
		{ "closed", required_argument, NULL, 'C' },
		{ "log", required_argument, NULL, 'L' },
		{ "shuffle", no_argument, NULL, 'S' },
		{ "seq-from", required_argument, NULL, 'F' },
		{ "timeline", required_argument, NULL, 'T' },
		{ 0 },
	};
	struct opts o = { .url = "http://127.0.0.1:8080",
			  .hosts = 20000,
			  .rate = 2000,
			  .duration_s = 10,
			  .concurrency = 256,
			  .rounds = 3,
			  .repeat = 10,
			  .interval_ms = 10000,
			  .host_prefix = "bench" };
	struct rlimit rl;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'u':
			o.url = optarg;
			break;
		case 't':
			o.token = optarg;
			break;
		case 'H':
			o.hosts = (unsigned)atoi(optarg);
			break;
		case 'r':
			o.rate = (unsigned)atoi(optarg);
			break;
		case 'd':
			o.duration_s = (unsigned)atoi(optarg);
			break;
		case 'c':
			o.concurrency = (unsigned)atoi(optarg);
			break;
		case 'b':
			o.burst = (unsigned)atoi(optarg);
			break;
		case 'R':
			o.rounds = (unsigned)atoi(optarg);
			break;
		case 'g':
			o.get = optarg;
			break;
		case 'n':
			o.repeat = (unsigned)atoi(optarg);
			break;
		case 's':
			o.start_ms = atoll(optarg);
			break;
		case 'i':
			o.interval_ms = atoll(optarg);
			break;
		case 'p':
			o.host_prefix = optarg;
			break;
		case 'z':
			o.gzip = 1;
			break;
		case 'D':
			o.dump = 1;
			break;
		case 'C':
			o.closed = (unsigned)atoi(optarg);
			break;
		case 'L':
			o.log = optarg;
			break;
		case 'S':
			o.shuffle = 1;
			break;
		case 'F':
			o.seq_from = strtoull(optarg, NULL, 10);
			break;
		case 'T':
			o.timeline = optarg;
			break;
		default:
			fprintf(
			    stderr,
			    "usage: loadgen --url URL [--rate N --duration S --hosts N --concurrency N | "
			    "--burst N --rounds N | --closed N --duration S [--log FILE] | "
			    "--get PATH --repeat N] [--gzip] [--shuffle] [--seq-from N] [--timeline FILE] | --dump\n");
			return 2;
		}
	}
	if (!o.hosts || !o.rate || !o.concurrency || !o.repeat) {
		fprintf(stderr, "loadgen: counts must be positive\n");
		return 2;
	}
	if (o.shuffle) {
		order = malloc(o.hosts * sizeof(*order));
		if (!order) {
			fprintf(stderr, "loadgen: out of memory\n");
			return 2;
		}
		for (unsigned h = 0; h < o.hosts; h++)
			order[h] = h;
	}
	/* Held connections need a descriptor each. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!o.start_ms) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o.start_ms = (long long)ts.tv_sec * 1000 - o.interval_ms;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	for (int i = 0; i < TAILS; i++) {
		tails[i] = bench_tail();
		if (o.gzip && bench_gz_tail_make(tails[i], &gz_tails[i]) != 0) {
			fprintf(stderr, "loadgen: cannot compress the report tails\n");
			return 2;
		}
	}
	if (o.dump) {
		size_t len;
		char *body = bench_body(o.host_prefix, 1, 1, o.start_ms, o.interval_ms, tails[0], &len);

		rc = !body || fwrite(body, 1, len, stdout) != len;
		free(body);
	} else {
		rc = o.get ? run_get(&o) : o.closed ? run_closed(&o) : run_ingest(&o);
	}
	for (int i = 0; i < TAILS; i++) {
		free(tails[i]);
		free(gz_tails[i].raw);
	}
	curl_global_cleanup();
	return rc;
}
