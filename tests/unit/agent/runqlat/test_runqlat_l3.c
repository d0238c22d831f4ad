/* test_runqlat_l3.c - work conservation per L3 domain: the idle clocks of
 * bpf/runqlat_idle.h against a brute-force replay of random idle/busy
 * schedules (the idle-sibling time of a wait is exactly the time some other
 * CPU of the domain was idle while the wait's CPU was not), across clock
 * wrap-around; and runqlat_l3_to_json's per-domain sums and caps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/runqlat/runqlat_report.h"
#include "bpf/runqlat_idle.h"

#define NCPU 4
#define STEPS 2000

/* A domain of NCPU CPUs driven through the same words BPF keeps. */
struct sim {
	uint64_t l3, cpu[NCPU];
	int idle[NCPU];
};

static void sim_set(struct sim *s, int c, int idle, uint64_t now)
{
	uint64_t w = s->cpu[c], nw = runqlat_cpu_word_next(w, idle, now);
	int was = (w & 3) == RUNQLAT_CPU_IDLE;

	s->cpu[c] = nw;
	if (was != idle) /* as bpf/runqlat.bpf.c idle_switch: unknown -> busy is no change */
		s->l3 = runqlat_l3_word_next(s->l3, idle, now);
	s->idle[c] = idle;
}

static int other_idle(const struct sim *s, int c)
{
	for (int k = 0; k < NCPU; k++)
		if (k != c && s->idle[k])
			return 1;
	return 0;
}

/* Random schedules; a wait on CPU c from step a to step b, replayed at unit
 * time steps starting at base: the clocks give exactly the brute-force time. */
static void replay(uint64_t base, unsigned seed)
{
	struct sim s;
	uint64_t t[STEPS + 1], snap = 0, end = 0, truth = 0, upper = 0, got;
	int wait_cpu = (int)(seed % NCPU), a = STEPS / 4, b = 3 * STEPS / 4;

	memset(&s, 0, sizeof(s));
	srand(seed);
	t[0] = base;
	for (int i = 1; i <= STEPS; i++)
		t[i] = t[i - 1] + 1 + (uint64_t)(rand() % 1000);
	/* every CPU's state known from a first switch, as after the agent's visit */
	for (int c = 0; c < NCPU; c++)
		sim_set(&s, c, rand() % 2, t[0]);
	for (int i = 0; i < STEPS; i++) {
		if (i == a)
			snap = runqlat_idle_other(s.l3, s.cpu[wait_cpu], t[i]);
		if (i == b)
			end = runqlat_idle_other(s.l3, s.cpu[wait_cpu], t[i]);
		if (i >= a && i < b) {
			uint64_t dt = t[i + 1] - t[i];

			if (other_idle(&s, wait_cpu) && !s.idle[wait_cpu])
				truth += dt;
			if (other_idle(&s, wait_cpu))
				upper += dt;
		}
		/* between steps each CPU may switch, at the next step's time */
		for (int c = 0; c < NCPU; c++)
			if (rand() % 4 == 0)
				sim_set(&s, c, !s.idle[c], t[i + 1]);
	}
	got = runqlat_idle_part(snap, end, t[b] - t[a]);

	assert_int_equal(got, truth);
	assert_true(got <= upper);
	assert_true(truth > 0); /* the schedules are busy enough to test something */
}

static void test_clocks_match_brute_force(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 50; seed++)
		replay(1000000000ULL * seed, seed);
}

static void test_clocks_across_wrap(void **state)
{
	(void)state;
	/* timestamps around the 52-bit wrap of the domain clock and far past it */
	replay((1ULL << 52) - 500000, 7);
	replay((1ULL << 62) - 123456, 8);
	replay(~0ULL - (1ULL << 40), 9);
}

static void test_single_cpu_domain_never_counts(void **state)
{
	uint64_t l3 = 0, cpu = 0, d0, d1;

	(void)state;
	cpu = runqlat_cpu_word_next(cpu, 0, 100);
	d0 = runqlat_idle_other(l3, cpu, 100);
	cpu = runqlat_cpu_word_next(cpu, 1, 200);
	l3 = runqlat_l3_word_next(l3, 1, 200);
	cpu = runqlat_cpu_word_next(cpu, 0, 900);
	l3 = runqlat_l3_word_next(l3, 0, 900);
	d1 = runqlat_idle_other(l3, cpu, 1000);
	assert_int_equal(runqlat_idle_part(d0, d1, 900), 0);
}

static void test_unknown_cpu_leaving_idle_is_not_counted(void **state)
{
	uint64_t cpu = 0;

	(void)state;
	/* unknown -> busy: the domain never counted it, the CPU clock stays 0 */
	cpu = runqlat_cpu_word_next(cpu, 0, 500);
	assert_int_equal(cpu & 3, RUNQLAT_CPU_BUSY);
	assert_int_equal(cpu >> 2, 0);
	/* busy -> busy changes nothing */
	assert_int_equal(runqlat_cpu_word_next(cpu, 0, 600), cpu);
}

static void test_idle_part_clamps(void **state)
{
	(void)state;
	assert_int_equal(runqlat_idle_part(100, 150, 1000), 50);
	assert_int_equal(runqlat_idle_part(100, 2000, 1000), 1000); /* a lagging clock: at most the wait */
	assert_int_equal(runqlat_idle_part(100, 90, 1000), 0);      /* slightly negative: none */
	assert_int_equal(runqlat_idle_part(RUNQLAT_IDLE_MOD_MASK - 5, 10, 1000), 16); /* across the wrap */
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_non_null(v);
	return v->valuedouble;
}

static void test_l3_json_sums_domains(void **state)
{
	unsigned d0[] = { 0, 2 }, d1[] = { 1, 3, 9 }; /* CPU 9 is past ncpu */
	struct topology_l3 doms[] = { { d0, 2, 0 }, { d1, 3, 0 } };
	struct topology t = { doms, 2 };
	struct runqlat_cpu_totals cpus[4] = {
		{ 100, 2, 30, 1 },
		{ 1000, 10, 5000, 20 },
		{ 50, 1, 0, 0 },
		{ 7, 1, 7, 1 },
	};
	cJSON *sec = cJSON_CreateObject(), *arr, *o;

	(void)state;
	assert_int_equal(runqlat_l3_to_json(&t, cpus, 4, sec), 0);
	arr = cJSON_GetObjectItemCaseSensitive(sec, "l3_domains");
	assert_int_equal(cJSON_GetArraySize(arr), 2);
	o = cJSON_GetArrayItem(arr, 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "cpus")), 2);
	assert_int_equal(num(o, "wait_ns"), 150);
	assert_int_equal(num(o, "waits"), 3);
	assert_int_equal(num(o, "idle_sibling_wait_ns"), 30);
	assert_int_equal(num(o, "idle_sibling_waits"), 1);
	o = cJSON_GetArrayItem(arr, 1);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "cpus")), 3);
	assert_int_equal(num(o, "wait_ns"), 1007);
	assert_int_equal(num(o, "waits"), 11);
	assert_int_equal(num(o, "idle_sibling_wait_ns"), 1007); /* capped at the wait */
	assert_int_equal(num(o, "idle_sibling_waits"), 11);
	cJSON_Delete(sec);
}

static void test_l3_json_no_domains(void **state)
{
	struct topology t = { NULL, 0 };
	cJSON *sec = cJSON_CreateObject();

	(void)state;
	assert_int_equal(runqlat_l3_to_json(&t, NULL, 0, sec), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sec, "l3_domains")), 0);
	cJSON_Delete(sec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clocks_match_brute_force),
		cmocka_unit_test(test_clocks_across_wrap),
		cmocka_unit_test(test_single_cpu_domain_never_counts),
		cmocka_unit_test(test_unknown_cpu_leaving_idle_is_not_counted),
		cmocka_unit_test(test_idle_part_clamps),
		cmocka_unit_test(test_l3_json_sums_domains),
		cmocka_unit_test(test_l3_json_no_domains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
