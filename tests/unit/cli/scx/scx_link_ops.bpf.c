// SPDX-License-Identifier: GPL-2.0
/* scx_link_ops.bpf.c - a scheduler written the way the sched_ext community
 * writes them, for test_scx_sched: its ops in SEC(".struct_ops.link"), its
 * sleepable callbacks in SEC("struct_ops.s/..."), its own name (not the
 * variable's), flags and watchdog timeout; the kernel's constants read
 * from `const volatile u64 __SCX_*` globals its loader fills (left at 0,
 * enqueue would insert into DSQ 0, which does not exist, and the kernel would
 * eject it), a CPU count in rodata, a map sized with --map-size, and the
 * kernel's exit info kept in a `uei` record laid out as the community's
 * user_exit_info.h lays it out (kind written last), a kptr (a BPF cpumask
 * kept in a map: its `kptr` type tag survives only a clang newer than
 * Debian 12's default 14, so the build uses clang-19) and a bpf_for loop
 * (libbpf >= 1.2's open-coded iterator), and a per-CPU array declared with
 * one element in its own .data section (the community's RESIZABLE_ARRAY),
 * which the loader sizes to the CPUs.
 * test_scx_sched opens it; the VM test loads and runs it.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

#define LINK_DSQ 7

/* The community's convention: the loader copies SCX_NAME from the kernel's
 * BTF into __SCX_NAME before load. __SCX_ENQ_LINK_TEST is no kernel's: it
 * keeps its own value. */
const volatile u64 __SCX_DSQ_GLOBAL __weak;
const volatile u64 __SCX_SLICE_DFL __weak;
const volatile u64 __SCX_ENQ_LINK_TEST = 42;
const volatile u32 nr_cpu_ids = 1;
/* For --set: */
const volatile s32 link_nice = -3;
const volatile bool link_quiet = false;

/* Sized by --map-size in the tests: one slot per task the scheduler saw. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, u32);
	__type(value, u64);
} link_tasks SEC(".maps");

/* A kptr in a map value: the CPUs the scheduler was set up for. */
struct link_mask {
	struct bpf_cpumask __kptr *cpus;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct link_mask);
} link_masks SEC(".maps");

struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *cpumask) __ksym;
u32 bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;

/* When each CPU dispatched last: one element here, nr_cpu_ids once loaded. */
u64 link_dispatched_at[1] SEC(".data.link_dispatched_at");

/* How many CPUs init put in the mask (nr_cpu_ids, through bpf_for). */
u32 link_mask_weight;

/* The community's exit record, in .data. */
struct user_exit_info {
	int kind;
	s64 exit_code;
	char reason[128];
	char msg[1024];
};

struct user_exit_info uei SEC(".data");

SCX_OPS(link_exit, struct scx_exit_info *ei)
{
	bpf_probe_read_kernel_str(uei.reason, sizeof(uei.reason), ei->reason);
	bpf_probe_read_kernel_str(uei.msg, sizeof(uei.msg), ei->msg);
	uei.exit_code = ei->exit_code;
	/* the loader takes a non-zero kind to mean the strings are complete */
	asm volatile("" ::: "memory");
	uei.kind = ei->kind;
	return 0;
}

SEC("struct_ops.s/link_init")
int BPF_PROG(link_init)
{
	struct bpf_cpumask *mask, *old;
	struct link_mask *slot;
	u32 zero = 0;
	int i;

	slot = bpf_map_lookup_elem(&link_masks, &zero);
	if (!slot)
		return -2; /* -ENOENT */
	mask = bpf_cpumask_create();
	if (!mask)
		return -12; /* -ENOMEM */
	bpf_for(i, 0, nr_cpu_ids) bpf_cpumask_set_cpu(i, mask);
	link_mask_weight = bpf_cpumask_weight((const struct cpumask *)mask);
	old = bpf_kptr_xchg(&slot->cpus, mask);
	if (old)
		bpf_cpumask_release(old);
	return scx_bpf_create_dsq(LINK_DSQ, -1);
}

SEC("struct_ops.s/link_init_task")
int BPF_PROG(link_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return 0;
}

SCX_OPS(link_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, __SCX_DSQ_GLOBAL, __SCX_SLICE_DFL, enq_flags);
	return 0;
}

SCX_OPS(link_dispatch, s32 cpu, struct task_struct *prev)
{
	u32 c = (u32)cpu;

	if (c < nr_cpu_ids) /* nr_cpu_ids is frozen: the verifier knows the bound */
		*((u64 *)link_dispatched_at + c) = bpf_ktime_get_ns();
	scx_bpf_dsq_move_to_local(LINK_DSQ);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops link_ops = {
	.init = (void *)link_init,
	.init_task = (void *)link_init_task,
	.enqueue = (void *)link_enqueue,
	.dispatch = (void *)link_dispatch,
	.exit = (void *)link_exit,
	.flags = SCX_OPS_ENQ_LAST,
	.timeout_ms = 4000,
	.name = "linked",
};
