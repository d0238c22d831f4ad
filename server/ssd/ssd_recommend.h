/* ssd_recommend.h - the recommended io.cost configuration of one SSD model,
 * aggregated from its submitted results: per solution and parameter, the
 * median over the chosen submissions, with the spread it came from. Full
 * resctl-bench results decide when a model has any; a model with only quick
 * benches gets one model-only pseudo-solution, "quick", without QoS.
 */
#ifndef SCHEDIO_SERVER_SSD_SSD_RECOMMEND_H
#define SCHEDIO_SERVER_SSD_SSD_RECOMMEND_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "server/ssd/ssd_result.h"

struct ssd_rec_solution {
	char name[SSD_SOLUTION_NAME_MAX + 1];
	int submissions;                                       /* how many results the medians are over */
	bool model_only;                                       /* from quick benches: no QoS (qos* are 0) */
	double model[SSD_NPARAMS], qos[SSD_NPARAMS];           /* medians, rounded */
	double model_min[SSD_NPARAMS], model_max[SSD_NPARAMS]; /* spread, rounded alike */
	double qos_min[SSD_NPARAMS], qos_max[SSD_NPARAMS];
};

struct ssd_recommendation {
	int bench_major, bench_minor; /* the bench version the medians come from */
	bool from_merged;             /* no raw result: merged files were used */
	bool quick;                   /* no full result: quick benches were used (one model_only solution) */
	int nsolutions;
	struct ssd_rec_solution solutions[SSD_MAX_SOLUTIONS]; /* sorted by name */
};

/* The name of the model-only pseudo-solution aggregated from quick benches. */
#define SSD_RECOMMEND_QUICK "quick"

/* The solutions tried, in order, when the asked one is missing. */
extern const char *const ssd_recommend_fallback_order[4];

/* Aggregates results (all of one model): full results only when there are any (raw if any,
 * else merged; of those the newest bench major.minor), per solution and parameter the median
 * (mean of the two middle values for an even count), model parameters rounded to integers, qos
 * percents (rpct, wpct, min, max) to 2 decimals, latencies to integer µs. Without full results,
 * the quick benches' model medians as the one solution SSD_RECOMMEND_QUICK (model_only). */
void ssd_recommend(const struct ssd_result *results, size_t n, struct ssd_recommendation *out);
/* Drops the quick results from results[0..n) when a full one is among them (they decide
 * nothing then), keeping the order; returns how many are left. Narrow by firmware after it. */
size_t ssd_recommend_deciding(struct ssd_result *results, size_t n);
/* The median of v[0..n) (sorts v in place); NAN when n is 0. */
double ssd_recommend_median(double *v, size_t n);
/* Rounds a qos value as the recommendation does (2 decimals or integer µs). */
double ssd_recommend_round_qos(enum ssd_qos_param p, double v);
/* The solution to use for asked (may be NULL): asked if present, else the first of
 * ssd_recommend_fallback_order present, else the first by name; NULL when there is none. */
const struct ssd_rec_solution *ssd_recommend_pick(const struct ssd_recommendation *rec, const char *asked);
/* {"<solution>": {"model", "qos", "submissions", "spread"}} of rec (a model_only solution has
 * "qos": null and a spread of the model only); NULL on OOM. */
cJSON *ssd_recommend_to_json(const struct ssd_recommendation *rec);

#endif /* SCHEDIO_SERVER_SSD_SSD_RECOMMEND_H */
