/* fuzz_server_json.c - differential libFuzzer target for the server's JSON
 * parser (server/json): whatever it accepts, cJSON_ParseWithLength must
 * accept too and build the same tree; what it alone refuses must be one of
 * the things it refuses on purpose (bad UTF-8, \u0000, nesting past
 * JSON_MAX_DEPTH). Trees are compared printed, in order, because
 * cJSON_Compare finds object members by key and so misreads duplicate keys.
 * The ssd job scanner shares the lexer, so it must refuse no less. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "server/json/json_arena.h"
#include "server/json/json_parse.h"
#include "server/ssd/ssd_jobs.h"

/* True when s[len] has something json_parse refuses by design and cJSON takes. */
static bool refused_on_purpose(const char *s, size_t len)
{
	int depth = 0, max = 0;
	bool in_str = false;

	if (memmem(s, len, "\\u0000", 6))
		return true;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80)
			return true; /* UTF-8 is checked here, not by cJSON */
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '[' || c == '{')
			max = ++depth > max ? depth : max;
		else if (c == ']' || c == '}')
			depth--;
	}
	return max > JSON_MAX_DEPTH;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	cJSON *ours, *theirs, *jobs;
	char *a, *b;
	bool oom;

	json_arena_begin();
	ours = json_parse(s, size);
	theirs = cJSON_ParseWithLength(s, size);
	if (ours && !theirs)
		abort(); /* accepted what cJSON refuses */
	if (!ours && theirs && !refused_on_purpose(s, size))
		abort(); /* refused valid JSON */
	if (ours) {
		a = cJSON_PrintUnformatted(ours);
		b = cJSON_PrintUnformatted(theirs);
		if (!a || !b || strcmp(a, b) != 0)
			abort();
		cJSON_free(a);
		cJSON_free(b);
	}
	cJSON_Delete(ours);
	cJSON_Delete(theirs);
	json_arena_end();
	/* one grammar: the job scanner accepts exactly what json_parse accepts */
	jobs = ssd_jobs_parse(s, size, &oom);
	if (!oom && (jobs != NULL) != (ours != NULL))
		abort();
	cJSON_Delete(jobs);
	return 0;
}
