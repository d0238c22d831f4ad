/* cmd_compare.c - `schedio compare --a SEL --b SEL`: is arm A's runqueue
 * latency better, worse or no different than arm B's (GET /api/v1/compare)?
 * Prints both arms, each arm's hosts by value (so outliers show; a big arm
 * as its lowest and highest few and its median), the ratio with its 95%
 * interval and the verdict in one table (--json: the server's answer as it
 * came), and exits with the verdict
 * so a scheduler's CI job can gate on it:
 *   0 better or no_difference, 1 worse, 2 inconclusive,
 *   3 no answer (the server refused the query, or could not be reached),
 *   4 a bad command line.
 * Usage errors are 4 here, not the 2 of the other commands, because 2 is a
 * verdict.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/command.h"
#include "cli/http_client.h"
#include "cli/ssd_client.h"
#include "common/cli.h"

#define PROG "schedio compare"
#define SEL_MAX 4096    /* the server's limit of a selector */
#define PER_HOST_ALL 12 /* an arm of at most this many hosts is listed whole, */
#define PER_HOST_EDGE 5 /* else its lowest and highest this many and its median */

enum {
	EXIT_BETTER_OR_SAME = 0,
	EXIT_WORSE = 1,
	EXIT_INCONCLUSIVE = 2,
	EXIT_NO_ANSWER = 3,
	EXIT_USAGE = 4,
};

enum {
	OPT_A = 3000,
	OPT_B,
	OPT_METRIC,
	OPT_RANGE,
	OPT_FROM,
	OPT_TO,
	OPT_A_FROM,
	OPT_A_TO,
	OPT_B_FROM,
	OPT_B_TO,
	OPT_CGROUP,
	OPT_THRESHOLD,
	OPT_JSON,
};

/* The query parameters, as text; NULL when not given. */
struct compare_args {
	const char *a, *b, *metric, *cgroup, *threshold;
	const char *ms[6]; /* from, to, a_from, a_to, b_from, b_to */
	char range_from[24], range_to[24];
	bool json;
};

static const char *const ms_names[6] = { "from", "to", "a_from", "a_to", "b_from", "b_to" };

static void usage(void)
{
	printf("Usage: schedio compare --a SEL --b SEL [--metric p99] [--range 2h | --from MS --to MS]\n"
	       "                       [--a-from MS] [--a-to MS] [--b-from MS] [--b-to MS] [--cgroup PATH]\n"
	       "                       [--threshold 0.05] [--json] [--server URL] [--token TOKEN]\n"
	       "\n"
	       "Compares the runqueue latency of two sets of hosts (arms A and B), host by host, and says\n"
	       "whether A is better (lower), worse or no different than B, with a 95%% interval.\n"
	       "A selector SEL is terms joined by commas, all of which must hold:\n"
	       "  sched=NAME       samples a scheduler ran (a sched_ext ops name, or eevdf / fair for the kernel's)\n"
	       "  label.KEY=VALUE  hosts carrying that label      host=ID  one host      kernel=PREFIX  a kernel\n"
	       "  --metric M       p50, p90, p99 (default), p999 or mean\n"
	       "  --range DUR      the last DUR (e.g. 30m, 2h, 1d; default 1h) for both arms\n"
	       "  --from/--to MS   a window in unix milliseconds for both arms\n"
	       "  --a-from ... --b-to MS  each arm's own window (before/after: the same hosts in two windows\n"
	       "                   are compared as pairs)\n"
	       "  --cgroup PATH    that cgroup and those below it instead of the whole host\n"
	       "  --threshold T    the band around 1 that counts as no difference (default 0.05)\n"
	       "  --json           print the server's answer as JSON\n"
	       "  --token TOKEN    a token of scope read, for a server that needs one (or $SCHEDIO_TOKEN)\n"
	       "Exit status: 0 better or no_difference, 1 worse, 2 inconclusive, 3 no answer from the\n"
	       "server (it refused the query or could not be reached), 4 bad usage.\n");
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try " PROG " --help)\n");
	return EXIT_USAGE;
}

/* Parses DUR (N with ms, s, m, h or d) into ms; 0 or -1. */
static int parse_duration(const char *s, int64_t *ms)
{
	static const struct {
		const char *unit;
		int64_t ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 } };
	char *end;
	long long n;

	if (*s < '0' || *s > '9')
		return -1;
	n = strtoll(s, &end, 10);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0 && n > 0 && n <= 400LL * 86400000 / units[i].ms) {
			*ms = n * units[i].ms;
			return 0;
		}
	return -1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_args(int argc, char **argv, struct compare_args *a, struct ssd_client *c)
{
	static const struct option opts[] = {
		{ "a", required_argument, NULL, OPT_A },
		{ "b", required_argument, NULL, OPT_B },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "range", required_argument, NULL, OPT_RANGE },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "a-from", required_argument, NULL, OPT_A_FROM },
		{ "a-to", required_argument, NULL, OPT_A_TO },
		{ "b-from", required_argument, NULL, OPT_B_FROM },
		{ "b-to", required_argument, NULL, OPT_B_TO },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "server", required_argument, NULL, SSD_OPT_SERVER },
		{ "token", required_argument, NULL, SSD_OPT_TOKEN },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *range = NULL;
	uint64_t v;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(c, opt, optarg))
			continue;
		switch (opt) {
		case 'h':
			usage();
			exit(0);
		case OPT_A:
		case OPT_B:
			if (!*optarg || strlen(optarg) > SEL_MAX)
				return usage_error("--%s must be a selector of 1 to %d bytes", opt == OPT_A ? "a" : "b",
						   SEL_MAX);
			*(opt == OPT_A ? &a->a : &a->b) = optarg;
			break;
		case OPT_METRIC:
			if (strcmp(optarg, "p50") && strcmp(optarg, "p90") && strcmp(optarg, "p99") &&
			    strcmp(optarg, "p999") && strcmp(optarg, "mean"))
				return usage_error("--metric must be p50, p90, p99, p999 or mean");
			a->metric = optarg;
			break;
		case OPT_RANGE:
			range = optarg;
			break;
		case OPT_FROM:
		case OPT_TO:
		case OPT_A_FROM:
		case OPT_A_TO:
		case OPT_B_FROM:
		case OPT_B_TO:
			if (cli_parse_u64(optarg, 0, INT64_MAX / 4, &v))
				return usage_error("--%s must be unix milliseconds (a whole number)",
						   opts[opt - OPT_A].name);
			a->ms[opt - OPT_FROM] = optarg;
			break;
		case OPT_CGROUP:
			if (optarg[0] != '/')
				return usage_error("--cgroup must be a cgroup path starting with '/'");
			a->cgroup = optarg;
			break;
		case OPT_THRESHOLD: {
			char *end;
			double t = strtod(optarg, &end);

			if (!*optarg || *end || !(t > 0 && t < 1))
				return usage_error("--threshold must be a number between 0 and 1, e.g. 0.05");
			a->threshold = optarg;
			break;
		}
		case OPT_JSON:
			a->json = true;
			break;
		default:
			/* getopt_long has said what was wrong */
			return usage_error("bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!a->a || !a->b)
		return usage_error("give both arms: --a SEL --b SEL");
	if (range) {
		int64_t ms, now = now_ms();

		if (a->ms[0] || a->ms[1])
			return usage_error("give --range or --from/--to, not both");
		if (parse_duration(range, &ms))
			return usage_error("--range must be a duration like 30m, 2h or 1d");
		snprintf(a->range_from, sizeof(a->range_from), "%lld", (long long)(now - ms));
		snprintf(a->range_to, sizeof(a->range_to), "%lld", (long long)now);
		a->ms[0] = a->range_from;
		a->ms[1] = a->range_to;
	}
	return 0;
}

/* The request path; NULL when out of memory. */
static char *request_path(const struct compare_args *a)
{
	size_t cap = 2 * 3 * SEL_MAX + 3 * 4096 + 512, n;
	char *path = malloc(cap), *esc = malloc(3 * 4096 + 8);

	if (!path || !esc) {
		free(path);
		free(esc);
		return NULL;
	}
	n = (size_t)snprintf(path, cap, "/api/v1/compare?a=%s", ssd_client_escape(a->a, esc, 3 * 4096 + 8));
	n += (size_t)snprintf(path + n, cap - n, "&b=%s", ssd_client_escape(a->b, esc, 3 * 4096 + 8));
	if (a->metric)
		n += (size_t)snprintf(path + n, cap - n, "&metric=%s", a->metric);
	if (a->threshold)
		n += (size_t)snprintf(path + n, cap - n, "&threshold=%s", a->threshold);
	for (int i = 0; i < 6; i++)
		if (a->ms[i])
			n += (size_t)snprintf(path + n, cap - n, "&%s=%s", ms_names[i], a->ms[i]);
	if (a->cgroup)
		snprintf(path + n, cap - n, "&cgroup=%s", ssd_client_escape(a->cgroup, esc, 3 * 4096 + 8));
	free(esc);
	return path;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A latency for people: ns, us, ms or s; "-" when unknown. */
static const char *latency(double ns, char *buf, size_t cap)
{
	if (ns < 0)
		snprintf(buf, cap, "-");
	else if (ns < 1000)
		snprintf(buf, cap, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, cap, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, cap, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, cap, "%.2f s", ns / 1e9);
	return buf;
}

static const char *utc(double ms, char *buf, size_t cap)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms < 0 || !gmtime_r(&t, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, cap, "?");
	return buf;
}

static void print_arm(const char *name, const cJSON *arm)
{
	char from[32], to[32], value[32];

	printf("%-4s %-30s %s .. %s  %6.0f %12.0f %12s\n", name, str(arm, "selector") ? str(arm, "selector") : "?",
	       utc(num(arm, "from"), from, sizeof(from)), utc(num(arm, "to"), to, sizeof(to)), num(arm, "hosts"),
	       num(arm, "samples"), latency(num(arm, "value_ns"), value, sizeof(value)));
}

/* One host of an arm: its id and its value (< 0 when it has none). */
struct host_value {
	const char *id;
	double ns;
};

/* Low to high, hosts without a value last, equal values by host id (the same answer prints the same). */
static int by_value(const void *x, const void *y)
{
	const struct host_value *a = x, *b = y;

	if ((a->ns < 0) != (b->ns < 0))
		return a->ns < 0 ? 1 : -1;
	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	return strcmp(a->id, b->id);
}

/* Where the arm's median med lies in v[0..known) (sorted, all with a value):
 * the host whose value it is (the one nearest the middle when several share
 * it), or the two it lies between (an even count: the mean of the middle
 * two). *lo = *hi = n when there is no median. */
static size_t distance(size_t i, size_t j)
{
	return i > j ? i - j : j - i;
}

static void median_marks(const struct host_value *v, size_t known, size_t n, double med, size_t *lo, size_t *hi)
{
	size_t mid = known ? (known - 1) / 2 : 0, i;

	*lo = *hi = n;
	if (!known || med < 0)
		return;
	/* the server's median is one host's value or the mean of two, sent as
	 * the same doubles: an exact match is the host it is */
	for (i = 0; i < known; i++)
		if (v[i].ns == med && (*lo == n || distance(i, mid) < distance(*lo, mid)))
			*lo = *hi = i;
	if (*lo < n)
		return;
	i = 0;
	while (i < known && v[i].ns < med)
		i++;
	if (i > 0 && i < known) {
		*lo = i - 1;
		*hi = i;
	}
}

static void print_host(const struct host_value *h, bool median, double med)
{
	char value[32], vs[16] = "";

	if (h->ns >= 0 && med > 0)
		snprintf(vs, sizeof(vs), "x%.2f", h->ns / med);
	printf("   %c %-32s %12s  %s\n", median ? '*' : ' ', h->id, latency(h->ns, value, sizeof(value)), vs);
}

/* An arm's hosts low to high, the median marked; a big arm elided to its
 * ends and its median, since the outliers are at the ends. */
static void print_per_host(const char *name, const cJSON *arm)
{
	const cJSON *per = cJSON_GetObjectItemCaseSensitive(arm, "per_host"), *p;
	double med = num(arm, "value_ns");
	size_t n = (size_t)cJSON_GetArraySize(per), known = 0, lo, hi, skipped = 0, k = 0;
	struct host_value *v;

	if (!n) {
		printf("%s  no host\n", name);
		return;
	}
	v = calloc(n, sizeof(*v));
	if (!v) {
		printf("%s  %zu hosts (no memory to list them)\n", name, n);
		return;
	}
	cJSON_ArrayForEach(p, per)
	{
		v[k].id = str(p, "host_id") ? str(p, "host_id") : "?";
		v[k].ns = num(p, "value_ns");
		known += v[k].ns >= 0;
		k++;
	}
	qsort(v, n, sizeof(*v), by_value);
	median_marks(v, known, n, med, &lo, &hi);
	printf("%s  %zu host%s\n", name, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		bool mark = i == lo || i == hi;

		if (n <= PER_HOST_ALL || mark || i < PER_HOST_EDGE || i >= n - PER_HOST_EDGE) {
			if (skipped)
				printf("     ... %zu more host%s ...\n", skipped, skipped == 1 ? "" : "s");
			skipped = 0;
			print_host(&v[i], mark, med);
		} else {
			skipped++;
		}
	}
	free(v);
}

static void print_table(const cJSON *doc)
{
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(doc, "ci");
	const char *metric = str(doc, "metric") ? str(doc, "metric") : "?", *reason = str(doc, "reason");
	char head[16];

	printf("%s runqueue latency of A against B (no difference within +-%.0f%%)%s%s\n\n", metric,
	       100 * num(doc, "threshold"), str(doc, "cgroup") ? ", cgroup " : "",
	       str(doc, "cgroup") ? str(doc, "cgroup") : "");
	snprintf(head, sizeof(head), "%s", metric);
	for (char *p = head; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	printf("%-4s %-30s %-42s  %6s %12s %12s\n", "ARM", "SELECTOR", "WINDOW (UTC)", "HOSTS", "SAMPLES", head);
	print_arm("A", cJSON_GetObjectItemCaseSensitive(doc, "a"));
	print_arm("B", cJSON_GetObjectItemCaseSensitive(doc, "b"));
	printf(
	    "\neach host's %s, low to high (* the arm's median, or the two it lies between; x: the host's value over "
	    "that median)\n",
	    head);
	print_per_host("A", cJSON_GetObjectItemCaseSensitive(doc, "a"));
	print_per_host("B", cJSON_GetObjectItemCaseSensitive(doc, "b"));
	printf("\n");
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(doc, "ratio")) && cJSON_GetArraySize(ci) == 2)
		printf("ratio A/B  %.3f   95%% interval %.3f .. %.3f%s\n", num(doc, "ratio"),
		       cJSON_GetArrayItem(ci, 0)->valuedouble, cJSON_GetArrayItem(ci, 1)->valuedouble,
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "paired")) ? "   (same hosts, paired)" : "");
	else
		printf("ratio A/B  -\n");
	printf("verdict    %s\n", str(doc, "verdict"));
	if (str(doc, "summary") && *str(doc, "summary"))
		printf("%s\n", str(doc, "summary"));
	if (reason)
		printf("reason: %s\n", reason);
}

static int verdict_status(const char *v)
{
	if (!v)
		return EXIT_NO_ANSWER;
	if (strcmp(v, "better") == 0 || strcmp(v, "no_difference") == 0)
		return EXIT_BETTER_OR_SAME;
	if (strcmp(v, "worse") == 0)
		return EXIT_WORSE;
	if (strcmp(v, "inconclusive") == 0)
		return EXIT_INCONCLUSIVE;
	return EXIT_NO_ANSWER;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct ssd_client c;
	struct http_result res = { 0 };
	char msg[600], *path = NULL;
	cJSON *doc = NULL;
	int rc;

	ssd_client_init(&c);
	rc = parse_args(argc, argv, &a, &c);
	if (rc)
		return rc;
	rc = EXIT_NO_ANSWER;
	path = request_path(&a);
	if (!path) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	if (http_client_request(c.server, "GET", path, c.token, NULL, 0, NULL, &res) < 0 || res.status != 200) {
		fprintf(stderr, PROG ": %s\n", ssd_client_error(&res, msg, sizeof(msg)));
		goto out;
	}
	doc = cJSON_Parse(res.body);
	rc = verdict_status(str(doc, "verdict"));
	if (rc == EXIT_NO_ANSWER) {
		fprintf(stderr, PROG ": unexpected answer from the server\n");
		goto out;
	}
	if (a.json)
		printf("%s\n", res.body);
	else
		print_table(doc);
out:
	cJSON_Delete(doc);
	http_client_result_free(&res);
	free(path);
	return rc;
}
