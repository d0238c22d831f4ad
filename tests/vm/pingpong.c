/* pingpong.c - a wakeup-heavy workload that measures itself: PAIRS pairs of
 * processes pass a byte back and forth over pipes ROUNDS times; every round
 * trip is two wakeups, so its time is mostly how fast the scheduler gets a
 * woken task onto a CPU. Prints one line:
 *   PINGPONG pairs=P rounds=R p50_us=.. p99_us=.. max_us=.. wall_s=..
 * Used by the sched_ext VM tests to compare EEVDF, scx_fifo and scx_llc.
 * Usage: pingpong ROUNDS PAIRS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One pair: the parent side times each round trip into out[0..rounds). */
static int run_pair(long rounds, double *out)
{
	int ping[2], pong[2];
	char b = 0;
	pid_t child;

	if (pipe(ping) || pipe(pong))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		for (long i = 0; i < rounds; i++) {
			if (read(ping[0], &b, 1) != 1 || write(pong[1], &b, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (long i = 0; i < rounds; i++) {
		double t = now_us();

		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			return -1;
		out[i] = now_us() - t;
	}
	return waitpid(child, NULL, 0) == child ? 0 : -1;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 0, pairs = argc > 2 ? atol(argv[2]) : 0, n;
	double *samples, t0;
	int failed = 0;

	if (argc != 3 || rounds < 1 || rounds > 1000000 || pairs < 1 || pairs > 64) {
		fprintf(stderr, "usage: pingpong ROUNDS(1..1000000) PAIRS(1..64)\n");
		return 2;
	}
	n = rounds * pairs;
	samples = mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (samples == MAP_FAILED)
		return 1;
	t0 = now_us();
	for (long p = 0; p < pairs; p++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(run_pair(rounds, samples + p * rounds) ? 1 : 0);
		if (pid < 0)
			return 1;
	}
	for (long p = 0; p < pairs; p++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	if (failed) {
		fprintf(stderr, "pingpong: a pair failed\n");
		return 1;
	}
	qsort(samples, n, sizeof(double), cmp);
	printf("PINGPONG pairs=%ld rounds=%ld p50_us=%.1f p99_us=%.1f max_us=%.1f wall_s=%.2f\n", pairs, rounds,
	       samples[n / 2], samples[(n * 99) / 100], samples[n - 1], (now_us() - t0) / 1e6);
	return 0;
}
