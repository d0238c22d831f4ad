/* fuzz_server_ssd_result.c - libFuzzer target for the resctl-bench result
 * parser, which reads whatever anyone submits: any bytes (gzip or not) must
 * parse or be refused with a 4xx, never crash, leak or overrun, and an
 * accepted result must survive the stored-summary round trip unchanged, and
 * the pruning job scanner must accept only what cJSON accepts in full.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/ssd/ssd_jobs.h"
#include "server/ssd/ssd_result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ssd_result *r = malloc(sizeof(*r)), *back = malloc(sizeof(*back));
	char err[512];
	int rc;

	if (!r || !back)
		goto out;
	/* the pruning scanner must never accept what a full cJSON parse refuses */
	{
		bool oom;
		cJSON *pruned = ssd_jobs_parse((const char *)data, size, &oom), *full;

		if (pruned) {
			full = cJSON_ParseWithLength((const char *)data, size);
			if (!full)
				abort();
			cJSON_Delete(full);
		}
		cJSON_Delete(pruned);
	}
	rc = ssd_result_parse(data, size, 1 << 20, r, err, sizeof(err));
	if (rc != 0 && rc != 400 && rc != 413 && rc != 422 && rc != 503)
		abort();
	if (rc == 0) {
		cJSON *doc = ssd_result_to_json(r);

		if (!doc || ssd_result_from_json(doc, back) != 0 || strcmp(back->model, r->model) != 0 ||
		    back->nsolutions != r->nsolutions || !ssd_name_ok(r->model) || !ssd_name_ok(r->fwrev))
			abort();
		cJSON_Delete(doc);
	}
out:
	free(r);
	free(back);
	return 0;
}
