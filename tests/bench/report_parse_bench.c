/* report_parse_bench.c - times the server's whole report check (report_parse:
 * JSON parse, every field's check, the encoded blobs) on report files, the
 * cost ingest pays per report before the store. Prints the median of 9 rounds
 * of n parses each, per file, in microseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/fsutil.h"
#include "server/ingest/report_parse.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
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
		double rounds[9];
		size_t len = 0;
		char *body = NULL, err[512];

		if (fs_read_all(argv[a], (size_t)1 << 30, &body, &len)) {
			fprintf(stderr, "%s: cannot read\n", argv[a]);
			return 1;
		}
		for (int r = 0; r < 9; r++) {
			double t0 = now_ns();

			for (int i = 0; i < n; i++) {
				struct report rep;

				if (report_parse(body, len, &rep, err, sizeof(err))) {
					fprintf(stderr, "%s: refused: %s\n", argv[a], err);
					return 1;
				}
				report_free(&rep);
			}
			rounds[r] = (now_ns() - t0) / n;
		}
		qsort(rounds, 9, sizeof(rounds[0]), cmp_double);
		printf("%-40s %7zu bytes  report_parse %8.2f us (median of 9 x %d)\n",
		       strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a], len, rounds[4] / 1000.0, n);
		free(body);
	}
	return 0;
}
