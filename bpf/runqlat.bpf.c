// SPDX-License-Identifier: GPL-2.0
/* runqlat.bpf.c - runqueue latency per cgroup and per CPU.
 *
 * A task's wait starts when it is woken (sched_wakeup, sched_wakeup_new) or
 * preempted while still runnable (sched_switch, prev), and ends when it is
 * switched in (sched_switch, next); the wait goes into the histogram of the
 * CPU it runs on and of its own default-hierarchy cgroup, cut to the
 * configured depth. The CPU histograms are also split by the class that
 * picked the task (sched_ext or the kernel's own), each sample attributed to
 * the scheduler that actually ran it, so a switch of scheduler in the middle
 * of an interval splits that interval exactly. Work per event is constant: the start time and the
 * task's cgroup slot live in task storage (no pid hash on the hot path); the
 * slot is looked up by cgroup id only when the task's cgroup or the slot
 * generation changed. Histograms are arrays written in place; nothing goes
 * to user space per event. The tp_btf programs are preferred; the raw_tp
 * ones are the fallback the agent enables on kernels without tp_btf, and
 * keep per-task state in a pid-keyed LRU hash because raw_tp arguments are
 * not BTF pointers task storage could take.
 *
 * Work conservation per L3 domain (cfg_l3): every switch to or from a CPU's
 * idle task (pid 0) moves that CPU's idle clock and its domain's
 * (runqlat_idle.h); a wait snapshots "some other CPU of the domain idle"
 * time of the CPU it queues on when it starts, and the growth of that clock
 * at its end is its idle-sibling time, counted next to the CPU histogram the
 * wait goes to.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "runqlat.h"

#define TASK_RUNNING 0
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))

const volatile __u32 cfg_depth = 2;
const volatile __u32 cfg_ncpu = 1;
const volatile __u32 cfg_max_cgroups = RUNQLAT_MAX_CGROUPS;
/* Keep per-task state in pid_state even on tp_btf (to measure the two). */
const volatile bool cfg_pid_hash;
/* Histograms per CPU: 1, or 1 + RUNQLAT_EXT_SLOTS where the kernel has sched_ext. */
const volatile __u32 cfg_sched_slots = 1;
/* Address of the kernel's ext_sched_class (from kallsyms, set by the agent). */
const volatile __u64 cfg_ext_class;
/* Track idle CPUs per L3 domain (the agent found L3 domains). */
const volatile bool cfg_l3;

/* Flipped by the agent; bit 0 selects the histogram half being written. */
__u32 interval;
/* Bumped by the agent when it frees slots: cached slots become invalid. */
__u32 slot_gen;
/* Events counted in the overflow slot because every slot was taken. */
__u64 overflow_events;
/* A CPU left idle while its domain counted no idle CPU: the idle clocks went
 * out of step (never seen; the agent logs it so an undercount can be traced). */
__u64 idle_desyncs;
/* Set by the agent: which sched_ext histogram (0..RUNQLAT_EXT_SLOTS-1) is current. */
__u32 ext_slot;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct runqlat_task);
} task_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1); /* sized by the agent when used */
	__type(key, __u32);
	__type(value, struct runqlat_task);
} pid_state SEC(".maps");

/* Cgroup id (of the ancestor at cfg_depth) -> histogram slot. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RUNQLAT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u32);
} cgroup_slots SEC(".maps");

/* Free slots; the agent fills it at start and returns slots of dead cgroups. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, RUNQLAT_MAX_CGROUPS);
	__uint(value_size, sizeof(__u32));
} free_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RUNQLAT_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, struct runqlat_slot_info);
} slot_info SEC(".maps");

/* [half * cfg_max_cgroups + slot], shared by all CPUs: updated atomically. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * RUNQLAT_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, struct runqlat_hist);
} cgroup_hists SEC(".maps");

/* [(half * cfg_ncpu + cpu) * cfg_sched_slots + class], each written only by
 * its own CPU under the rq lock. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct runqlat_hist);
} cpu_hists SEC(".maps");

/* [cpu]: idle clock and L3 domain of each CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct runqlat_cpu);
} cpu_state SEC(".maps");

/* [domain]: idle clock of each L3 domain, changed by all its CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct runqlat_l3);
} l3_state SEC(".maps");

/* [half * cfg_ncpu + cpu]: idle-sibling time of the waits of cpu_hists. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct runqlat_idle_sum);
} idle_sums SEC(".maps");

/* Kernels before 5.14 call the task state field `state`. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

/* Architectures whose thread_info has no cpu keep it in task_struct. */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/* Kernels before 6.0 keep ancestor ids instead of ancestor pointers. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

static __always_inline struct runqlat_task *state_get(struct task_struct *p, __u32 pid, bool btf,
						      bool create)
{
	struct runqlat_task *st, zero = {};

	if (btf && !cfg_pid_hash)
		return bpf_task_storage_get(&task_state, p, NULL,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	st = bpf_map_lookup_elem(&pid_state, &pid);
	if (st || !create)
		return st;
	bpf_map_update_elem(&pid_state, &pid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&pid_state, &pid);
}

static __always_inline bool task_runnable(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return BPF_CORE_READ(p, __state) == TASK_RUNNING;
	return BPF_CORE_READ((struct task_struct___old *)p, state) == TASK_RUNNING;
}

/* Id of the ancestor of cgrp at `level` (level <= cgrp's own level). */
static __always_inline __u64 cgroup_ancestor_id(struct cgroup *cgrp, __u32 level)
{
	struct cgroup *anc;

	if (level >= RUNQLAT_MAX_DEPTH + 1)
		return 0;
	if (bpf_core_field_exists(cgrp->ancestors)) {
		anc = BPF_CORE_READ(cgrp, ancestors[level]);
		return BPF_CORE_READ(anc, kn, id);
	}
	return BPF_CORE_READ((struct cgroup___old *)cgrp, ancestor_ids[level]);
}

/* Slot of the cgroup cgrp counts in: itself or its ancestor at cfg_depth.
 * Runs only when a task's cached slot is stale, so its loop over the
 * ancestor chain (at most RUNQLAT_MAX_DEPTH) is off the per-event path.
 */
static __noinline __u32 cgroup_slot(struct cgroup *cgrp)
{
	struct runqlat_slot_info *info;
	__u32 level, slot, *found;
	__u64 id;

	if (!cgrp)
		return RUNQLAT_OVERFLOW_SLOT;
	level = BPF_CORE_READ(cgrp, level);
	if (level > cfg_depth)
		level = cfg_depth;
	id = cgroup_ancestor_id(cgrp, level);
	found = bpf_map_lookup_elem(&cgroup_slots, &id);
	if (found)
		return *found;
	if (bpf_map_pop_elem(&free_slots, &slot))
		return RUNQLAT_OVERFLOW_SLOT;
	info = bpf_map_lookup_elem(&slot_info, &slot);
	if (!info)
		return RUNQLAT_OVERFLOW_SLOT;
	info->id = id;
	info->level = level;
	for (__u32 l = 0; l <= RUNQLAT_MAX_DEPTH; l++) {
		if (l > level)
			break;
		info->ids[l] = cgroup_ancestor_id(cgrp, l);
	}
	if (bpf_map_update_elem(&cgroup_slots, &id, &slot, BPF_NOEXIST)) {
		/* Another CPU gave this cgroup a slot first: use that one. */
		bpf_map_push_elem(&free_slots, &slot, 0);
		found = bpf_map_lookup_elem(&cgroup_slots, &id);
		return found ? *found : RUNQLAT_OVERFLOW_SLOT;
	}
	return slot;
}

/* hist_index() is always below HIST_BUCKETS, but the verifier cannot know:
 * hide the value from clang so the bounds check it needs is kept.
 */
static __always_inline __u32 bucket_of(__u64 delta)
{
	__u32 i = hist_index(delta);

	asm volatile("" : "+r"(i));
	return i;
}

static __always_inline void hist_add(struct runqlat_hist *h, __u64 delta)
{
	__u32 i = bucket_of(delta);

	if (i >= HIST_BUCKETS)
		return;
	h->buckets[i]++;
	h->count++;
	h->sum_ns += delta;
	if (delta > h->max_ns)
		h->max_ns = delta;
}

static __always_inline void hist_add_atomic(struct runqlat_hist *h, __u64 delta)
{
	__u32 i = bucket_of(delta);
	__u64 max;

	if (i >= HIST_BUCKETS)
		return;
	__sync_fetch_and_add(&h->buckets[i], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, delta);
	/* Bounded retries: a max lost to a storm of larger concurrent maxima
	 * is still below the one that won.
	 */
	for (int k = 0; k < 4; k++) {
		max = h->max_ns;
		if (delta <= max || __sync_val_compare_and_swap(&h->max_ns, max, delta) == max)
			break;
	}
}

/* The CPU the task is queued on (set before sched_wakeup fires). */
static __always_inline __u32 task_cpu_of(struct task_struct *p, bool btf)
{
	struct task_struct___cpu *q = (void *)p;

	if (bpf_core_field_exists(p->thread_info.cpu))
		return btf ? p->thread_info.cpu : BPF_CORE_READ(p, thread_info.cpu);
	return BPF_CORE_READ(q, cpu);
}

/* This CPU switched to (idle) or from (!idle) its idle task at now. */
static __always_inline void idle_switch(__u32 cpu, bool idle, __u64 now)
{
	__u64 w, nw, old;
	struct runqlat_cpu *cs;
	struct runqlat_l3 *l3;
	bool was;

	cs = bpf_map_lookup_elem(&cpu_state, &cpu);
	if (!cs)
		return;
	w = cs->idle_word;
	was = (w & 3) == RUNQLAT_CPU_IDLE;
	nw = runqlat_cpu_word_next(w, idle, now);
	if (nw == w)
		return;
	WRITE_ONCE(cs->idle_word, nw);
	if (was == idle || cs->domain == RUNQLAT_NO_DOMAIN)
		return; /* unknown -> busy: the domain never counted this CPU */
	l3 = bpf_map_lookup_elem(&l3_state, &cs->domain);
	if (!l3)
		return;
	for (int k = 0; k < 8; k++) {
		w = READ_ONCE(l3->idle_word);
		nw = runqlat_l3_word_next(w, idle, now);
		if (nw == w) {
			__sync_fetch_and_add(&idle_desyncs, 1);
			return;
		}
		old = __sync_val_compare_and_swap(&l3->idle_word, w, nw);
		if (old == w)
			return;
	}
	/* Contended 8 times: count the CPU now, move the clock just after (a
	 * reader in between may see a wait's share clamped). */
	old = __sync_fetch_and_add(&l3->idle_word, idle ? 1 : -1);
	if (idle && (old & RUNQLAT_IDLE_NR_MASK) == 0)
		__sync_fetch_and_add(&l3->idle_word, -(now << RUNQLAT_IDLE_NR_BITS));
	else if (!idle && (old & RUNQLAT_IDLE_NR_MASK) == 1)
		__sync_fetch_and_add(&l3->idle_word, now << RUNQLAT_IDLE_NR_BITS);
}

/* Snapshot of cpu's "another CPU of its domain idle" clock at now into st. */
static __always_inline void idle_snap(struct runqlat_task *st, __u32 cpu, __u64 now)
{
	struct runqlat_cpu *cs;
	struct runqlat_l3 *l3;

	st->idle_cpu = RUNQLAT_NO_DOMAIN;
	cs = bpf_map_lookup_elem(&cpu_state, &cpu);
	if (!cs || cs->domain == RUNQLAT_NO_DOMAIN)
		return;
	l3 = bpf_map_lookup_elem(&l3_state, &cs->domain);
	if (!l3)
		return;
	st->idle_snap = runqlat_idle_other(READ_ONCE(l3->idle_word), READ_ONCE(cs->idle_word), now);
	st->idle_cpu = cpu;
}

/* Idle-sibling part of a wait of delta ns that started with st's snapshot. */
static __always_inline __u64 idle_part(struct runqlat_task *st, __u64 now, __u64 delta)
{
	struct runqlat_cpu *cs;
	struct runqlat_l3 *l3;
	__u32 cpu = st->idle_cpu;

	cs = bpf_map_lookup_elem(&cpu_state, &cpu);
	if (!cs || cs->domain == RUNQLAT_NO_DOMAIN)
		return 0;
	l3 = bpf_map_lookup_elem(&l3_state, &cs->domain);
	if (!l3)
		return 0;
	return runqlat_idle_part(
	    st->idle_snap,
	    runqlat_idle_other(READ_ONCE(l3->idle_word), READ_ONCE(cs->idle_word), now), delta);
}

/* Histogram index of the class that runs p: 0 unless sched_ext does. */
static __always_inline __u32 sched_index(struct task_struct *p, bool btf)
{
	__u64 cls;

	if (cfg_sched_slots <= 1)
		return 0;
	cls = btf ? (__u64)p->sched_class : (__u64)BPF_CORE_READ(p, sched_class);
	if (cls != cfg_ext_class)
		return 0;
	return 1 + ext_slot % RUNQLAT_EXT_SLOTS;
}

static __always_inline int on_wakeup(struct task_struct *p, bool btf)
{
	struct runqlat_task *st;
	__u32 pid = btf ? p->pid : BPF_CORE_READ(p, pid);

	if (!pid)
		return 0;
	st = state_get(p, pid, btf, true);
	if (!st)
		return 0;
	st->enqueued_ns = bpf_ktime_get_ns();
	if (cfg_l3)
		idle_snap(st, task_cpu_of(p, btf), st->enqueued_ns);
	return 0;
}

static __always_inline int on_switch(struct task_struct *prev, struct task_struct *next, bool btf)
{
	__u64 now = bpf_ktime_get_ns(), delta, cgid, idle_ns = 0;
	__u32 pid, next_pid, half, gen, key, cpu = bpf_get_smp_processor_id();
	struct runqlat_idle_sum *is;
	struct runqlat_hist *h;
	struct runqlat_task *st;
	struct cgroup *cgrp;

	pid = btf ? prev->pid : BPF_CORE_READ(prev, pid);
	next_pid = btf ? next->pid : BPF_CORE_READ(next, pid);
	if (cfg_l3 && (!pid || !next_pid))
		idle_switch(cpu, !next_pid, now);
	if (pid && task_runnable(prev)) {
		st = state_get(prev, pid, btf, true);
		if (st) {
			st->enqueued_ns = now;
			if (cfg_l3)
				idle_snap(st, cpu, now);
		}
	}
	pid = next_pid;
	if (!pid)
		return 0;
	st = state_get(next, pid, btf, false);
	if (!st || !st->enqueued_ns)
		return 0;
	delta = now - st->enqueued_ns;
	st->enqueued_ns = 0;
	if ((__s64)delta < 0)
		return 0;
	if (cfg_l3 && st->idle_cpu != RUNQLAT_NO_DOMAIN)
		idle_ns = idle_part(st, now, delta);

	half = interval & 1;
	gen = slot_gen;
	if (btf)
		cgrp = next->cgroups->dfl_cgrp;
	else
		cgrp = BPF_CORE_READ(next, cgroups, dfl_cgrp);
	cgid = btf ? cgrp->kn->id : BPF_CORE_READ(cgrp, kn, id);
	if (st->cgroup_id != cgid || st->slot_gen != gen) {
		st->slot = cgroup_slot(cgrp);
		st->cgroup_id = cgid;
		st->slot_gen = gen;
	}
	if (st->slot == RUNQLAT_OVERFLOW_SLOT)
		__sync_fetch_and_add(&overflow_events, 1);
	key = half * cfg_max_cgroups + st->slot;
	h = bpf_map_lookup_elem(&cgroup_hists, &key);
	if (h)
		hist_add_atomic(h, delta);

	if (cpu >= cfg_ncpu)
		return 0;
	key = (half * cfg_ncpu + cpu) * cfg_sched_slots + sched_index(next, btf);
	h = bpf_map_lookup_elem(&cpu_hists, &key);
	if (!h)
		return 0;
	hist_add(h, delta);
	if (!idle_ns)
		return 0;
	key = half * cfg_ncpu + cpu;
	is = bpf_map_lookup_elem(&idle_sums, &key);
	if (is) {
		is->idle_ns += idle_ns;
		is->idle_waits++;
	}
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(schedio_rq_wake, struct task_struct *p)
{
	return on_wakeup(p, true);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(schedio_rq_wnew, struct task_struct *p)
{
	return on_wakeup(p, true);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(schedio_rq_swtch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(prev, next, true);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(schedio_rq_wake_r, struct task_struct *p)
{
	return on_wakeup(p, false);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(schedio_rq_wnew_r, struct task_struct *p)
{
	return on_wakeup(p, false);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(schedio_rq_swtch_r, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(prev, next, false);
}

char LICENSE[] SEC("license") = "GPL";
