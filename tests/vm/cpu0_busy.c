/* cpu0_busy.c - a load that starts on CPU 0 and is free to move: N busy
 * processes are started pinned to CPU 0, then (all running) allowed every
 * CPU, and spin for SECONDS. A scheduler that keeps them on CPU 0 leaves the
 * other CPUs idle while they queue; one that spreads them does not. Used by
 * the work-conservation VM test (test_runqlat_l3.sh). Prints one line:
 *   CPU0_BUSY n=N seconds=S run_delay_ms=.. (the children's schedstat wait)
 * Usage: cpu0_busy N SECONDS
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_N 64

/* Runqueue wait (ns) of pid so far from /proc/PID/schedstat; 0 if unreadable. */
static unsigned long long run_delay(pid_t pid)
{
	unsigned long long on = 0, wait = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &on, &wait) != 2)
		wait = 0;
	fclose(f);
	return wait;
}

int main(int argc, char **argv)
{
	pid_t kids[MAX_N];
	cpu_set_t one, all;
	int n, secs, ready[2];
	unsigned long long delay = 0;
	char c;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > MAX_N || (secs = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: cpu0_busy N(1..%d) SECONDS\n", MAX_N);
		return 2;
	}
	if (sched_getaffinity(0, sizeof(all), &all) || pipe(ready)) {
		perror("cpu0_busy");
		return 1;
	}
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("fork");
			return 1;
		}
		if (kids[i] == 0) {
			volatile unsigned long spin = 0;

			if (sched_setaffinity(0, sizeof(one), &one))
				_exit(1);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			for (;;)
				spin++;
		}
	}
	for (int i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			return 1;
	for (int i = 0; i < n; i++)
		sched_setaffinity(kids[i], sizeof(all), &all);
	sleep((unsigned)secs);
	for (int i = 0; i < n; i++)
		delay += run_delay(kids[i]);
	for (int i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	printf("CPU0_BUSY n=%d seconds=%d run_delay_ms=%.1f\n", n, secs, (double)delay / 1e6);
	return 0;
}
