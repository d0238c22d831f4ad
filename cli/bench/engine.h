/* engine.h - the IO engine of `schedio bench`: one io_uring on one O_DIRECT
 * file descriptor keeping a chosen number of reads or writes in flight,
 * sequential or random, and counting what completes.
 */
#ifndef SCHEDIO_CLI_BENCH_ENGINE_H
#define SCHEDIO_CLI_BENCH_ENGINE_H

#include <liburing.h>
#include <signal.h>
#include <stdint.h>

/* Most IOs in flight on one ring. */
#define BENCH_ENGINE_DEPTH_MAX 256

struct bench_engine {
	struct io_uring ring;
	int fd;
	uint64_t span;      /* IO offsets stay in [0, span); a multiple of every block size used */
	unsigned char *buf; /* nbuf distinct buffers of buf_bytes / nbuf each, 4096-aligned */
	size_t buf_bytes;
	unsigned nbuf;
	/* the pattern of the current job */
	int write, rand;
	int one_by_one; /* submit each IO on its own (sequential jobs), so the block layer's plug
			 * does not merge neighbours into one big request */
	unsigned bs;
	uint64_t next_off, rng;
	uint64_t submit_left; /* IOs still allowed to be submitted; UINT64_MAX for no limit */
	unsigned depth, inflight, next_buf;
	/* counters since the job was set */
	uint64_t ios, bytes;
	int error; /* first failed IO's -errno, sticky */
};

/* Sets up a ring for fd (opened with O_DIRECT) over [0, span); 0 or -errno. */
int bench_engine_open(struct bench_engine *e, int fd, uint64_t span);
/* Starts a new job: direction, pattern and block size (a power of two, 4096 .. 1 MiB); the ring
 * must be drained. Sequential jobs start at offset 0; limit caps the IOs submitted (0: none). */
void bench_engine_job(struct bench_engine *e, int write, int rand, unsigned bs, uint64_t limit);
/* Sets how many IOs to keep in flight (1 .. BENCH_ENGINE_DEPTH_MAX). */
void bench_engine_set_depth(struct bench_engine *e, unsigned depth);
/* Keeps depth IOs in flight until CLOCK_MONOTONIC reaches until_ns, *stop is set, the job's
 * limit is done or an IO fails; 0, -EINTR when stopped, or the failed IO's -errno. */
int bench_engine_run(struct bench_engine *e, uint64_t until_ns, volatile sig_atomic_t *stop);
/* Waits for every IO in flight (whatever *stop says); 0 or -errno. */
int bench_engine_drain(struct bench_engine *e);
/* Frees the ring and buffers (not the fd). */
void bench_engine_close(struct bench_engine *e);
/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

#endif /* SCHEDIO_CLI_BENCH_ENGINE_H */
