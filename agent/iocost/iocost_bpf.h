/* iocost_bpf.h - the iocost BPF programs as the collector uses them. */
#ifndef SCHEDIO_AGENT_IOCOST_IOCOST_BPF_H
#define SCHEDIO_AGENT_IOCOST_IOCOST_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iocost_bpf;

/* One iocg's hweight integrals, closed at the time they were read. */
struct iocost_hw {
	uint64_t hwa_us, hwi_us; /* integral of hweight (WEIGHT_ONE units) over active µs */
	uint64_t active_us;
	uint64_t updates;
	bool active;
};

/* Loads and attaches the programs for the iocost tracepoints this kernel has; 0, or -errno with why filled. */
int iocost_bpf_open(struct iocost_bpf **out, char *why, size_t cap);
/* Names of the attached tracepoints, space-separated. */
const char *iocost_bpf_attached(const struct iocost_bpf *b);
/* The integrals of (cgroup id, disk) closed at now_ns (CLOCK_MONOTONIC); 0, or -ENOENT if never seen. */
int iocost_bpf_read(struct iocost_bpf *b, uint64_t cgid, unsigned major, unsigned minor, uint64_t now_ns,
		    struct iocost_hw *out);
/* The last vrate the kernel set on the disk, percent; 0, or -ENOENT. */
int iocost_bpf_vrate(struct iocost_bpf *b, unsigned major, unsigned minor, double *pct);
/* Drops inactive entries whose cgroup id is not in live (sorted ascending). */
void iocost_bpf_prune(struct iocost_bpf *b, const uint64_t *live, size_t n);
/* Detaches and frees; b may be NULL. */
void iocost_bpf_close(struct iocost_bpf *b);

#endif /* SCHEDIO_AGENT_IOCOST_IOCOST_BPF_H */
