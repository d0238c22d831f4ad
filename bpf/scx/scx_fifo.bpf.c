// SPDX-License-Identifier: GPL-2.0
/* scx_fifo.bpf.c - the global FIFO from the sched_ext talk: every runnable
 * task goes to the tail of one shared dispatch queue, and a CPU that needs
 * work takes the head. No priorities, no affinity to caches: the point is to
 * get a task onto any idle CPU as fast as possible, which is why it can beat
 * the fair class on some workloads and lose badly on others.
 *
 * select_cpu picks the previous CPU if idle, else an idle one (the kernel's
 * default choice); returning an idle CPU makes the wakeup kick it, so it
 * comes out of idle and pulls from the shared queue.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

#define FIFO_DSQ 0

SCX_OPS(fifo_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);

	if (is_idle)
		scx_stat_inc(SCHEDIO_SCX_STAT_IDLE_PICKS);
	return cpu;
}

SCX_OPS(fifo_enqueue, struct task_struct *p, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, FIFO_DSQ, SCX_SLICE_DFL, enq_flags);
	scx_stat_inc(SCHEDIO_SCX_STAT_ENQUEUED);
	return 0;
}

SCX_OPS(fifo_dispatch, s32 cpu, struct task_struct *prev)
{
	if (scx_bpf_dsq_move_to_local(FIFO_DSQ))
		scx_stat_inc(SCHEDIO_SCX_STAT_DISPATCHED);
	return 0;
}

/* Sleepable (set by the loader): creating a DSQ allocates. */
SCX_OPS(fifo_init)
{
	return scx_bpf_create_dsq(FIFO_DSQ, -1);
}

SCX_OPS(fifo_exit, struct scx_exit_info *ei)
{
	scx_record_exit(ei);
	return 0;
}

/* The variable's name is the scheduler's name (root/ops, the agent's report). */
SEC(".struct_ops")
struct sched_ext_ops scx_fifo = {
	.select_cpu = (void *)fifo_select_cpu,
	.enqueue = (void *)fifo_enqueue,
	.dispatch = (void *)fifo_dispatch,
	.init = (void *)fifo_init,
	.exit = (void *)fifo_exit,
	.name = "scx_fifo",
};
