/* iocost.h - what bpf/iocost.bpf.c and agent/iocost/iocost.c share: the key and
 * value of the per (cgroup, disk) hweight map.
 *
 * hweights are the kernel's own unit, WEIGHT_ONE = 1 << 16 for the whole
 * device. The BPF side keeps, per iocg, the last hweights it computed and
 * their time integral over the time the iocg was active, so user space can
 * take a time-weighted mean over any interval by differencing two reads.
 */
#ifndef SCHEDIO_BPF_IOCOST_H
#define SCHEDIO_BPF_IOCOST_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define IOCOST_WEIGHT_ONE (1U << 16)
/* Bounds of the walks over ioc->active_iocgs and an iocg's ancestors. */
#define IOCOST_MAX_ACTIVE 64
#define IOCOST_MAX_LEVEL 8
#define IOCOST_MAX_ENTRIES 4096

struct iocost_key {
	__u64 cgid;  /* cgroup id = inode number of the cgroup's directory */
	__u32 major; /* the disk the iocg belongs to */
	__u32 minor;
};

struct iocost_val {
	__u64 last_ns;	  /* bpf_ktime_get_ns() (CLOCK_MONOTONIC) of the last update */
	__u64 hwa_us_sum; /* integral of hweight_active over active time, WEIGHT_ONE * us */
	__u64 hwi_us_sum; /* the same for hweight_inuse */
	__u64 active_us;  /* time the iocg was active, us */
	__u64 updates;	  /* snapshots taken, for tests and debugging */
	__u32 hwa;	  /* last hweight_active, WEIGHT_ONE units */
	__u32 hwi;	  /* last hweight_inuse */
	__u32 active;	  /* 1 while the iocg is on its ioc's active list */
	__u32 weight;	  /* iocg->weight at the last snapshot */
};

/* Per disk: the last vrate the kernel set, in percent * 100. */
struct iocost_dev_val {
	__u64 last_ns;
	__u64 vrate_pct100;
};

#endif /* SCHEDIO_BPF_IOCOST_H */
