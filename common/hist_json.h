/* hist_json.h - the JSON form of a histogram in the shared layout, written
 * the same way by the agent (reports) and the server (API answers): buckets
 * sparse as [[index, count], ...] in index order, non-zero ones only, and the
 * percentiles p50/p90/p99/p999_ns read from the same buckets. The callers
 * place count, sum_ns and max_ns themselves, because the report and the API
 * order the keys differently and both orders are fixed by clients.
 */
#ifndef SCHEDIO_COMMON_HIST_JSON_H
#define SCHEDIO_COMMON_HIST_JSON_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "common/hist.h"

/* The sparse array [[index, count], ...] of dense buckets[HIST_BUCKETS]; NULL on ENOMEM. */
cJSON *hist_json_buckets(const uint64_t *buckets);
/* Adds "buckets" (the sparse array) of dense buckets[HIST_BUCKETS] to obj; 0 or -ENOMEM. */
int hist_json_add_buckets(cJSON *obj, const uint64_t *buckets);
/* Adds p50_ns, p90_ns, p99_ns and p999_ns of dense buckets[HIST_BUCKETS] to obj; 0 or -ENOMEM. */
int hist_json_add_quantiles(cJSON *obj, const uint64_t *buckets);

#endif /* SCHEDIO_COMMON_HIST_JSON_H */
