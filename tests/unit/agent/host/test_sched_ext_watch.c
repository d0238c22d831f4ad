/* test_sched_ext_watch.c - the sched_ext transitions of an interval: each
 * change of (state, ops) once, with its time, oldest first; nothing when
 * nothing changed; the latest change kept when the list overflows; every
 * follower gets each change as well, until it unfollows; with kernel uevents
 * the watcher polls slowly, except while the state is passing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/host/sched_ext_watch.h"

/* A fake sysfs the test flips while the watcher polls it. */
struct fake {
	pthread_mutex_t lock;
	char state[32], ops[128];
	int reads;
};

static void fake_read(void *arg, char *state, size_t state_len, char *ops, size_t ops_len)
{
	struct fake *f = arg;

	pthread_mutex_lock(&f->lock);
	snprintf(state, state_len, "%s", f->state);
	snprintf(ops, ops_len, "%s", f->ops);
	f->reads++;
	pthread_mutex_unlock(&f->lock);
}

static void fake_set(struct fake *f, const char *state, const char *ops)
{
	pthread_mutex_lock(&f->lock);
	snprintf(f->state, sizeof(f->state), "%s", state);
	snprintf(f->ops, sizeof(f->ops), "%s", ops);
	pthread_mutex_unlock(&f->lock);
}

/* Waits until the watcher has polled at least n times more. */
static void settle_n(struct fake *f, int n)
{
	int start;

	pthread_mutex_lock(&f->lock);
	start = f->reads;
	pthread_mutex_unlock(&f->lock);
	for (;;) {
		usleep(2000);
		pthread_mutex_lock(&f->lock);
		int done = f->reads >= start + n;
		pthread_mutex_unlock(&f->lock);
		if (done)
			return;
	}
}

/* Waits until the watcher has polled at least twice more. */
static void settle(struct fake *f)
{
	settle_n(f, 2);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A watcher of f polling every period_ms, without uevents. */
static int start(struct sched_ext_watch **w, unsigned period_ms, struct fake *f)
{
	const struct sched_ext_watch_cfg cfg = { .period_ms = period_ms, .read = fake_read, .arg = f };

	return sched_ext_watch_start(w, &cfg);
}

static int reads(struct fake *f)
{
	int n;

	pthread_mutex_lock(&f->lock);
	n = f->reads;
	pthread_mutex_unlock(&f->lock);
	return n;
}

static void test_sched_ext_watch_reports_each_change_once(void **state)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .state = "disabled" };
	struct sched_ext_watch *w;
	long long t0 = now_ms();
	cJSON *arr, *e;

	assert_int_equal(start(&w, 1, &f), 0);
	settle(&f);
	arr = sched_ext_watch_take(w);
	assert_int_equal(cJSON_GetArraySize(arr), 0); /* the baseline is no transition */
	cJSON_Delete(arr);

	fake_set(&f, "enabled", "scx_fifo");
	settle(&f);
	fake_set(&f, "disabled", "");
	settle(&f);
	arr = sched_ext_watch_take(w);
	assert_int_equal(cJSON_GetArraySize(arr), 2);
	e = cJSON_GetArrayItem(arr, 0);
	assert_string_equal(cJSON_GetObjectItem(e, "state")->valuestring, "enabled");
	assert_string_equal(cJSON_GetObjectItem(e, "ops")->valuestring, "scx_fifo");
	assert_true(cJSON_GetObjectItem(e, "t_ms")->valuedouble >= (double)t0);
	e = cJSON_GetArrayItem(arr, 1);
	assert_string_equal(cJSON_GetObjectItem(e, "state")->valuestring, "disabled");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "ops")));
	assert_true(cJSON_GetObjectItem(e, "t_ms")->valuedouble >=
		    cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "t_ms")->valuedouble);
	cJSON_Delete(arr);

	arr = sched_ext_watch_take(w); /* taken means gone */
	assert_int_equal(cJSON_GetArraySize(arr), 0);
	cJSON_Delete(arr);
	sched_ext_watch_stop(w);
}

static void test_sched_ext_watch_overflow_keeps_the_latest(void **state)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .state = "disabled" };
	struct sched_ext_watch *w;
	char ops[32];
	cJSON *arr, *last;

	assert_int_equal(start(&w, 1, &f), 0);
	for (int i = 0; i < 100; i++) {
		snprintf(ops, sizeof(ops), "scx_%d", i);
		fake_set(&f, "enabled", ops);
		settle(&f);
	}
	arr = sched_ext_watch_take(w);
	assert_true(cJSON_GetArraySize(arr) >= 2 && cJSON_GetArraySize(arr) <= 64);
	last = cJSON_GetArrayItem(arr, cJSON_GetArraySize(arr) - 1);
	assert_string_equal(cJSON_GetObjectItem(last, "ops")->valuestring, "scx_99");
	cJSON_Delete(arr);
	sched_ext_watch_stop(w);
}

/* What a follower was handed, in order. */
struct followed {
	pthread_mutex_t lock;
	char seen[8][160];
	int n;
};

static void follow(void *arg, const char *state, const char *ops)
{
	struct followed *fw = arg;

	pthread_mutex_lock(&fw->lock);
	if (fw->n < 8)
		snprintf(fw->seen[fw->n++], sizeof(fw->seen[0]), "%s/%s", state, ops);
	pthread_mutex_unlock(&fw->lock);
}

static void test_sched_ext_watch_followers_get_each_change(void **state)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .state = "disabled" };
	struct followed fw = { .lock = PTHREAD_MUTEX_INITIALIZER }, fw2 = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct sched_ext_watch *w;
	cJSON *arr;

	assert_int_equal(start(&w, 1, &f), 0);
	assert_int_equal(sched_ext_watch_follow(w, follow, &fw), 0);
	assert_int_equal(sched_ext_watch_follow(w, follow, &fw2), 0);
	settle(&f);
	fake_set(&f, "enabled", "scx_fifo");
	settle(&f);
	fake_set(&f, "enabled", "scx_llc");
	settle(&f);
	sched_ext_watch_unfollow(w, follow, &fw2);
	fake_set(&f, "disabled", "");
	settle(&f);
	assert_int_equal(fw.n, 3); /* the baseline is not a change */
	assert_string_equal(fw.seen[0], "enabled/scx_fifo");
	assert_string_equal(fw.seen[1], "enabled/scx_llc");
	assert_string_equal(fw.seen[2], "disabled/");
	assert_int_equal(fw2.n, 2); /* nothing after unfollow */
	assert_string_equal(fw2.seen[1], "enabled/scx_llc");

	/* handed over and recorded: the report's transitions see the same */
	arr = sched_ext_watch_take(w);
	assert_int_equal(cJSON_GetArraySize(arr), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 1), "ops")->valuestring, "scx_llc");
	cJSON_Delete(arr);

	/* four followers at most */
	assert_int_equal(sched_ext_watch_follow(w, follow, &fw2), 0);
	assert_int_equal(sched_ext_watch_follow(w, follow, &fw2), 0);
	assert_int_equal(sched_ext_watch_follow(w, follow, &fw2), 0);
	assert_int_equal(sched_ext_watch_follow(w, follow, &fw2), -ENOSPC);
	sched_ext_watch_stop(w);
}

static void test_sched_ext_watch_on_uevents_polls_slowly_unless_passing(void **state)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .state = "enabling", .ops = "scx_fifo" };
	const struct sched_ext_watch_cfg cfg = {
		.period_ms = 1, .uevent_period_ms = 60000, .read = fake_read, .arg = &f
	};
	struct sched_ext_watch *w;
	cJSON *arr;
	int n;

	assert_int_equal(sched_ext_watch_start(&w, &cfg), 0);
	assert_true(sched_ext_watch_on_uevents(w)); /* any process may listen to kernel uevents */
	/* "enabling" is passing: polled every period_ms until it settles */
	settle(&f);
	fake_set(&f, "enabled", "scx_fifo");
	settle_n(&f, 1);
	/* settled: the next poll is a uevent away (or 60 s) */
	usleep(50000);
	n = reads(&f);
	fake_set(&f, "disabled", "");
	usleep(200000);
	assert_int_equal(reads(&f), n);
	arr = sched_ext_watch_take(w);
	assert_int_equal(cJSON_GetArraySize(arr), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "state")->valuestring, "enabled");
	cJSON_Delete(arr);
	sched_ext_watch_stop(w);
}

static void test_sched_ext_watch_stop_is_prompt(void **state)
{
	struct fake f = { .lock = PTHREAD_MUTEX_INITIALIZER, .state = "disabled" };
	struct sched_ext_watch *w;
	long long t0;

	assert_int_equal(start(&w, 60000, &f), 0);
	t0 = now_ms();
	sched_ext_watch_stop(w); /* must not wait out the 60 s period */
	assert_true(now_ms() - t0 < 5000);
	sched_ext_watch_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_ext_watch_reports_each_change_once),
		cmocka_unit_test(test_sched_ext_watch_overflow_keeps_the_latest),
		cmocka_unit_test(test_sched_ext_watch_followers_get_each_change),
		cmocka_unit_test(test_sched_ext_watch_on_uevents_polls_slowly_unless_passing),
		cmocka_unit_test(test_sched_ext_watch_stop_is_prompt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
