/* test_sched_ext_health.c - agent/host/sched_ext_health.c on a fake
 * /sys/kernel/sched_ext: within one interval scx_fifo runs, then scx_broken
 * is loaded and ejected; the report names both with their enable_seq, sums
 * the event counters across the two instances (each new one from zero, as
 * the kernel counts them), counts nr_rejected across the zeroing of an
 * enable, and lists both exits with the kernel log's reason and message.
 * From the kernel log too: a scheduler read before enable_seq counts it, one
 * that came and went between two polls (scx_broken starves the agent).
 * What was counted before the agent looked is not in any interval; the next
 * interval starts with the scheduler in force; without the kernel log an
 * unloaded scheduler is an exit of kind unknown; a message that does not
 * follow its "disabled" record is not attached, a record written from user
 * space is not the kernel's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "agent/host/sched_ext_health.h"

struct tree {
	char root[64];
};

static void put(const struct tree *t, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Loads ops (sysfs as the kernel shows it while one runs). */
static void load(const struct tree *t, const char *ops, const char *seq, const char *events)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/root", t->root);
	mkdir(path, 0755);
	put(t, "state", "enabled\n");
	put(t, "enable_seq", seq);
	put(t, "switch_all", "1\n");
	put(t, "root/ops", ops);
	put(t, "root/events", events);
}

static void unload(const struct tree *t)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/root/ops", t->root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/root/events", t->root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/root", t->root);
	rmdir(path);
	put(t, "state", "disabled\n");
	put(t, "switch_all", "0\n");
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	snprintf(t->root, sizeof(t->root), "/tmp/schedio-health.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	put(t, "state", "disabled\n");
	put(t, "enable_seq", "4\n");
	put(t, "nr_rejected", "5\n");
	put(t, "switch_all", "0\n");
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static void rec(struct sched_ext_health *h, const char *r)
{
	/* the records' µs timestamps are the polls' wall ms here */
	sched_ext_health_kmsg_record(h, r, strlen(r), 0);
}

static cJSON *take(struct sched_ext_health *h, int64_t now_ms)
{
	cJSON *o = cJSON_CreateObject();

	assert_int_equal(sched_ext_health_take(h, now_ms, o), 0);
	return o;
}

static double num(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *str(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static void test_health_two_schedulers_in_one_interval(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	cJSON *o, *s, *e, *ev;

	assert_int_equal(sched_ext_health_open(&h, t->root, NULL), 0);
	o = take(h, 1000); /* the baseline interval: nothing ran */
	assert_int_equal(num(o, "enable_seq"), 4);
	assert_int_equal(num(o, "nr_rejected"), 0);
	assert_null(cJSON_GetObjectItem(o, "events"));
	assert_null(cJSON_GetObjectItem(o, "schedulers"));
	assert_null(cJSON_GetObjectItem(o, "exits"));
	cJSON_Delete(o);

	/* scx_fifo: enable zeroes nr_rejected, counts 2 rejections */
	put(t, "nr_rejected", "0\n");
	load(t, "scx_fifo\n", "5\n", "SCX_EV_SELECT_CPU_FALLBACK 3\nSCX_EV_BYPASS_ACTIVATE 1\n");
	sched_ext_health_poll(h, 2000);
	put(t, "nr_rejected", "2\n");
	put(t, "root/events", "SCX_EV_SELECT_CPU_FALLBACK 10\nSCX_EV_BYPASS_ACTIVATE 1\n");
	sched_ext_health_poll(h, 3000);
	unload(t);
	rec(h, "6,411,3500000,-;sched_ext: BPF scheduler \"scx_fifo\" disabled (unregistered from user space)\n");
	sched_ext_health_poll(h, 4000);
	/* scx_broken: a new instance, its counters from zero */
	put(t, "nr_rejected", "1\n");
	load(t, "scx_broken\n", "6\n", "SCX_EV_SELECT_CPU_FALLBACK 4\nSCX_EV_BYPASS_ACTIVATE 2\n");
	sched_ext_health_poll(h, 5000);
	/* disabling: switch_all reads 0 already, ops is still there */
	put(t, "state", "disabling\n");
	put(t, "switch_all", "0\n");
	sched_ext_health_poll(h, 6000);
	unload(t);
	rec(h, "3,415,7000000,-;sched_ext: BPF scheduler \"scx_broken\" disabled (runnable task stall)\n");
	rec(h, "3,416,7000100,-;sched_ext: scx_broken: kworker/0:0[9] failed to run for 3.008s\n");
	rec(h, "4,417,7000200,-;   __scx_exit+0x4f/0x70\n");
	o = take(h, 9000);

	assert_int_equal(num(o, "enable_seq"), 6);
	assert_int_equal(num(o, "nr_rejected"), 3);
	ev = cJSON_GetObjectItem(o, "events");
	assert_int_equal(num(ev, "select_cpu_fallback"), 14);
	assert_int_equal(num(ev, "bypass_activate"), 3);
	s = cJSON_GetObjectItem(o, "schedulers");
	assert_int_equal(cJSON_GetArraySize(s), 2);
	assert_string_equal(str(cJSON_GetArrayItem(s, 0), "ops"), "scx_fifo");
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "enable_seq"), 5);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "first_ms"), 2000);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "last_ms"), 3500); /* its "disabled" record */
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(s, 0), "partial")));
	assert_string_equal(str(cJSON_GetArrayItem(s, 1), "ops"), "scx_broken");
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "enable_seq"), 6);
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "last_ms"), 7000);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(s, 1), "partial")));
	e = cJSON_GetObjectItem(o, "exits");
	assert_int_equal(cJSON_GetArraySize(e), 2);
	assert_string_equal(str(cJSON_GetArrayItem(e, 0), "kind"), "unreg");
	assert_string_equal(str(cJSON_GetArrayItem(e, 0), "reason"), "unregistered from user space");
	assert_string_equal(str(cJSON_GetArrayItem(e, 0), "message"), "");
	assert_int_equal(num(cJSON_GetArrayItem(e, 0), "t_ms"), 3500);
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "ops"), "scx_broken");
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "kind"), "error_stall");
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "reason"), "runnable task stall");
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "message"), "kworker/0:0[9] failed to run for 3.008s");
	cJSON_Delete(o);

	/* nothing ran in the next interval: no events, no schedulers, no exits */
	o = take(h, 10000);
	assert_int_equal(num(o, "nr_rejected"), 0);
	assert_null(cJSON_GetObjectItem(o, "events"));
	assert_null(cJSON_GetObjectItem(o, "schedulers"));
	assert_null(cJSON_GetObjectItem(o, "exits"));
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

static void test_health_from_the_kernel_log_alone(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	cJSON *o, *s, *e;

	assert_int_equal(sched_ext_health_open(&h, t->root, NULL), 0);
	/* the kernel prints "enabled" and sends the uevent before enable_seq
	 * counts the enable: a poll right then reads the old value (4) */
	rec(h, "6,410,2000000,-;sched_ext: BPF scheduler \"scx_fifo\" enabled\n");
	load(t, "scx_fifo\n", "4\n", "SCX_EV_SELECT_CPU_FALLBACK 1\n");
	sched_ext_health_poll(h, 2001);
	put(t, "enable_seq", "5\n");
	put(t, "root/events", "SCX_EV_SELECT_CPU_FALLBACK 2\n");
	sched_ext_health_poll(h, 3000);
	unload(t);
	rec(h, "6,411,3500000,-;sched_ext: BPF scheduler \"scx_fifo\" disabled (unregistered from user space)\n");
	/* scx_broken starves the agent: it comes and goes between two polls */
	rec(h, "6,414,4000000,-;sched_ext: BPF scheduler \"scx_broken\" enabled (partial)\n");
	rec(h, "3,415,7000000,-;sched_ext: BPF scheduler \"scx_broken\" disabled (runnable task stall)\n");
	put(t, "enable_seq", "6\n");
	sched_ext_health_poll(h, 8000);
	o = take(h, 9000);
	s = cJSON_GetObjectItem(o, "schedulers");
	assert_int_equal(cJSON_GetArraySize(s), 2);
	assert_string_equal(str(cJSON_GetArrayItem(s, 0), "ops"), "scx_fifo");
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "enable_seq"), 5);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "first_ms"), 2000);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "last_ms"), 3500);
	assert_string_equal(str(cJSON_GetArrayItem(s, 1), "ops"), "scx_broken");
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "enable_seq"), 6);
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "first_ms"), 4000);
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "last_ms"), 7000);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(s, 1), "partial")));
	/* scx_fifo counted 2 (from zero), scx_broken's counters were never read */
	assert_int_equal(num(cJSON_GetObjectItem(o, "events"), "select_cpu_fallback"), 2);
	e = cJSON_GetObjectItem(o, "exits");
	assert_int_equal(cJSON_GetArraySize(e), 2);
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "kind"), "error_stall");
	assert_int_equal(num(o, "enable_seq"), 6);
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

static void test_health_reads_records_from_the_log_device(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	char path[PATH_MAX];
	const char
	    *r1 = "6,410,2000000,-;sched_ext: BPF scheduler \"scx_fifo\" enabled\n",
	    *r2 = "6,411,3500000,-;sched_ext: BPF scheduler \"scx_fifo\" disabled (unregistered from user space)\n";
	cJSON *o, *e;
	int fd;

	/* a FIFO stands for /dev/kmsg: one record per read, then EAGAIN; the
	 * watcher's poll reads it under the same lock as the records it takes */
	snprintf(path, sizeof(path), "%s/kmsg", t->root);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(sched_ext_health_open(&h, t->root, path), 0);
	assert_true(sched_ext_health_has_kmsg(h));
	fd = open(path, O_WRONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, r1, strlen(r1)), (ssize_t)strlen(r1));
	sched_ext_health_poll(h, 2500);
	assert_int_equal(write(fd, r2, strlen(r2)), (ssize_t)strlen(r2));
	sched_ext_health_poll(h, 4000);
	o = take(h, 5000);
	e = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "exits"), 0);
	assert_non_null(e);
	assert_string_equal(str(e, "kind"), "unreg");
	assert_string_equal(str(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "schedulers"), 0), "ops"), "scx_fifo");
	cJSON_Delete(o);
	close(fd);
	sched_ext_health_close(h);
}

static void test_health_poll_before_the_enabled_record(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	cJSON *o, *s;

	assert_int_equal(sched_ext_health_open(&h, t->root, NULL), 0);
	/* the state reads "enabled" a moment before the kernel logs it */
	load(t, "scx_fifo\n", "4\n", "SCX_EV_SELECT_CPU_FALLBACK 1\n");
	sched_ext_health_poll(h, 2000);
	rec(h, "6,410,2001000,-;sched_ext: BPF scheduler \"scx_fifo\" enabled\n");
	put(t, "enable_seq", "5\n");
	sched_ext_health_poll(h, 3000);
	/* then a real reload of the same scheduler, between two polls */
	rec(h, "6,411,3500000,-;sched_ext: BPF scheduler \"scx_fifo\" disabled (unregistered from user space)\n");
	rec(h, "6,412,3600000,-;sched_ext: BPF scheduler \"scx_fifo\" enabled\n");
	put(t, "enable_seq", "6\n");
	sched_ext_health_poll(h, 4000);
	o = take(h, 5000);
	s = cJSON_GetObjectItem(o, "schedulers");
	assert_int_equal(cJSON_GetArraySize(s), 2);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "enable_seq"), 5);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "last_ms"), 3500);
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "enable_seq"), 6);
	assert_int_equal(num(cJSON_GetArrayItem(s, 1), "first_ms"), 3600);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "exits")), 1);
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

static void test_health_baseline_and_next_interval(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	cJSON *o, *s;

	/* loaded before the agent: its counts so far belong to no interval */
	load(t, "scx_llc\n", "9\n", "SCX_EV_DISPATCH_KEEP_LAST 100\n");
	put(t, "switch_all", "0\n"); /* partial */
	put(t, "nr_rejected", "7\n");
	assert_int_equal(sched_ext_health_open(&h, t->root, NULL), 0);
	put(t, "root/events", "SCX_EV_DISPATCH_KEEP_LAST 130\n");
	o = take(h, 5000);
	assert_int_equal(num(cJSON_GetObjectItem(o, "events"), "dispatch_keep_last"), 30);
	assert_int_equal(num(o, "nr_rejected"), 0);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "schedulers"), 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(s, "partial")));
	cJSON_Delete(o);
	/* still loaded: the next interval names it from its start, events 0 */
	o = take(h, 8000);
	assert_int_equal(num(cJSON_GetObjectItem(o, "events"), "dispatch_keep_last"), 0);
	s = cJSON_GetObjectItem(o, "schedulers");
	assert_int_equal(cJSON_GetArraySize(s), 1);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "first_ms"), 5000);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "last_ms"), 8000);
	assert_int_equal(num(cJSON_GetArrayItem(s, 0), "enable_seq"), 9);
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

static void test_health_without_kmsg_exits_are_unknown(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	cJSON *o, *e;

	/* a path that cannot be opened stands for an unreadable /dev/kmsg */
	assert_int_equal(sched_ext_health_open(&h, t->root, "/nonexistent/kmsg"), 0);
	assert_false(sched_ext_health_has_kmsg(h));
	load(t, "scx_fifo\n", "5\n", "");
	sched_ext_health_poll(h, 2000);
	unload(t);
	sched_ext_health_poll(h, 3000);
	o = take(h, 4000);
	e = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "exits"), 0);
	assert_non_null(e);
	assert_string_equal(str(e, "ops"), "scx_fifo");
	assert_string_equal(str(e, "kind"), "unknown");
	assert_string_equal(str(e, "reason"), "");
	assert_int_equal(num(e, "t_ms"), 3000);
	/* the events file was empty: no counters to report */
	assert_null(cJSON_GetObjectItem(o, "events"));
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

static void test_health_message_must_follow_its_record(void **state)
{
	struct tree *t = *state;
	struct sched_ext_health *h;
	cJSON *o, *e;

	assert_int_equal(sched_ext_health_open(&h, t->root, NULL), 0);
	rec(h, "3,20,1000,-;sched_ext: BPF scheduler \"a\" disabled (scx_bpf_error)\n");
	rec(h, "3,22,1000,-;sched_ext: a: not the next record\n");
	rec(h, "3,30,1000,-;sched_ext: BPF scheduler \"b\" disabled (runtime error)\n");
	rec(h, "3,31,1000,-;sched_ext: c: another scheduler's\n");
	rec(h, "14,32,1000,-;sched_ext: BPF scheduler \"d\" disabled (runtime error)\n"); /* user-space: not the
											     kernel's */
	rec(h, "garbage");
	rec(h, "");
	o = take(h, 4000);
	e = cJSON_GetObjectItem(o, "exits");
	assert_int_equal(cJSON_GetArraySize(e), 2);
	assert_string_equal(str(cJSON_GetArrayItem(e, 0), "kind"), "error_bpf");
	assert_string_equal(str(cJSON_GetArrayItem(e, 0), "message"), "");
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "kind"), "error");
	assert_string_equal(str(cJSON_GetArrayItem(e, 1), "message"), "");
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

static void test_health_kernel_without_files(void **state)
{
	struct sched_ext_health *h;
	cJSON *o;

	(void)state;
	assert_int_equal(sched_ext_health_open(&h, "/nonexistent/sched_ext", NULL), 0);
	o = take(h, 1000);
	assert_null(cJSON_GetObjectItem(o, "enable_seq"));
	assert_null(cJSON_GetObjectItem(o, "nr_rejected"));
	assert_null(cJSON_GetObjectItem(o, "events"));
	cJSON_Delete(o);
	sched_ext_health_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_health_two_schedulers_in_one_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_from_the_kernel_log_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_reads_records_from_the_log_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_poll_before_the_enabled_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_baseline_and_next_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_without_kmsg_exits_are_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_message_must_follow_its_record, setup, teardown),
		cmocka_unit_test(test_health_kernel_without_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
