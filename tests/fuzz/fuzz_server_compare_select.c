/* fuzz_server_compare_select.c - libFuzzer target for the selector of a
 * comparison's arm (?a= and ?b= of GET /api/v1/compare): any bytes are
 * taken or refused without a crash; a refusal says why in printable ASCII
 * (it goes into a JSON error); a selector taken has a canonical text that
 * parses back to the same canonical text, and whose terms match what they
 * say.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/compare/compare_select.h"

static struct compare_select sel, again;
static char text1[COMPARE_SELECT_MAX_LEN + 1], text2[COMPARE_SELECT_MAX_LEN + 1];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[512];

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	err[0] = '\0';
	if (compare_select_parse(s, &sel, err, sizeof(err)) != 0) {
		if (!*err)
			abort();
		for (const char *p = err; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				abort();
		free(s);
		return 0;
	}
	if (compare_select_format(&sel, text1, sizeof(text1)) >= sizeof(text1))
		abort();
	if (compare_select_parse(text1, &again, err, sizeof(err)) != 0)
		abort();
	compare_select_format(&again, text2, sizeof(text2));
	if (strcmp(text1, text2) != 0 || again.nlabels != sel.nlabels)
		abort();
	/* the terms select what they name */
	if (*sel.sched && !compare_select_sched_matches(&sel, sel.sched))
		abort();
	if (*sel.kernel && !compare_select_kernel_matches(&sel, sel.kernel))
		abort();
	if (!compare_select_host_matches(&sel, *sel.host ? sel.host : "any"))
		abort();
	free(s);
	return 0;
}
