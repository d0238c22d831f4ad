/* pingpong.c - a wakeup-heavy workload that measures itself: PAIRS pairs of
 * processes pass a byte back and forth over pipes ROUNDS times; every round
 * trip is two wakeups, so its time is mostly how fast the scheduler gets a
 * woken task onto a CPU. Prints one line:
 *   PINGPONG pairs=P rounds=R p50_us=.. p99_us=.. max_us=.. wall_s=..
 * Used by the sched_ext VM tests to compare EEVDF, scx_fifo and scx_llc.
 * With PINGPONG_POLICY=ext every process of it runs as SCHED_EXT, the tasks
 * a partial-mode (SCX_OPS_SWITCH_PARTIAL) scheduler takes.
 * Usage: pingpong ROUNDS PAIRS
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* This task's schedstat: total runqueue wait (ns) and times scheduled in. */
static void rq_wait(double out[2])
{
	unsigned long long run, delay = 0, count = 0;
	FILE *f = fopen("/proc/self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu %llu %llu", &run, &delay, &count) != 3)
			delay = count = 0;
		fclose(f);
	}
	out[0] = (double)delay;
	out[1] = (double)count;
}

/* Records the wait since start into acc (two doubles: ns, count). */
static void rq_wait_done(const double start[2], double *acc)
{
	double end[2];

	rq_wait(end);
	acc[0] = end[0] - start[0];
	acc[1] = end[1] - start[1];
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One pair: the parent side times each round trip into out[0..rounds);
 * both sides leave their runqueue wait in wait[0..1] and wait[2..3]. */
static int run_pair(long rounds, double *out, double *wait)
{
	int ping[2], pong[2];
	char b = 0;
	pid_t child;
	double start[2];

	if (pipe(ping) || pipe(pong))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	rq_wait(start);
	if (child == 0) {
		rq_wait(start);
		for (long i = 0; i < rounds; i++) {
			if (read(ping[0], &b, 1) != 1 || write(pong[1], &b, 1) != 1)
				_exit(1);
		}
		rq_wait_done(start, wait + 2);
		_exit(0);
	}
	for (long i = 0; i < rounds; i++) {
		double t = now_us();

		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			return -1;
		out[i] = now_us() - t;
	}
	rq_wait_done(start, wait);
	return waitpid(child, NULL, 0) == child ? 0 : -1;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 0, pairs = argc > 2 ? atol(argv[2]) : 0, n;
	double *samples, *waits, t0, wait_ns = 0, wait_n = 0;
	int failed = 0;

	if (argc != 3 || rounds < 1 || rounds > 1000000 || pairs < 1 || pairs > 64) {
		fprintf(stderr, "usage: pingpong ROUNDS(1..1000000) PAIRS(1..64)\n");
		return 2;
	}
	if (getenv("PINGPONG_POLICY") && strcmp(getenv("PINGPONG_POLICY"), "ext") == 0) {
		struct sched_param sp = { 0 };

		/* SCHED_EXT is 7; forked processes inherit it */
		if (sched_setscheduler(0, 7, &sp)) {
			perror("pingpong: sched_setscheduler(SCHED_EXT)");
			return 1;
		}
	}
	n = rounds * pairs;
	samples = mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	waits = mmap(NULL, pairs * 4 * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (samples == MAP_FAILED || waits == MAP_FAILED)
		return 1;
	t0 = now_us();
	for (long p = 0; p < pairs; p++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(run_pair(rounds, samples + p * rounds, waits + p * 4) ? 1 : 0);
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
	for (long i = 0; i < pairs * 2; i++) {
		wait_ns += waits[2 * i];
		wait_n += waits[2 * i + 1];
	}
	qsort(samples, n, sizeof(double), cmp);
	printf("PINGPONG pairs=%ld rounds=%ld p50_us=%.1f p99_us=%.1f max_us=%.1f wall_s=%.2f rq_wait_avg_us=%.1f\n",
	       pairs, rounds, samples[n / 2], samples[(n * 99) / 100], samples[n - 1], (now_us() - t0) / 1e6,
	       wait_n > 0 ? wait_ns / wait_n / 1e3 : 0.0);
	return 0;
}
