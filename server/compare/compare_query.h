/* compare_query.h - one comparison as asked, checked: two selectors with
 * their windows, a metric, a threshold and a cgroup. GET /api/v1/compare
 * builds one from its query string, a saved experiment (experiment.h) from
 * its stored definition; both are answered by api_compare_answer (api.h), so
 * the same comparison answers the same whichever way it was asked. The
 * checks here are pure, so they are shared and fuzzed with their callers.
 */
#ifndef SCHEDIO_SERVER_COMPARE_COMPARE_QUERY_H
#define SCHEDIO_SERVER_COMPARE_COMPARE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/compare/compare_select.h"
#include "server/compare/compare_stats.h"
#include "server/ingest/report_parse.h"

/* What a comparison asks, checked. */
struct compare_query {
	struct compare_select sel[2];
	char sel_text[2][COMPARE_SELECT_MAX_LEN + 1]; /* canonical (compare_select_format) */
	int64_t from[2], to[2];                       /* ms, [from, to) of arm A and arm B */
	enum compare_metric metric;
	double threshold;
	char cgroup[REPORT_MAX_PATH + 1]; /* "" for the whole host */
};

/* Checks cgroup (a path starting with '/', no control characters) and stores it without trailing '/' in
 * q->cgroup; 0, or -1 with why in err[errlen]. */
int compare_query_cgroup(struct compare_query *q, const char *cg, char *err, size_t errlen);
/* True if t is a threshold a comparison takes (0 < t < 1). */
bool compare_query_threshold_ok(double t);

#endif /* SCHEDIO_SERVER_COMPARE_COMPARE_QUERY_H */
