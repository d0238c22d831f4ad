/* progress.c - see progress.h. */
#include "cli/bench/progress.h"

#include <stdio.h>
#include <unistd.h>

void bench_progress_init(struct bench_progress *pg, unsigned count)
{
	pg->tty = isatty(STDERR_FILENO);
	pg->index = 0;
	pg->count = count;
}

const char *bench_progress_rate(const struct bench_phase_spec *s, double rate, char *buf, unsigned cap)
{
	if (s->bps)
		snprintf(buf, cap, "%.1f MB/s", rate / 1e6);
	else
		snprintf(buf, cap, "%.0f IO/s", rate);
	return buf;
}

void bench_progress_step(void *ctx, const struct bench_phase_result *r, const struct bench_phase_params *p)
{
	struct bench_progress *pg = ctx;
	double so_far = 0, left_min, left_max, elapsed = r->duration_s;
	size_t from, k = 0;
	char rate[32];

	if (!pg->tty || !r->n)
		return;
	/* the mean of the last 2 s reads better than a single half second */
	from = r->n > 4 ? r->n - 4 : 0;
	for (size_t i = from; i < r->n; i++, k++)
		so_far += r->rate[i];
	so_far /= (double)k;
	left_max = p->max_s - elapsed;
	if (r->nprobes && r->measure_start) {
		left_min = p->min_s - (double)(r->n - r->measure_start) * p->step_s;
		if (left_min < 0)
			left_min = 0;
		fprintf(stderr, "\r[%u/%u] %-9s depth %-3u %12s  %2.0f-%2.0f s left\033[K", pg->index, pg->count,
			r->spec->param, r->depth, bench_progress_rate(r->spec, so_far, rate, sizeof(rate)), left_min,
			left_max);
	} else {
		fprintf(stderr, "\r[%u/%u] %-9s probing depth %-3u %12s  <%2.0f s left\033[K", pg->index, pg->count,
			r->spec->param, r->depth, bench_progress_rate(r->spec, so_far, rate, sizeof(rate)), left_max);
	}
	fflush(stderr);
}

void bench_progress_fill(struct bench_progress *pg, uint64_t done, uint64_t total)
{
	if (!pg->tty || !total)
		return;
	fprintf(stderr, "\rfilling the test file: %3.0f%% of %llu MiB\033[K", 100.0 * (double)done / (double)total,
		(unsigned long long)(total >> 20));
	fflush(stderr);
}

void bench_progress_phase_done(struct bench_progress *pg, const struct bench_phase_result *r)
{
	char rate[32];

	if (!pg->tty)
		return;
	fprintf(stderr, "\r[%u/%u] %-9s depth %-3u %12s  %s after %.1f s%s\033[K\n", pg->index, pg->count,
		r->spec->param, r->depth, bench_progress_rate(r->spec, r->findings.value, rate, sizeof(rate)),
		r->steady ? "steady" : "NOT steady", r->duration_s, r->findings.burst ? " (burst seen)" : "");
}
