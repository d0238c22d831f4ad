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
#include "runqlat_idle.h"

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
 * the slot generation are unchanged; the CPU it queued on and that CPU's
 * idle-sibling clock then (runqlat_idle.h; idle_cpu RUNQLAT_NO_DOMAIN: none).
 */
struct runqlat_task {
	__u64 enqueued_ns;
	__u64 cgroup_id;
	__u32 slot;
	__u32 slot_gen;
	__u64 idle_snap;
	__u32 idle_cpu;
	__u32 pad;
};

/* Domain index of a CPU in no L3 domain (its waits get no idle-sibling time). */
#define RUNQLAT_NO_DOMAIN 0xffffffffU

/* Per CPU [cpu]: its idle clock word (written by that CPU only) and its L3
 * domain (set by the agent before attach); a cache line each, so that CPUs
 * writing their own words do not share lines. */
struct runqlat_cpu {
	__u64 idle_word;
	__u32 domain;
	__u32 pad;
	__u64 pad2[6];
};

/* Per L3 domain [domain]: its idle clock word, alone in a cache line. */
struct runqlat_l3 {
	__u64 idle_word;
	__u64 pad[7];
};

/* Per CPU and interval half [half * ncpu + cpu], written by that CPU: of the
 * waits its histograms counted, the idle-sibling time and how many had some
 * (a cache line each, like runqlat_cpu). */
struct runqlat_idle_sum {
	__u64 idle_ns;
	__u64 idle_waits;
	__u64 pad[6];
};

#endif /* SCHEDIO_RUNQLAT_H */
