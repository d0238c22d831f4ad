/* hist.h - the one histogram layout every part of schedio shares.
 *
 * Log-linear, like HDR histograms: values below 2^(g+1) have a bucket each,
 * above that every power of two is split into 2^g equal sub-buckets, so a
 * value read back from its bucket is within 2^-g (6.25% for g = 4) of the
 * truth. Values at or above 2^n land in the last bucket. Values are
 * nanoseconds. BPF programs, the agent, the server and the dashboard all use
 * this layout unchanged; histograms from different hosts merge by adding
 * buckets. The index function is branch-light and loop-free so a BPF probe
 * does constant work per event.
 */
#ifndef SCHEDIO_HIST_H
#define SCHEDIO_HIST_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define HIST_GROUPING_POWER 4
#define HIST_MAX_VALUE_POWER 36
/* (n - g + 1) groups of 2^g buckets: 528 buckets for g = 4, n = 36. */
#define HIST_BUCKETS ((HIST_MAX_VALUE_POWER - HIST_GROUPING_POWER + 1) << HIST_GROUPING_POWER)

/* floor(log2(v)) for v > 0, by binary search over the bit positions. */
static inline __u32 hist_log2(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xffffffffULL) << 5;
	v >>= s;
	r |= s;
	s = (v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	r |= (v >> 1);
	return r;
}

/* Bucket index of value v (nanoseconds) in the shared layout. */
static inline __u32 hist_index(__u64 v)
{
	__u32 h;

	if (v < (1ULL << (HIST_GROUPING_POWER + 1)))
		return (__u32)v;
	if (v >= (1ULL << HIST_MAX_VALUE_POWER))
		return HIST_BUCKETS - 1;
	h = hist_log2(v);
	return ((h - HIST_GROUPING_POWER + 1) << HIST_GROUPING_POWER) +
	       (__u32)((v >> (h - HIST_GROUPING_POWER)) - (1ULL << HIST_GROUPING_POWER));
}

#endif /* SCHEDIO_HIST_H */
