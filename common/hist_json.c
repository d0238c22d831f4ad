/* hist_json.c - see hist_json.h. Buckets go out sparse because a typical
 * interval fills a few dozen of the 528 buckets; counts are written as JSON
 * numbers (doubles), exact up to 2^53, far beyond what one bucket holds.
 */
#include "common/hist_json.h"

#include <errno.h>

cJSON *hist_json_buckets(const uint64_t *buckets)
{
	cJSON *arr = cJSON_CreateArray(), *pair;

	if (!arr)
		return NULL;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
		if (!buckets[i])
			continue;
		pair = cJSON_CreateArray();
		if (!pair || !cJSON_AddItemToArray(arr, pair))
			goto fail;
		if (!cJSON_AddItemToArray(pair, cJSON_CreateNumber(i)) ||
		    !cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)buckets[i])))
			goto fail;
	}
	return arr;
fail:
	cJSON_Delete(arr);
	return NULL;
}

int hist_json_add_buckets(cJSON *obj, const uint64_t *buckets)
{
	cJSON *arr = hist_json_buckets(buckets);

	if (!arr)
		return -ENOMEM;
	if (!cJSON_AddItemToObject(obj, "buckets", arr)) {
		cJSON_Delete(arr);
		return -ENOMEM;
	}
	return 0;
}

int hist_json_add_quantiles(cJSON *obj, const uint64_t *buckets)
{
	static const struct {
		const char *name;
		double q;
	} pct[] = { { "p50_ns", 0.5 }, { "p90_ns", 0.9 }, { "p99_ns", 0.99 }, { "p999_ns", 0.999 } };

	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
		if (!cJSON_AddNumberToObject(obj, pct[k].name, (double)hist_quantile(buckets, pct[k].q)))
			return -ENOMEM;
	return 0;
}
