/* phase.c - see phase.h.
 *
 * The parameters are the kernel's (Documentation/admin-guide/cgroup-v2.rst,
 * io.cost.model): rbps/wbps are sequential bandwidth with large blocks,
 * r/wseqiops and r/wrandiops 4 KiB sequential and random IOPS. The kernel's
 * tools/cgroup/iocost_coef_gen.py measures bps with one 128 MiB IO in flight
 * (--seqio-block-mb 128, depth 1) and each parameter for 120 s
 * (--duration 120), the IOPS at depth 64, on a 16 GiB file. A 128 MiB IO is
 * split by the block layer into max_sectors_kb requests anyway, and it
 * completes too rarely on a slow disk to give a rate per half second, so the
 * bandwidth phases here use 1 MiB IOs at a searched depth of at most 128 (the
 * same 128 MiB in flight at most). The 120 s become "until steady": most
 * disks are steady within seconds, and the ones that are not are reported.
 */
#include "cli/bench/phase.h"

#include <errno.h>

const struct bench_phase_spec bench_phase_specs[6] = {
	{ "rbps", 0, 0, BENCH_BPS_BLOCK, 1 }, { "rseqiops", 0, 0, 4096, 0 }, { "rrandiops", 0, 1, 4096, 0 },
	{ "wbps", 1, 0, BENCH_BPS_BLOCK, 1 }, { "wseqiops", 1, 0, 4096, 0 }, { "wrandiops", 1, 1, 4096, 0 },
};

void bench_phase_defaults(struct bench_phase_params *p, double min_s, double max_s, unsigned depth_cap)
{
	p->step_s = 0.5;
	p->probe_steps = 2;
	p->min_s = min_s;
	p->max_s = max_s > BENCH_SERIES_MAX * p->step_s ? BENCH_SERIES_MAX * p->step_s : max_s;
	p->depth_cap = depth_cap;
	p->fixed_depth = 0;
	p->min_gain = 0.05;
	p->stop = NULL;
	p->progress = NULL;
	p->ctx = NULL;
}

void bench_phase_analysis(const struct bench_phase_spec *spec, const struct bench_phase_params *p,
			  struct bench_analysis_params *a)
{
	bench_analysis_defaults(a, p->step_s, spec->bps ? spec->bs : 1);
}

/* Runs one step at the current depth and appends its rate. */
static int step(struct bench_engine *e, const struct bench_phase_spec *spec, const struct bench_phase_params *p,
		struct bench_phase_result *r, uint64_t t0)
{
	uint64_t before = spec->bps ? e->bytes : e->ios;
	uint64_t until = t0 + (uint64_t)((double)(r->n + 1) * p->step_s * 1e9);
	int err = bench_engine_run(e, until, p->stop);

	if (err)
		return err;
	r->rate[r->n++] = (double)((spec->bps ? e->bytes : e->ios) - before) / p->step_s;
	r->duration_s = (double)r->n * p->step_s;
	if (p->progress)
		p->progress(p->ctx, r, p);
	return 0;
}

/* The rate of the probe just run: the mean of its steps, but the very first step of the
 * phase, when the disk may still be waking up, is left out. */
static double probe_rate(const struct bench_phase_result *r, const struct bench_phase_params *p)
{
	size_t from = r->n - p->probe_steps, k = 0;
	double sum = 0;

	if (from == 0 && r->n > 1)
		from = 1;
	for (size_t i = from; i < r->n; i++, k++)
		sum += r->rate[i];
	return sum / (double)k;
}

int bench_phase_run(struct bench_engine *e, const struct bench_phase_spec *spec, const struct bench_phase_params *p,
		    struct bench_phase_result *r)
{
	struct bench_analysis_params a;
	unsigned cap = p->depth_cap, depth;
	size_t max_n = (size_t)(p->max_s / p->step_s + 0.5), min_n = (size_t)(p->min_s / p->step_s + 0.5);
	uint64_t t0;
	int err = 0, derr;

	*r = (struct bench_phase_result){ .spec = spec };
	if (max_n > BENCH_SERIES_MAX)
		max_n = BENCH_SERIES_MAX;
	if (spec->bps && cap > BENCH_BPS_INFLIGHT / spec->bs)
		cap = BENCH_BPS_INFLIGHT / spec->bs;
	if (cap > BENCH_ENGINE_DEPTH_MAX)
		cap = BENCH_ENGINE_DEPTH_MAX;
	bench_phase_analysis(spec, p, &a);
	bench_engine_job(e, spec->write, spec->rand, spec->bs, 0);
	t0 = bench_now_ns();

	/* the saturation search, in at most half the phase's cap: the depth only rises, so
	 * nothing drains between probes and the timeline stays continuous */
	while ((depth = p->fixed_depth ? (r->nprobes ? 0 : p->fixed_depth)
				       : bench_saturation_next(r->probes, r->nprobes, cap, p->min_gain)) &&
	       r->n + p->probe_steps <= max_n / 2) {
		r->depth = depth;
		bench_engine_set_depth(e, depth);
		for (unsigned i = 0; i < p->probe_steps && !err; i++)
			err = step(e, spec, p, r, t0);
		if (err)
			goto out;
		r->probes[r->nprobes++] = (struct bench_probe){ depth, probe_rate(r, p) };
	}
	r->depth = p->fixed_depth ? p->fixed_depth : bench_saturation_choice(r->probes, r->nprobes, p->min_gain);
	bench_engine_set_depth(e, r->depth);
	r->measure_start = r->n;
	while (r->n < max_n) {
		err = step(e, spec, p, r, t0);
		if (err)
			goto out;
		if (r->n - r->measure_start >= min_n && bench_is_steady(r->rate, r->n, r->measure_start, &a, NULL)) {
			r->steady = 1;
			break;
		}
	}
out:
	derr = bench_engine_drain(e);
	if (!err)
		err = derr;
	if (r->n)
		bench_analyse(r->rate, r->n, r->measure_start, &a, &r->findings);
	return err;
}
