// SPDX-License-Identifier: GPL-2.0
/* scx_link_ops.bpf.c - a scheduler written the way the sched_ext community
 * writes them, for test_scx_sched: its ops in SEC(".struct_ops.link"), its
 * sleepable callbacks in SEC("struct_ops.s/..."), its own name (not the
 * variable's), flags and watchdog timeout. Only opened, never loaded.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

#define LINK_DSQ 0

SEC("struct_ops.s/link_init")
int BPF_PROG(link_init)
{
	return scx_bpf_create_dsq(LINK_DSQ, -1);
}

SEC("struct_ops.s/link_init_task")
int BPF_PROG(link_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return 0;
}

SCX_OPS(link_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, LINK_DSQ, SCX_SLICE_DFL, enq_flags);
	return 0;
}

SCX_OPS(link_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local(LINK_DSQ);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops link_ops = {
	.init = (void *)link_init,
	.init_task = (void *)link_init_task,
	.enqueue = (void *)link_enqueue,
	.dispatch = (void *)link_dispatch,
	.flags = SCX_OPS_ENQ_LAST,
	.timeout_ms = 4000,
	.name = "linked",
};
