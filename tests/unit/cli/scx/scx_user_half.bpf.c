// SPDX-License-Identifier: GPL-2.0
/* scx_user_half.bpf.c - a scheduler shaped like those with a user-space half
 * of their own, for test_scx_sched: the PID of its user-space task in rodata
 * (its own loader would set it) and a queue through which it would hand
 * tasks over. `schedio scx run --object` must refuse it rather than load it
 * to be ejected. Only opened.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

const volatile s32 usersched_pid;

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 64);
	__type(value, s32);
} to_user SEC(".maps");

SCX_OPS(half_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 pid = p->pid;

	if (p->pid == usersched_pid || bpf_map_push_elem(&to_user, &pid, 0))
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, SCX_SLICE_DFL, enq_flags);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops half_ops = {
	.enqueue = (void *)half_enqueue,
	.name = "user_half",
};
