/* runqlat_idle.h - the idle clocks behind runqlat.l3_domains (work
 * conservation per L3 domain), as pure functions BPF and the unit tests share.
 *
 * A clock is one 64-bit word so that it is read and written atomically:
 *
 * - a domain's word is (C << RUNQLAT_IDLE_NR_BITS) | nr, nr the number of its
 *   CPUs that run their idle task; its "some CPU idle" integral at time t is
 *   C + (nr ? t : 0). nr going 0 -> 1 at t subtracts t from C, 1 -> 0 adds it:
 *   the integral is continuous. All CPUs of the domain change it (cmpxchg).
 * - a CPU's word is (C << 2) | state; its "this CPU idle" integral at t is
 *   C + (state == IDLE ? t : 0). Only the CPU itself writes it.
 *
 * C wraps (modulo 2^52 for a domain): only differences of integrals over one
 * wait are used, and a wait shorter than 2^51 ns (26 days) comes out exact.
 * The wait's idle-sibling time is the growth over the wait of
 * D = domain integral - own CPU integral, masked to 52 bits. That is the
 * time some CPU of the domain was idle while the task's CPU was not, which is
 * "another CPU idle" exactly except while the task's own CPU is idle too
 * (the wakeup latency of an idle CPU): then a second idle CPU is missed.
 */
#ifndef SCHEDIO_RUNQLAT_IDLE_H
#define SCHEDIO_RUNQLAT_IDLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Low bits of a domain word counting its idle CPUs (domains of < 4096 CPUs). */
#define RUNQLAT_IDLE_NR_BITS 12
#define RUNQLAT_IDLE_NR_MASK ((1ULL << RUNQLAT_IDLE_NR_BITS) - 1)
/* Integrals are compared modulo 2^52. */
#define RUNQLAT_IDLE_MOD_MASK ((1ULL << 52) - 1)

/* States of a CPU word: unknown until the CPU's first idle switch after attach. */
#define RUNQLAT_CPU_UNKNOWN 0
#define RUNQLAT_CPU_BUSY 1
#define RUNQLAT_CPU_IDLE 2

/* A CPU's word after it switches to (idle) or from (!idle) its idle task at now. */
static inline __u64 runqlat_cpu_word_next(__u64 w, int idle, __u64 now)
{
	__u64 c = w & ~3ULL;

	if (idle)
		return (w & 3) == RUNQLAT_CPU_IDLE ? w : (c - (now << 2)) | RUNQLAT_CPU_IDLE;
	return (w & 3) == RUNQLAT_CPU_IDLE ? (c + (now << 2)) | RUNQLAT_CPU_BUSY
					   : c | RUNQLAT_CPU_BUSY;
}

/* A domain's word after one of its CPUs becomes idle (idle) or busy (!idle) at now. */
static inline __u64 runqlat_l3_word_next(__u64 w, int idle, __u64 now)
{
	__u64 nr = w & RUNQLAT_IDLE_NR_MASK;

	if (idle)
		return w + 1 - (nr == 0 ? now << RUNQLAT_IDLE_NR_BITS : 0);
	if (nr == 0) /* cannot happen: a CPU leaves idle only after entering it */
		return w;
	return w - 1 + (nr == 1 ? now << RUNQLAT_IDLE_NR_BITS : 0);
}

/* D at now: time some CPU of the domain was idle minus time cpu_w's CPU was (mod 2^52). */
static inline __u64 runqlat_idle_other(__u64 l3_w, __u64 cpu_w, __u64 now)
{
	__u64 any = (l3_w >> RUNQLAT_IDLE_NR_BITS) + ((l3_w & RUNQLAT_IDLE_NR_MASK) ? now : 0);
	__u64 self = (cpu_w >> 2) + ((cpu_w & 3) == RUNQLAT_CPU_IDLE ? now : 0);

	return (any - self) & RUNQLAT_IDLE_MOD_MASK;
}

/* Idle-sibling part of a wait of delta ns from D values d0 (start) and d1 (end):
 * clamped to [0, delta] (a word read while another CPU's clock lags by a few ns). */
static inline __u64 runqlat_idle_part(__u64 d0, __u64 d1, __u64 delta)
{
	__u64 v = (d1 - d0) & RUNQLAT_IDLE_MOD_MASK;

	if (v <= delta)
		return v;
	return v > (RUNQLAT_IDLE_MOD_MASK >> 1) ? 0 : delta;
}

#endif /* SCHEDIO_RUNQLAT_IDLE_H */
