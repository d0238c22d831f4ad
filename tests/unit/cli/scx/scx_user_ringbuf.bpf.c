// SPDX-License-Identifier: GPL-2.0
/* scx_user_ringbuf.bpf.c - a scheduler fed by user space through a user ring
 * buffer (its user-space half decides), for test_scx_sched: `schedio scx run
 * --object` must refuse it. Only opened.
 */
#include "scx_common.bpf.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} decisions SEC(".maps");

static long take(struct bpf_dynptr *d, void *ctx)
{
	return 0;
}

SCX_OPS(urb_dispatch, s32 cpu, struct task_struct *prev)
{
	bpf_user_ringbuf_drain(&decisions, take, NULL, 0);
	return 0;
}

SEC(".struct_ops.link")
struct sched_ext_ops urb_ops = {
	.dispatch = (void *)urb_dispatch,
	.name = "user_ringbuf",
};
