/* scx_shared.h - what schedio's sched_ext schedulers and their loader agree on.
 *
 * Included by the BPF programs (after vmlinux.h) and by user space (after
 * <linux/types.h>), so only __u32-style types. The loader talks to every
 * scheduler through maps with these names, never through skeleton fields, so
 * one loader serves the built-in schedulers and any object given by --object:
 *   stats      PERCPU_ARRAY, key enum schedio_scx_stat, value __u64
 *   exit_info  ARRAY of 1 struct schedio_scx_exit, filled by ops.exit
 *   cpu_domain ARRAY, key cpu, value L3 domain index   (scx_llc only)
 *   llc_config ARRAY of 1 struct schedio_scx_llc_config (scx_llc only)
 */
#ifndef SCHEDIO_SCX_SHARED_H
#define SCHEDIO_SCX_SHARED_H

enum schedio_scx_stat {
	SCHEDIO_SCX_STAT_ENQUEUED,   /* tasks queued on one of the scheduler's own DSQs */
	SCHEDIO_SCX_STAT_DISPATCHED, /* tasks moved from an own DSQ to a CPU (steals included) */
	SCHEDIO_SCX_STAT_STOLEN,     /* of those, taken from another L3 domain's DSQ */
	SCHEDIO_SCX_STAT_IDLE_PICKS, /* wakeups for which select_cpu found an idle CPU */
	SCHEDIO_SCX_STAT_NR,
};

/* Sized like the kernel's own exit strings; longer ones are cut. */
#define SCHEDIO_SCX_REASON_LEN 128
#define SCHEDIO_SCX_MSG_LEN 1024

/* A copy of the kernel's struct scx_exit_info, which only lives during ops.exit. */
struct schedio_scx_exit {
	__u32 recorded; /* 1 once ops.exit ran */
	__s32 kind;	/* enum scx_exit_kind: 64 unregistered, 1024+ errors (1026 stall) */
	__s64 exit_code;
	char reason[SCHEDIO_SCX_REASON_LEN];
	char msg[SCHEDIO_SCX_MSG_LEN];
};

/* Limits of the per-domain arrays; the loader refuses bigger machines. */
#define SCHEDIO_SCX_MAX_CPUS 512
#define SCHEDIO_SCX_MAX_DOMAINS 64

struct schedio_scx_llc_config {
	__u32 nr_domains;
	__u32 nr_cpus;
	/* 0: steal as soon as the own domain's queue is empty; else only once it
	 * has been empty this long; SCHEDIO_SCX_STEAL_NEVER: never steal */
	__u64 steal_after_ns;
};

/* steal_after_ns meaning that CPUs only ever run their own domain's tasks. */
#define SCHEDIO_SCX_STEAL_NEVER (~0ULL)

#endif /* SCHEDIO_SCX_SHARED_H */
