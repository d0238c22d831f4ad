// SPDX-License-Identifier: GPL-2.0
/* runqlat_min.bpf.c - the yardstick for bpf/runqlat.bpf.c's cost: the
 * classic minimal runqueue latency tracer. Wakeup time in a hash map keyed
 * by pid, deleted at switch-in; one global log2 histogram of microseconds;
 * no cgroups, no per-CPU view. The benchmark attaches it next to ours and
 * compares BPF time per context switch.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TASK_RUNNING 0
#define SLOTS 27

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} wakeup_ts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} log2_hist SEC(".maps");

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

static __always_inline void remember(__u32 pid)
{
	__u64 now;

	if (!pid)
		return;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&wakeup_ts, &pid, &now, BPF_ANY);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(rqmin_wake, struct task_struct *p)
{
	remember(p->pid);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(rqmin_wnew, struct task_struct *p)
{
	remember(p->pid);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(rqmin_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 pid = next->pid, slot;
	__u64 *ts, *count;

	if (prev->__state == TASK_RUNNING)
		remember(prev->pid);
	ts = bpf_map_lookup_elem(&wakeup_ts, &pid);
	if (!ts)
		return 0;
	slot = log2_u64((bpf_ktime_get_ns() - *ts) / 1000);
	if (slot >= SLOTS)
		slot = SLOTS - 1;
	count = bpf_map_lookup_elem(&log2_hist, &slot);
	if (count)
		__sync_fetch_and_add(count, 1);
	bpf_map_delete_elem(&wakeup_ts, &pid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
