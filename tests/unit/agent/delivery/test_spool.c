/* test_spool.c - agent/delivery/spool.c: replay in seq order across reopen, a
 * truncated or corrupt file is skipped and counted (never sent, never a
 * crash), a full spool drops oldest first, stays under its cap, and the drop
 * counts carried by the surviving reports add up to every report dropped.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/delivery/spool.h"

static char base[] = "/tmp/schedio-test-spool-XXXXXX";
static int ndir;

static const char *fresh_dir(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/s%d", base, ndir++);
	return path;
}

static struct spool *open_spool(const char *dir, uint64_t max)
{
	struct spool *sp = NULL;
	char err[512];

	assert_int_equal(spool_open(&sp, dir, max, err, sizeof(err)), 0);
	return sp;
}

/* Appends seq with a payload naming what it carries, as the daemon does with delivery.dropped. */
static void append(struct spool *sp, uint64_t seq, size_t pad)
{
	char payload[4096];
	uint64_t carried = spool_drop_count(sp, pad);

	memset(payload, ' ', sizeof(payload));
	snprintf(payload, sizeof(payload), "seq=%llu carried=%llu", (unsigned long long)seq,
		 (unsigned long long)carried);
	payload[strlen(payload)] = ' ';
	assert_true(pad <= sizeof(payload));
	assert_int_equal(spool_append(sp, seq, carried, payload, pad), 0);
}

static uint64_t peek_seq(struct spool *sp, uint64_t *carried)
{
	void *buf = NULL;
	size_t len = 0;
	uint64_t seq = 0;
	unsigned long long s, c;

	assert_int_equal(spool_peek(sp, &seq, &buf, &len), 0);
	assert_int_equal(sscanf(buf, "seq=%llu carried=%llu", &s, &c), 2);
	assert_int_equal(s, seq);
	if (carried)
		*carried = c;
	free(buf);
	return seq;
}

static void file_path(char *out, size_t cap, const char *dir, uint64_t seq)
{
	snprintf(out, cap, "%s/%020llu.rep", dir, (unsigned long long)seq);
}

static void test_spool_replays_in_seq_order_across_reopen(void **state)
{
	const char *dir = fresh_dir();
	struct spool *sp = open_spool(dir, 1 << 20);

	for (uint64_t s = 1; s <= 12; s++) /* 12 > 9: order must not be by string length */
		append(sp, s, 64);
	assert_int_equal(spool_count(sp), 12);
	spool_close(sp);

	sp = open_spool(dir, 1 << 20);
	assert_int_equal(spool_count(sp), 12);
	assert_int_equal(spool_last_seq(sp), 12);
	for (uint64_t s = 1; s <= 12; s++) {
		assert_int_equal(peek_seq(sp, NULL), s);
		assert_int_equal(spool_ack(sp, s), 0);
	}
	assert_int_equal(spool_count(sp), 0);
	assert_int_equal(spool_bytes(sp), 0);
	spool_close(sp);
	sp = open_spool(dir, 1 << 20);
	assert_int_equal(spool_count(sp), 0); /* acknowledged means gone from disk */
	spool_close(sp);
}

static void test_spool_ack_only_the_oldest(void **state)
{
	struct spool *sp = open_spool(fresh_dir(), 1 << 20);

	append(sp, 1, 64);
	append(sp, 2, 64);
	assert_int_not_equal(spool_ack(sp, 2), 0); /* delivery is in order: 2 cannot go before 1 */
	assert_int_equal(spool_count(sp), 2);
	spool_close(sp);
}

static void test_spool_survives_truncated_tail(void **state)
{
	const char *dir = fresh_dir();
	struct spool *sp = open_spool(dir, 1 << 20);
	char path[600];

	for (uint64_t s = 1; s <= 3; s++)
		append(sp, s, 200);
	spool_close(sp);
	file_path(path, sizeof(path), dir, 3);
	assert_int_equal(truncate(path, 100), 0); /* power cut in the middle of the last write */

	sp = open_spool(dir, 1 << 20);
	assert_int_equal(spool_count(sp), 2);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(spool_last_seq(sp), 3);       /* its seq is never reused */
	assert_int_equal(spool_drop_count(sp, 10), 1); /* and the loss is reported, not silent */
	assert_int_equal(peek_seq(sp, NULL), 1);
	spool_close(sp);
}

static void test_spool_skips_corrupt_and_empty_files(void **state)
{
	const char *dir = fresh_dir();
	struct spool *sp = open_spool(dir, 1 << 20);
	char path[600];
	int fd;

	for (uint64_t s = 1; s <= 4; s++)
		append(sp, s, 200);
	/* Corrupt 1 behind the open spool's back: found at peek, skipped, counted. */
	file_path(path, sizeof(path), dir, 1);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "XXXX", 4, 100), 4);
	close(fd);
	assert_int_equal(peek_seq(sp, NULL), 2);
	assert_int_equal(spool_count(sp), 3);
	assert_int_equal(spool_drop_count(sp, 10), 1);
	spool_close(sp);

	/* An empty file and a leftover temp file: removed at open. */
	file_path(path, sizeof(path), dir, 9);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	close(fd);
	snprintf(path, sizeof(path), "%s/%020d.rep.tmp", dir, 10);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_int_equal(write(fd, "half", 4), 4);
	close(fd);
	sp = open_spool(dir, 1 << 20);
	assert_int_equal(spool_count(sp), 3);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(peek_seq(sp, NULL), 2);
	spool_close(sp);
}

static void test_spool_full_drops_oldest_first(void **state)
{
	const char *dir = fresh_dir();
	/* Room for five 1000-byte reports with their headers. */
	struct spool *sp = open_spool(dir, 5 * 1100);
	uint64_t carried, total = 0;

	for (uint64_t s = 1; s <= 20; s++) {
		append(sp, s, 1000);
		assert_true(spool_bytes(sp) <= 5 * 1100); /* never over the cap */
	}
	assert_int_equal(spool_count(sp), 5);
	/* The five newest survive, in order, and what they carry adds up to the 15 dropped. */
	for (uint64_t s = 16; s <= 20; s++) {
		assert_int_equal(peek_seq(sp, &carried), s);
		total += carried;
		assert_int_equal(spool_ack(sp, s), 0);
	}
	assert_int_equal(total, 15);
	spool_close(sp);
}

static void test_spool_drop_count_travels_when_carrier_is_dropped(void **state)
{
	/* Room for two: every append drops one, whose count the next report must take over. */
	struct spool *sp = open_spool(fresh_dir(), 2 * 600);
	uint64_t c1, c2;

	for (uint64_t s = 1; s <= 10; s++)
		append(sp, s, 500);
	assert_int_equal(spool_count(sp), 2);
	assert_int_equal(peek_seq(sp, &c1), 9);
	spool_ack(sp, 9);
	assert_int_equal(peek_seq(sp, &c2), 10);
	assert_int_equal(c1 + c2, 8);
	spool_close(sp);
}

static void test_spool_max_bytes_change_applies_at_next_append(void **state)
{
	struct spool *sp = open_spool(fresh_dir(), 1 << 20);
	uint64_t carried;

	for (uint64_t s = 1; s <= 10; s++)
		append(sp, s, 1000);
	spool_set_max_bytes(sp, 3 * 1100);
	append(sp, 11, 1000);
	assert_int_equal(spool_count(sp), 3);
	assert_true(spool_bytes(sp) <= 3 * 1100);
	assert_int_equal(peek_seq(sp, &carried), 9);
	spool_close(sp);
}

static void test_spool_oversized_report_still_kept(void **state)
{
	struct spool *sp = open_spool(fresh_dir(), 1024);

	append(sp, 1, 100);
	append(sp, 2, 2000); /* larger than the cap alone: the newest data wins */
	assert_int_equal(spool_count(sp), 1);
	assert_int_equal(peek_seq(sp, NULL), 2);
	spool_close(sp);
}

static void test_spool_open_fails_clearly(void **state)
{
	struct spool *sp = NULL;
	char err[512] = "";

	assert_true(spool_open(&sp, "/proc/self/no/such/spool", 1024, err, sizeof(err)) < 0);
	assert_null(sp);
	assert_non_null(strstr(err, "/proc/self/no/such/spool"));
}

static int setup(void **state)
{
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spool_replays_in_seq_order_across_reopen),
		cmocka_unit_test(test_spool_ack_only_the_oldest),
		cmocka_unit_test(test_spool_survives_truncated_tail),
		cmocka_unit_test(test_spool_skips_corrupt_and_empty_files),
		cmocka_unit_test(test_spool_full_drops_oldest_first),
		cmocka_unit_test(test_spool_drop_count_travels_when_carrier_is_dropped),
		cmocka_unit_test(test_spool_max_bytes_change_applies_at_next_append),
		cmocka_unit_test(test_spool_oversized_report_still_kept),
		cmocka_unit_test(test_spool_open_fails_clearly),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
