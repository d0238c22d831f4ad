/* randread.c - a tiny fio-like load for the VM tests: THREADS threads each
 * read BLOCK bytes with O_DIRECT at random aligned offsets of a block
 * device for SECONDS, so a cgroup keeps a deep random-read queue busy.
 * Prints the number of reads done.
 *
 * Usage: randread DEVICE SECONDS THREADS [BLOCK]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

struct randread_job {
	int fd;
	uint64_t blocks;
	size_t block;
	double deadline;
	uint64_t seed;
	uint64_t reads;
	int err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64: each thread needs its own cheap stream, not quality */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *randread_thread(void *arg)
{
	struct randread_job *job = arg;
	void *buf;

	if (posix_memalign(&buf, 4096, job->block)) {
		job->err = ENOMEM;
		return NULL;
	}
	while (now() < job->deadline) {
		off_t off = (off_t)(next_random(&job->seed) % job->blocks) * job->block;

		if (pread(job->fd, buf, job->block, off) < 0) {
			job->err = errno;
			break;
		}
		job->reads++;
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct randread_job jobs[64];
	pthread_t tids[64];
	uint64_t size = 0, total = 0;
	int fd, n, i, err = 0;
	size_t block;
	double deadline;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: randread DEVICE SECONDS THREADS [BLOCK]\n");
		return 2;
	}
	n = atoi(argv[3]);
	block = argc == 5 ? strtoul(argv[4], NULL, 0) : 4096;
	if (n < 1 || n > 64 || block < 512 || block % 512) {
		fprintf(stderr, "randread: THREADS must be 1-64, BLOCK a multiple of 512\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0 || size < block) {
		fprintf(stderr, "randread: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	deadline = now() + atof(argv[2]);
	for (i = 0; i < n; i++) {
		jobs[i] = (struct randread_job){ .fd = fd,
						 .blocks = size / block,
						 .block = block,
						 .deadline = deadline,
						 .seed = 0x9e3779b97f4a7c15ull * (i + 1) ^ getpid() };
		if (pthread_create(&tids[i], NULL, randread_thread, &jobs[i])) {
			n = i;
			err = 1;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(tids[i], NULL);
		total += jobs[i].reads;
		if (jobs[i].err) {
			fprintf(stderr, "randread: %s: %s\n", argv[1], strerror(jobs[i].err));
			err = 1;
		}
	}
	printf("%llu\n", (unsigned long long)total);
	close(fd);
	return err;
}
