/* saturation.c - see saturation.h. */
#include "cli/bench/saturation.h"

unsigned bench_saturation_next(const struct bench_probe *probes, size_t n, unsigned cap, double min_gain)
{
	double best = 0;

	if (n == 0)
		return 1;
	if (n >= BENCH_PROBES_MAX || probes[n - 1].depth * 2 > cap || probes[n - 1].depth * 2 < probes[n - 1].depth)
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (probes[i].rate > best)
			best = probes[i].rate;
	if (n >= 2 && probes[n - 1].rate < best * (1 + min_gain))
		return 0;
	return probes[n - 1].depth * 2;
}

unsigned bench_saturation_choice(const struct bench_probe *probes, size_t n)
{
	return n ? probes[n - 1].depth : 1;
}
