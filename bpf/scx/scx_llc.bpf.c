// SPDX-License-Identifier: GPL-2.0
/* scx_llc.bpf.c - one FIFO dispatch queue per L3 cache domain, the talk's
 * second example. A task is queued on the domain of its CPU at enqueue time:
 * the CPU it last ran on, or on wakeup the CPU select_cpu picked, which
 * prefers that CPU and then idle CPUs sharing its L3. A CPU serves its own
 * domain's queue first and steals from the others only when that is empty,
 * so cache-warm tasks stay on their L3 and idle domains still help out.
 *
 * When to steal is the policy under experiment (llc_config.steal_after_ns):
 * at once, or only after the own domain has been empty that long. An idle CPU
 * that declines to steal would sleep until something wakes it, so declining
 * arms a timer that kicks idle CPUs when the delay is up; they then dispatch
 * again and steal. With SCHEDIO_SCX_STEAL_NEVER a CPU runs only its own
 * domain's tasks and idles beside a full queue of another domain (the
 * work-conservation experiment's bad case). The DSQ ids are the domain indexes 0..nr_domains-1; the
 * loader fills cpu_domain and llc_config before attaching.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

#define CLOCK_MONOTONIC 1

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDIO_SCX_MAX_CPUS);
	__type(key, u32);
	__type(value, u32);
} cpu_domain SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct schedio_scx_llc_config);
} llc_config SEC(".maps");

/* When a dispatching CPU first found its domain's queue empty; 0 while not. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCHEDIO_SCX_MAX_DOMAINS);
	__type(key, u32);
	__type(value, u64);
} empty_since SEC(".maps");

struct kick_timer {
	struct bpf_timer timer;
	u32 armed;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct kick_timer);
} kick_timer SEC(".maps");

static __always_inline struct schedio_scx_llc_config *llc_cfg(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&llc_config, &zero);
}

static __always_inline u32 domain_of(s32 cpu)
{
	u32 key = cpu;
	u32 *d = bpf_map_lookup_elem(&cpu_domain, &key);

	return d ? *d : 0;
}

/* Wakes every idle CPU so those that declined to steal look again. */
static int kick_idle_cpus(void *map, u32 *key, struct kick_timer *kt)
{
	struct schedio_scx_llc_config *cfg = llc_cfg();
	u32 nr = cfg ? cfg->nr_cpus : 0;

	kt->armed = 0;
	for (u32 cpu = 0; cpu < SCHEDIO_SCX_MAX_CPUS && cpu < nr; cpu++)
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	return 0;
}

static __always_inline void arm_kick(u64 delay_ns)
{
	u32 zero = 0;
	struct kick_timer *kt = bpf_map_lookup_elem(&kick_timer, &zero);

	/* A lost race only restarts the timer: one extra kick, never a missed one. */
	if (kt && !kt->armed) {
		kt->armed = 1;
		bpf_timer_start(&kt->timer, delay_ns, 0);
	}
}

SCX_OPS(llc_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);

	if (is_idle)
		scx_stat_inc(SCHEDIO_SCX_STAT_IDLE_PICKS);
	return cpu;
}

SCX_OPS(llc_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, domain_of(scx_bpf_task_cpu(p)), SCX_SLICE_DFL, enq_flags);
	scx_stat_inc(SCHEDIO_SCX_STAT_ENQUEUED);
	return 0;
}

SCX_OPS(llc_dispatch, s32 cpu, struct task_struct *prev)
{
	struct schedio_scx_llc_config *cfg = llc_cfg();
	u32 own = domain_of(cpu), nr, i;
	u64 now, waited = 0, *since;

	if (!cfg)
		return 0;
	nr = cfg->nr_domains;
	since = bpf_map_lookup_elem(&empty_since, &own);
	if (scx_bpf_dsq_move_to_local(own)) {
		if (since)
			*since = 0;
		scx_stat_inc(SCHEDIO_SCX_STAT_DISPATCHED);
		return 0;
	}
	if (nr < 2 || cfg->steal_after_ns == SCHEDIO_SCX_STEAL_NEVER)
		return 0;
	now = bpf_ktime_get_ns();
	if (since) {
		if (!*since)
			*since = now;
		waited = now - *since;
	}
	if (cfg->steal_after_ns && waited < cfg->steal_after_ns) {
		for (i = 1; i < SCHEDIO_SCX_MAX_DOMAINS && i < nr; i++) {
			if (scx_bpf_dsq_nr_queued((own + i) % nr) > 0) {
				arm_kick(cfg->steal_after_ns - waited);
				break;
			}
		}
		return 0;
	}
	for (i = 1; i < SCHEDIO_SCX_MAX_DOMAINS && i < nr; i++) {
		if (scx_bpf_dsq_move_to_local((own + i) % nr)) {
			scx_stat_inc(SCHEDIO_SCX_STAT_DISPATCHED);
			scx_stat_inc(SCHEDIO_SCX_STAT_STOLEN);
			return 0;
		}
	}
	return 0;
}

/* Sleepable (set by the loader): creating DSQs allocates. */
SCX_OPS(llc_init)
{
	struct schedio_scx_llc_config *cfg = llc_cfg();
	struct kick_timer *kt;
	u32 zero = 0, d;
	s32 err;

	if (!cfg || cfg->nr_domains == 0)
		return -22; /* -EINVAL: the loader did not describe the topology */
	for (d = 0; d < SCHEDIO_SCX_MAX_DOMAINS && d < cfg->nr_domains; d++) {
		err = scx_bpf_create_dsq(d, -1);
		if (err)
			return err;
	}
	kt = bpf_map_lookup_elem(&kick_timer, &zero);
	if (!kt)
		return -12;
	bpf_timer_init(&kt->timer, &kick_timer, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&kt->timer, kick_idle_cpus);
	return 0;
}

SCX_OPS(llc_exit, struct scx_exit_info *ei)
{
	scx_record_exit(ei);
	return 0;
}

SEC(".struct_ops")
struct sched_ext_ops scx_llc = {
	.select_cpu = (void *)llc_select_cpu,
	.enqueue = (void *)llc_enqueue,
	.dispatch = (void *)llc_dispatch,
	.init = (void *)llc_init,
	.exit = (void *)llc_exit,
	.name = "scx_llc",
};
