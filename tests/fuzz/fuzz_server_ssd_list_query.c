/* fuzz_server_ssd_list_query.c - libFuzzer target for what the SSD model list
 * makes of its query parameters: any text as limit/offset, as a search
 * (UTF-8 check) and as the LIKE pattern built from it, which must keep every
 * byte, escape every wildcard and stay within twice the length plus two.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/ssd/ssd_list_query.h"
#include "server/store/ssd_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *pat;
	size_t v = 7, len, unescaped = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	len = strlen(s);
	if (ssd_list_query_count(s, 1, 1000, &v) && (v < 1 || v > 1000))
		abort();
	(void)ssd_list_query_search_ok(s);
	pat = ssd_store_like_pattern(s);
	if (len && (!pat || strlen(pat) > 2 * len + 2 || pat[0] != '%' || pat[strlen(pat) - 1] != '%'))
		abort();
	/* Between the two '%', every wildcard or backslash is preceded by a backslash. */
	for (size_t i = 1; pat && i + 1 < strlen(pat); i++) {
		if (pat[i] == '\\' && i + 2 < strlen(pat)) {
			i++;
			unescaped++;
		} else if (pat[i] == '%' || pat[i] == '_' || pat[i] == '\\') {
			abort();
		} else {
			unescaped++;
		}
	}
	if (pat && unescaped != len)
		abort();
	free(pat);
	free(s);
	return 0;
}
