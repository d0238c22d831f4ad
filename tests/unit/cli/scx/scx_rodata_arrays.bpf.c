// SPDX-License-Identifier: GPL-2.0
/* scx_rodata_arrays.bpf.c - a scheduler whose own loader sizes read-only
 * arrays to the CPUs and fills them with values it computes (the kernel
 * tree's scx_pair pairs CPUs this way), for test_scx_sched: `schedio scx run
 * --object` must refuse it, as it cannot know those values. Only opened.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

const volatile u32 nr_cpu_ids = 1;
const volatile s32 pair_of[1] SEC(".rodata.pair_of");

SCX_OPS(arrays_enqueue, struct task_struct *p, u64 enq_flags)
{
	u32 cpu = bpf_get_smp_processor_id();

	if (cpu < nr_cpu_ids && *((const s32 *)pair_of + cpu) >= 0)
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
	else
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops arrays_ops = {
	.enqueue = (void *)arrays_enqueue,
	.name = "rodata_arrays",
};
