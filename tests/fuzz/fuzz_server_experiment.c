/* fuzz_server_experiment.c - libFuzzer target for a saved experiment's
 * definition (the body of POST /api/v1/experiments, server/compare/
 * experiment.c): any bytes are taken or refused without a crash; a refusal
 * says why in printable ASCII (it goes into a JSON error); a definition taken
 * has a canonical JSON text (what the store keeps) that parses back to the
 * same text, with windows that are not empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/compare/experiment.h"

static struct experiment e, again;

static char *canonical(const struct experiment *x)
{
	cJSON *doc = experiment_to_json(x);
	char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;

	cJSON_Delete(doc);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], *t1, *t2;

	err[0] = '\0';
	if (experiment_parse((const char *)data, size, &e, err, sizeof(err)) != 0) {
		if (!*err)
			abort();
		for (const char *p = err; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				abort();
		return 0;
	}
	if (!e.name[0] || !e.q.sel_text[0][0] || !e.q.sel_text[1][0])
		abort();
	experiment_at(&e, 1800000000000LL);
	for (int i = 0; i < 2; i++)
		if (e.q.from[i] < 0 || e.q.to[i] <= e.q.from[i])
			abort();
	t1 = canonical(&e);
	if (!t1)
		return 0;
	if (experiment_parse(t1, strlen(t1), &again, err, sizeof(err)) != 0)
		abort();
	t2 = canonical(&again);
	if (t2 && strcmp(t1, t2) != 0)
		abort();
	free(t1);
	free(t2);
	return 0;
}
