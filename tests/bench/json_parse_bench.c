/* json_parse_bench.c - is the server's own JSON parser (server/json) worth
 * keeping? It exists only to be faster than cJSON_ParseWithLength on agent
 * reports, so this times both on the same documents, the way ingest runs
 * them (inside a json_arena) and without the arena, and prints the median
 * time per parse and the ratio. "cJSON+check" is cJSON_ParseWithLength
 * followed by the UTF-8 walk json_parse does while it reads strings, the
 * price of replacing it.
 *   json_parse_bench [-n ITERATIONS] FILE...
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "common/fsutil.h"
#include "server/json/json_arena.h"
#include "server/json/json_parse.h"

#define ROUNDS 21 /* the median of ROUNDS rounds of n parses each */

enum parser { P_JSON_PARSE, P_CJSON, P_CJSON_CHECKED, P_COUNT };
static const char *const parser_name[P_COUNT] = { "json_parse", "cJSON_ParseWithLength", "cJSON+check" };

static double now_ns(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine is shared, wall time would
	 * measure the neighbours */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* True when every string byte sequence is well-formed UTF-8 (what json_parse checks). */
static bool utf8_ok(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;

	while (p < end) {
		size_t n;

		if (*p < 0x80) {
			p++;
			continue;
		}
		n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
		if (*p < 0xc2 || *p > 0xf4 || (size_t)(end - p) < n)
			return false;
		for (size_t i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n;
	}
	return true;
}

static cJSON *parse(enum parser which, const char *s, size_t len)
{
	switch (which) {
	case P_JSON_PARSE:
		return json_parse(s, len);
	case P_CJSON:
		return cJSON_ParseWithLength(s, len);
	default:
		return utf8_ok((const unsigned char *)s, len) ? cJSON_ParseWithLength(s, len) : NULL;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nanoseconds per parse of s over n parses. */
static double time_round(enum parser which, bool arena, const char *s, size_t len, int n)
{
	double t0 = now_ns();

	for (int i = 0; i < n; i++) {
		cJSON *doc;

		if (arena)
			json_arena_begin();
		doc = parse(which, s, len);
		if (!doc) {
			fprintf(stderr, "%s refused the document\n", parser_name[which]);
			exit(1);
		}
		cJSON_Delete(doc);
		if (arena)
			json_arena_end();
	}
	return (now_ns() - t0) / n;
}

/* Median nanoseconds per parse of each parser into t[]; the parsers take
 * turns round by round so a change in load hits them alike. */
static void time_parsers(bool arena, const char *s, size_t len, int n, double t[P_COUNT])
{
	double per[P_COUNT][ROUNDS];

	for (int r = 0; r < ROUNDS; r++)
		for (int p = 0; p < P_COUNT; p++)
			per[p][r] = time_round((enum parser)p, arena, s, len, n);
	for (int p = 0; p < P_COUNT; p++) {
		qsort(per[p], ROUNDS, sizeof(per[p][0]), cmp_double);
		t[p] = per[p][ROUNDS / 2];
	}
}

int main(int argc, char **argv)
{
	int n = 2000, first = 1;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		n = atoi(argv[2]);
		first = 3;
	}
	if (first >= argc || n <= 0) {
		fprintf(stderr, "usage: %s [-n ITERATIONS] FILE...\n", argv[0]);
		return 2;
	}
	for (int a = first; a < argc; a++) {
		size_t len;
		char *s = NULL;
		int err = fs_read_all(argv[a], (size_t)1 << 30, &s, &len);

		if (err) {
			fprintf(stderr, "%s: %s\n", argv[a], strerror(-err));
			return 1;
		}
		printf("%s (%zu bytes, %d parses x %d rounds, median per parse)\n", argv[a], len, n, ROUNDS);
		for (int arena = 1; arena >= 0; arena--) {
			double t[P_COUNT];

			time_parsers(arena, s, len, n, t);
			for (int p = 0; p < P_COUNT; p++)
				printf("  %-8s %-22s %9.1f us\n", arena ? "arena" : "malloc", parser_name[p],
				       t[p] / 1e3);
			printf("  %-8s cJSON / json_parse = %.2fx, cJSON+check / json_parse = %.2fx\n",
			       arena ? "arena" : "malloc", t[P_CJSON] / t[P_JSON_PARSE],
			       t[P_CJSON_CHECKED] / t[P_JSON_PARSE]);
		}
		free(s);
	}
	return 0;
}
