/* saturation.c - see saturation.h.
 *
 * Two probes in a row without gain end the search, not one: on a shared or
 * throttled disk one half-second probe can come out low by chance, and
 * stopping there would measure the disk at a depth that starves it.
 */
#include "cli/bench/saturation.h"

/* Whether probe i gained min_gain over the best of the probes before it. */
static int gained(const struct bench_probe *probes, size_t i, double min_gain)
{
	double best = 0;

	for (size_t k = 0; k < i; k++)
		if (probes[k].rate > best)
			best = probes[k].rate;
	return i == 0 || probes[i].rate >= best * (1 + min_gain);
}

unsigned bench_saturation_next(const struct bench_probe *probes, size_t n, unsigned cap, double min_gain)
{
	unsigned last;

	if (n == 0)
		return cap ? 1 : 0;
	last = probes[n - 1].depth;
	if (n >= BENCH_PROBES_MAX || last > cap / 2)
		return 0;
	if (n >= 3 && !gained(probes, n - 1, min_gain) && !gained(probes, n - 2, min_gain))
		return 0;
	return last * 2;
}

unsigned bench_saturation_choice(const struct bench_probe *probes, size_t n, double min_gain)
{
	double best = 0;
	unsigned deepest = 1, knee = 0;

	for (size_t i = 0; i < n; i++) {
		if (probes[i].rate > best)
			best = probes[i].rate;
		if (probes[i].depth > deepest)
			deepest = probes[i].depth;
	}
	for (size_t i = 0; i < n && !knee; i++)
		if (probes[i].rate >= best * (1 - min_gain))
			knee = probes[i].depth;
	if (!knee)
		return 1;
	return knee * 2 < deepest ? knee * 2 : deepest;
}
