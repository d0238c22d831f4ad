/* engine.c - see engine.h.
 *
 * One submitting thread: io_uring batches submissions and completions, so a
 * single ring reaches hundreds of thousands of 4 KiB IOs per second on one
 * core, more than the SATA and most NVMe disks it is aimed at (BENCHMARKS.md
 * compares it with fio on the same file). Write buffers hold random bytes
 * (several distinct ones) so a compressing or deduplicating controller
 * cannot make writes look cheaper than they are; reads land in the same
 * buffers, whose content nobody looks at.
 */
#include "cli/bench/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENGINE_BUF_BYTES (16u << 20) /* the pool of distinct buffers */
#define ENGINE_MAX_BS (1u << 20)

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

int bench_engine_open(struct bench_engine *e, int fd, uint64_t span)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->fd = fd;
	e->span = span;
	e->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)bench_now_ns();
	e->buf_bytes = ENGINE_BUF_BYTES;
	if (posix_memalign((void **)&e->buf, 4096, e->buf_bytes))
		return -ENOMEM;
	for (size_t i = 0; i < e->buf_bytes; i += 8) {
		uint64_t v = xorshift(&e->rng);

		memcpy(e->buf + i, &v, 8);
	}
	err = io_uring_queue_init(BENCH_ENGINE_DEPTH_MAX, &e->ring, 0);
	if (err < 0) {
		free(e->buf);
		e->buf = NULL;
		return err;
	}
	return 0;
}

void bench_engine_job(struct bench_engine *e, int write, int rand, unsigned bs, uint64_t limit)
{
	e->write = write;
	e->rand = rand;
	e->bs = bs > ENGINE_MAX_BS ? ENGINE_MAX_BS : bs;
	/* io_uring plugs a batch of more than two IOs, and a plug merges adjacent ones: 4 KiB
	 * sequential reads would reach the disk as 64 KiB or larger requests and count as
	 * that many more IOPS than the disk can do (the kernel's iocost_coef_gen.py turns
	 * merges off in sysfs for the same reason; this leaves the host's settings alone).
	 * 1 MiB sequential reads merged in pairs ran at half fio's rate on a virtio disk
	 * (BENCHMARKS.md), so every sequential job goes one by one; random IOs never merge */
	e->one_by_one = !rand;
	e->nbuf = (unsigned)(e->buf_bytes / e->bs);
	e->next_off = 0;
	e->next_buf = 0;
	e->submit_left = limit ? limit : UINT64_MAX;
	e->ios = e->bytes = 0;
	e->depth = 1;
}

void bench_engine_set_depth(struct bench_engine *e, unsigned depth)
{
	e->depth = depth < 1 ? 1 : depth > BENCH_ENGINE_DEPTH_MAX ? BENCH_ENGINE_DEPTH_MAX : depth;
}

static uint64_t next_offset(struct bench_engine *e)
{
	uint64_t off;

	if (e->rand)
		return (xorshift(&e->rng) % (e->span / e->bs)) * e->bs;
	if (e->next_off + e->bs > e->span)
		e->next_off = 0;
	off = e->next_off;
	e->next_off += e->bs;
	return off;
}

/* Queues IOs up to the depth; returns how many were queued. */
static unsigned top_up(struct bench_engine *e)
{
	unsigned queued = 0;

	while (e->inflight < e->depth && e->submit_left) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
		void *buf;

		if (!sqe)
			break;
		buf = e->buf + (size_t)(e->next_buf++ % e->nbuf) * e->bs;
		if (e->write)
			io_uring_prep_write(sqe, e->fd, buf, e->bs, next_offset(e));
		else
			io_uring_prep_read(sqe, e->fd, buf, e->bs, next_offset(e));
		e->inflight++;
		e->submit_left--;
		queued++;
		if (e->one_by_one) {
			int err = io_uring_submit(&e->ring);

			if (err < 0 && err != -EINTR && err != -EAGAIN && err != -EBUSY && !e->error)
				e->error = err;
		}
	}
	return queued;
}

/* Counts every completion ready; returns how many. */
static unsigned reap(struct bench_engine *e)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;

	io_uring_for_each_cqe(&e->ring, head, cqe)
	{
		seen++;
		if (cqe->res < 0) {
			if (!e->error)
				e->error = cqe->res;
		} else if ((unsigned)cqe->res != e->bs && !e->error) {
			e->error = -EIO; /* a short transfer: the span passed the end of the target */
		} else {
			e->ios++;
			e->bytes += (unsigned)cqe->res;
		}
	}
	io_uring_cq_advance(&e->ring, seen);
	e->inflight -= seen;
	return seen;
}

int bench_engine_run(struct bench_engine *e, uint64_t until_ns, volatile sig_atomic_t *stop)
{
	for (;;) {
		struct __kernel_timespec ts;
		struct io_uring_cqe *cqe;
		uint64_t now, wait;
		int err;

		if (e->error)
			return e->error;
		if (stop && *stop)
			return -EINTR;
		now = bench_now_ns();
		if (now >= until_ns || (!e->submit_left && !e->inflight))
			return 0;
		if (top_up(e) && !e->one_by_one) {
			err = io_uring_submit(&e->ring);
			if (err < 0 && err != -EINTR && err != -EAGAIN && err != -EBUSY)
				return err;
		}
		/* wake at least every 50 ms to look at the clock and the stop flag */
		wait = until_ns - now < 50000000u ? until_ns - now : 50000000u;
		ts.tv_sec = (long long)(wait / 1000000000u);
		ts.tv_nsec = (long long)(wait % 1000000000u);
		err = io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts);
		if (err < 0 && err != -ETIME && err != -EINTR)
			return err;
		reap(e);
	}
}

int bench_engine_drain(struct bench_engine *e)
{
	while (e->inflight) {
		struct io_uring_cqe *cqe;
		int err = io_uring_submit_and_wait(&e->ring, 1);

		if (err < 0 && err != -EINTR)
			return err;
		if (io_uring_peek_cqe(&e->ring, &cqe) == 0)
			reap(e);
	}
	return e->error;
}

void bench_engine_close(struct bench_engine *e)
{
	if (e->buf) {
		io_uring_queue_exit(&e->ring);
		free(e->buf);
		e->buf = NULL;
	}
}
