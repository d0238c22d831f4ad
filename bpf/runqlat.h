/* runqlat.h - what bpf/runqlat.bpf.c and agent/runqlat/runqlat.c share: the map value
 * layouts and the limits both sides size their maps by.
 *
 * Histograms are double-buffered: the BPF programs write half `interval & 1`
 * of every histogram array, the agent flips `interval` at the end of an
 * interval, waits for an RCU grace period (every program that saw the old
 * half has returned), then reads and zeroes the old half. Nothing is read
 * while it is written and no event falls between a read and a reset.
 */
#ifndef SCHEDIO_RUNQLAT_H
#define SCHEDIO_RUNQLAT_H

#include "hist.h"

/* Cgroup histogram slots unless the agent asks for another number. */
#define RUNQLAT_MAX_CGROUPS 4096
/* Deepest --cgroup-depth the BPF side records ancestor chains for. */
#define RUNQLAT_MAX_DEPTH 16
/* Slot that collects events when every slot is taken (reported under "/"). */
#define RUNQLAT_OVERFLOW_SLOT 0
/* Per-CPU histograms are split by the scheduler that ran the task: index 0
 * for the kernel's own classes (EEVDF/CFS, RT, deadline), 1 + ext_slot for
 * the sched_ext class. The agent moves ext_slot to a fresh one of these each
 * time the sched_ext scheduler changes, so two schedulers loaded within one
 * interval stay apart.
 */
#define RUNQLAT_EXT_SLOTS 3

/* One histogram in the shared layout plus its summary. Buckets are 32-bit:
 * one interval (at most an hour) cannot put 2^32 events in one bucket of one
 * cgroup, and halving the size halves the map memory.
 */
struct runqlat_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 max_ns;
	__u32 buckets[HIST_BUCKETS];
};

/* Written by BPF when it gives a cgroup a slot: the cgroup's id and the ids
 * of its ancestors from the root (ids[0]) down to itself (ids[level]), so the
 * agent can still name the nearest living ancestor of a cgroup that vanished
 * before it was ever seen.
 */
struct runqlat_slot_info {
	__u64 id;
	__u32 level;
	__u32 pad;
	__u64 ids[RUNQLAT_MAX_DEPTH + 1];
};

/* Per-task state: when the task became runnable (0 = not queued) and the
 * cgroup slot it was last counted in, valid while the task's cgroup id and
 * the slot generation are unchanged.
 */
struct runqlat_task {
	__u64 enqueued_ns;
	__u64 cgroup_id;
	__u32 slot;
	__u32 slot_gen;
};

#endif /* SCHEDIO_RUNQLAT_H */
