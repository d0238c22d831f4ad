/* ssd_list_query.c - the query parameters of GET /api/v1/ssd/models checked
 * before they reach a store: counts are plain decimal digits within their
 * range (no sign, no exponent, no overflow: a 400 rather than a surprise),
 * and the search text is well-formed UTF-8 without control characters (the
 * PostgreSQL store refuses malformed text outright, and no model name or
 * firmware holds a control character, so such a search could only fail).
 */
#include "server/ssd/ssd_list_query.h"

#include <string.h>

bool ssd_list_query_count(const char *s, size_t lo, size_t hi, size_t *out)
{
	size_t v = 0, len;

	if (!s)
		return true;
	len = strlen(s);
	/* Ten digits cannot overflow a 64-bit size_t; the ranges used are far below. */
	if (len == 0 || len > 10 || strspn(s, "0123456789") != len)
		return false;
	for (; *s; s++)
		v = v * 10 + (size_t)(*s - '0');
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* The number of continuation bytes after lead byte c, or -1 when c cannot start a character. */
static int continuation_bytes(unsigned char c)
{
	if (c < 0x80)
		return 0;
	if (c >= 0xc2 && c <= 0xdf)
		return 1;
	if (c >= 0xe0 && c <= 0xef)
		return 2;
	if (c >= 0xf0 && c <= 0xf4)
		return 3;
	return -1;
}

bool ssd_list_query_search_ok(const char *q)
{
	const unsigned char *s = (const unsigned char *)q;

	while (*s) {
		unsigned char c = *s++, lo = 0x80, hi = 0xbf;
		int more = continuation_bytes(c);

		if (more < 0 || c < 0x20 || c == 0x7f)
			return false;
		/* The second byte's range rules out overlong forms, surrogates and > U+10FFFF. */
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
		else if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
		/* A NUL ends the loop by failing the range check, so no read passes the end. */
		for (int i = 0; i < more; i++, s++)
			if (*s < (i ? 0x80 : lo) || *s > (i ? 0xbf : hi))
				return false;
	}
	return true;
}
