// SPDX-License-Identifier: GPL-2.0
/* scx_weak_kfuncs.bpf.c - a scheduler whose only kfuncs are optional, for
 * test_scx_kfuncs and test_scx_sched: one `___compat`-suffixed and one that
 * no kernel has, both __weak and called only when the kernel has them, as
 * the community's compat headers do. Its load can fail only for another
 * reason, which the loader must not hide behind a kfunc. Only opened.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

void scx_bpf_dispatch___compat(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags) __ksym __weak;
bool scx_bpf_no_kernel_has_this(u64 dsq_id) __ksym __weak;

SCX_OPS(weak_enqueue, struct task_struct *p, u64 enq_flags)
{
	if (scx_bpf_dispatch___compat)
		scx_bpf_dispatch___compat(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
	return 0;
}

SCX_OPS(weak_dispatch, s32 cpu, struct task_struct *prev)
{
	if (scx_bpf_no_kernel_has_this)
		scx_bpf_no_kernel_has_this(SCX_DSQ_GLOBAL);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops weak_ops = {
	.enqueue = (void *)weak_enqueue,
	.dispatch = (void *)weak_dispatch,
	.name = "weak_kfuncs",
};
