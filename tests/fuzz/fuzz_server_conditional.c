/* fuzz_server_conditional.c - libFuzzer target for the conditional GET of the
 * static files: the input's first line is taken as If-None-Match, the rest as
 * If-Modified-Since. Any text is decided without a crash; a date that is read
 * is written back byte for byte and matches exactly the files not newer than
 * it; the file's own ETag matches alone, weak, or after another one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/conditional.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *since, *nl, *list = NULL;
	char etag[CONDITIONAL_ETAG_MAX], back[CONDITIONAL_DATE_MAX];
	time_t t;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	nl = strchr(s, '\n');
	since = nl ? nl + 1 : s;
	if (nl)
		*nl = '\0';
	conditional_etag(etag, size, (int64_t)size * 7919);

	(void)conditional_not_modified(s, since, etag, 0);
	(void)conditional_not_modified(nl ? s : NULL, since, etag, (time_t)size);
	if (conditional_parse_http_date(since, &t)) {
		conditional_http_date(back, t);
		if (strcmp(back, since) != 0)
			abort();
		if (!conditional_not_modified(NULL, since, etag, t) ||
		    conditional_not_modified(NULL, since, etag, t + 1))
			abort();
	}
	/* the file's own ETag matches, alone, weak or behind another one */
	list = malloc(2 * CONDITIONAL_ETAG_MAX + 8);
	if (list) {
		if (!conditional_not_modified(etag, NULL, etag, 0))
			abort();
		snprintf(list, 2 * CONDITIONAL_ETAG_MAX + 8, "W/%s", etag);
		if (!conditional_not_modified(list, NULL, etag, 0))
			abort();
		snprintf(list, 2 * CONDITIONAL_ETAG_MAX + 8, "\"0-0\" ,%s", etag);
		if (!conditional_not_modified(list, since, etag, 0))
			abort();
		free(list);
	}
	free(s);
	return 0;
}
