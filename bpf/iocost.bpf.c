// SPDX-License-Identifier: GPL-2.0
/* iocost.bpf.c - per cgroup and disk, the share of the device blk-iocost
 * entitles a cgroup to (hweight_active) and lets it use (hweight_inuse).
 *
 * The iocost tracepoints fire on state changes (activation, idling, inuse
 * donation) and, while a disk is contended, once per iocost period
 * (iocost_ioc_vrate_adj). On activation and on each period event the whole
 * active list of that disk is snapshotted, because a change of one iocg's
 * active state changes every sibling's share. hweights are recomputed from
 * the kernel's weight tree (product over the ancestors of child->active /
 * parent->child_active_sum, as current_hweight() does) rather than read from
 * iocg->hweight_active, which is a cache refreshed lazily and is stale right
 * after an activation. Each snapshot closes the time integral of the previous
 * value, so user space gets a time-weighted mean over the active time of any
 * interval. Work per event is bounded by IOCOST_MAX_ACTIVE * IOCOST_MAX_LEVEL.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "iocost.h"

char LICENSE[] SEC("license") = "GPL";

/* 6.1 reaches the disk through rqos.q; newer kernels have rqos.disk. */
struct rq_qos___q {
	struct request_queue *q;
} __attribute__((preserve_access_index));

/* vtime per microsecond at vrate 100%: 2^37 vtime units per second. */
#define IOCOST_VTIME_PER_USEC ((1ULL << 37) / 1000000)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOCOST_MAX_ENTRIES);
	__type(key, struct iocost_key);
	__type(value, struct iocost_val);
} hweights SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32); /* major << 20 | minor */
	__type(value, struct iocost_dev_val);
} vrates SEC(".maps");

static __always_inline struct gendisk *ioc_disk(struct ioc *ioc)
{
	struct rq_qos___q *old;

	if (bpf_core_field_exists(struct rq_qos, disk))
		return BPF_CORE_READ(ioc, rqos.disk);
	old = (void *)&ioc->rqos;
	return BPF_CORE_READ(old, q, disk);
}

static __always_inline int iocg_key(struct ioc_gq *iocg, struct iocost_key *key)
{
	struct gendisk *disk = ioc_disk(BPF_CORE_READ(iocg, ioc));

	if (!disk)
		return -1;
	key->cgid = BPF_CORE_READ(iocg, pd.blkg, blkcg, css.cgroup, kn, id);
	key->major = BPF_CORE_READ(disk, major);
	key->minor = BPF_CORE_READ(disk, first_minor);
	return 0;
}

/* Closes the integral of the value held since v->last_ns. */
static __always_inline void iocost_accumulate(struct iocost_val *v, __u64 now)
{
	__u64 dt_us;

	if (v->active && now > v->last_ns) {
		dt_us = (now - v->last_ns) / 1000;
		v->hwa_us_sum += (__u64)v->hwa * dt_us;
		v->hwi_us_sum += (__u64)v->hwi * dt_us;
		v->active_us += dt_us;
	}
	v->last_ns = now;
}

static __always_inline struct iocost_val *iocost_entry(struct iocost_key *key, __u64 now)
{
	struct iocost_val *v = bpf_map_lookup_elem(&hweights, key);
	struct iocost_val zero = {};

	if (v)
		return v;
	zero.last_ns = now;
	bpf_map_update_elem(&hweights, key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&hweights, key);
}

static __always_inline struct ioc_gq *iocg_ancestor(struct ioc_gq *iocg, __u32 lvl)
{
	struct ioc_gq *p = NULL;
	__u64 off = bpf_core_field_offset(struct ioc_gq, ancestors);

	bpf_probe_read_kernel(&p, sizeof(p), (void *)iocg + off + lvl * sizeof(p));
	return p;
}

/* Records the current hweights of one active iocg, computed from the weight tree. */
static __always_inline void snapshot_iocg(struct ioc_gq *iocg, __u64 now)
{
	struct iocost_key key = {};
	struct iocost_val *v;
	__u64 hwa = IOCOST_WEIGHT_ONE, hwi = IOCOST_WEIGHT_ONE;
	int level = BPF_CORE_READ(iocg, level);

	if (level <= 0 || level > IOCOST_MAX_LEVEL)
		return; /* the root is not controlled; deeper trees are out of bounds */
	for (__u32 lvl = 0; lvl < IOCOST_MAX_LEVEL; lvl++) {
		struct ioc_gq *parent, *child;
		__u64 active_sum, inuse_sum, active, inuse;

		if ((int)lvl >= level)
			break;
		parent = iocg_ancestor(iocg, lvl);
		child = iocg_ancestor(iocg, lvl + 1);
		if (!parent || !child)
			return;
		active_sum = BPF_CORE_READ(parent, child_active_sum);
		inuse_sum = BPF_CORE_READ(parent, child_inuse_sum);
		active = BPF_CORE_READ(child, active);
		inuse = BPF_CORE_READ(child, inuse);
		/* racing a deactivation, either sum may read as zero */
		if (!active_sum || !inuse_sum)
			continue;
		if (active_sum < active)
			active_sum = active;
		if (inuse_sum < inuse)
			inuse_sum = inuse;
		hwa = hwa * active / active_sum;
		hwi = hwi * inuse / inuse_sum;
	}
	if (iocg_key(iocg, &key))
		return;
	v = iocost_entry(&key, now);
	if (!v)
		return;
	iocost_accumulate(v, now);
	v->hwa = (__u32)hwa;
	v->hwi = (__u32)hwi;
	v->active = 1;
	v->weight = BPF_CORE_READ(iocg, weight);
	v->updates++;
}

/* Snapshots every iocg on ioc's active list. */
static __always_inline void snapshot_ioc(struct ioc *ioc, __u64 now)
{
	struct list_head *head = &ioc->active_iocgs;
	struct list_head *pos = BPF_CORE_READ(ioc, active_iocgs.next);
	__u64 off = bpf_core_field_offset(struct ioc_gq, active_list);

	for (int i = 0; i < IOCOST_MAX_ACTIVE; i++) {
		if (!pos || pos == head)
			break;
		snapshot_iocg((struct ioc_gq *)((void *)pos - off), now);
		pos = BPF_CORE_READ(pos, next);
	}
}

SEC("tp_btf/iocost_iocg_activate")
int BPF_PROG(iocost_activate, struct ioc_gq *iocg)
{
	/* the activated iocg is on the list and its weight propagated by now */
	snapshot_ioc(BPF_CORE_READ(iocg, ioc), bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/iocost_iocg_idle")
int BPF_PROG(iocost_idle, struct ioc_gq *iocg)
{
	struct iocost_key key = {};
	struct iocost_val *v;

	if (iocg_key(iocg, &key))
		return 0;
	v = bpf_map_lookup_elem(&hweights, &key);
	if (!v)
		return 0;
	iocost_accumulate(v, bpf_ktime_get_ns());
	v->active = 0;
	return 0;
}

/* The inuse events carry the new hweight_inuse; hweight_active is unchanged. */
static __always_inline void inuse_update(struct ioc_gq *iocg, __u64 new_hw_inuse)
{
	struct iocost_key key = {};
	struct iocost_val *v;
	__u64 now = bpf_ktime_get_ns();

	if (iocg_key(iocg, &key))
		return;
	v = bpf_map_lookup_elem(&hweights, &key);
	if (!v || !v->active)
		return;
	iocost_accumulate(v, now);
	v->hwi = (__u32)new_hw_inuse;
	v->updates++;
}

/* The three inuse tracepoints share one signature and one handler: program
 * iocost_inuse_WHY on tp_btf/iocost_inuse_WHY. */
#define IOCOST_INUSE_PROG(why)                                                                     \
	SEC("tp_btf/iocost_inuse_" #why)                                                           \
	int BPF_PROG(iocost_inuse_##why, struct ioc_gq *iocg, const char *path,                    \
		     struct ioc_now *now, u32 old_inuse, u32 new_inuse, u64 old_hw_inuse,          \
		     u64 new_hw_inuse)                                                             \
	{                                                                                          \
		inuse_update(iocg, new_hw_inuse);                                                  \
		return 0;                                                                          \
	}

IOCOST_INUSE_PROG(shortage)
IOCOST_INUSE_PROG(transfer)
IOCOST_INUSE_PROG(adjust)

/* Fires once per period while the disk is contended (busy_level != 0). */
SEC("tp_btf/iocost_ioc_vrate_adj")
int BPF_PROG(iocost_vrate_adj, struct ioc *ioc, u64 new_vrate)
{
	struct gendisk *disk = ioc_disk(ioc);
	struct iocost_dev_val dv = {};
	__u64 now = bpf_ktime_get_ns();
	__u32 devt;

	snapshot_ioc(ioc, now);
	if (!disk)
		return 0;
	devt = (__u32)BPF_CORE_READ(disk, major) << 20 | (__u32)BPF_CORE_READ(disk, first_minor);
	dv.last_ns = now;
	dv.vrate_pct100 = new_vrate * 10000 / IOCOST_VTIME_PER_USEC;
	bpf_map_update_elem(&vrates, &devt, &dv, BPF_ANY);
	return 0;
}
