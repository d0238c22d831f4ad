// SPDX-License-Identifier: GPL-2.0
/* scx_broken.bpf.c - a sched_ext scheduler that queues every task and never
 * dispatches, kept only to show the watchdog: runnable tasks starve, and the
 * kernel must kick the scheduler out within timeout_ms and fall back to the
 * fair class. Loaded with `schedio scx run --object scx_broken.bpf.o`.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

#define BROKEN_DSQ 0

SCX_OPS(broken_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, BROKEN_DSQ, SCX_SLICE_DFL, enq_flags);
	scx_stat_inc(SCHEDIO_SCX_STAT_ENQUEUED);
	return 0;
}

/* Deliberately empty: nothing ever leaves BROKEN_DSQ. */
SCX_OPS(broken_dispatch, s32 cpu, struct task_struct *prev)
{
	return 0;
}

SCX_OPS(broken_init)
{
	return scx_bpf_create_dsq(BROKEN_DSQ, -1);
}

SCX_OPS(broken_exit, struct scx_exit_info *ei)
{
	scx_record_exit(ei);
	return 0;
}

SEC(".struct_ops")
struct sched_ext_ops scx_broken = {
	.enqueue = (void *)broken_enqueue,
	.dispatch = (void *)broken_dispatch,
	.init = (void *)broken_init,
	.exit = (void *)broken_exit,
	.name = "scx_broken",
};
