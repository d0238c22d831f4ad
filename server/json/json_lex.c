/* json_lex.c - see json_lex.h. Strings are refused unless well-formed UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF) because
 * PostgreSQL refuses to store anything else and one bad string must not fail
 * a whole ingest batch later; \u0000 and lone surrogates because the trees
 * hold C strings and cJSON would cut or mangle them. */
#include "server/json/json_lex.h"

#include <string.h>

const char *json_lex_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* Length of the well-formed UTF-8 sequence at p (lead byte >= 0x80) before end, 0 if malformed. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0; /* continuation byte, overlong lead (c0, c1) or past U+10FFFF (f5-ff) */
	if (end - p < (ptrdiff_t)n)
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

int json_lex_hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Past the escape whose backslash is at p, or NULL. */
static const char *escape(const char *p, const char *end)
{
	int cp, lo;

	if (end - p < 2)
		return NULL;
	if (p[1] != 'u')
		return strchr("\"\\/bfnrt", p[1]) && p[1] ? p + 2 : NULL;
	if (end - p < 6 || (cp = json_lex_hex4(p + 2)) <= 0 || (cp >= 0xdc00 && cp <= 0xdfff))
		return NULL;
	if (cp < 0xd800 || cp > 0xdbff)
		return p + 6;
	/* a high surrogate must be followed by a low one */
	if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || (lo = json_lex_hex4(p + 8)) < 0xdc00 || lo > 0xdfff)
		return NULL;
	return p + 12;
}

const char *json_lex_string(const char *p, const char *end, bool *escapes)
{
	*escapes = false;
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end;) {
		unsigned char c = (unsigned char)*p;

		if (c == '"')
			return p + 1;
		if (c < 0x20)
			return NULL;
		if (c >= 0x80) {
			size_t n = utf8_seq((const unsigned char *)p, (const unsigned char *)end);

			if (!n)
				return NULL;
			p += n;
		} else if (c == '\\') {
			*escapes = true;
			if (!(p = escape(p, end)))
				return NULL;
		} else {
			p++;
		}
	}
	return NULL;
}

static const char *digits(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

const char *json_lex_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p = digits(p, end)))
			return NULL;
	}
	return p;
}

const char *json_lex_value(const char *p, const char *end, int depth)
{
	bool esc;

	p = json_lex_ws(p, end);
	if (p >= end)
		return NULL;
	switch (*p) {
	case '"':
		return json_lex_string(p, end, &esc);
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';

		if (depth >= JSON_MAX_DEPTH)
			return NULL;
		p = json_lex_ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = json_lex_string(json_lex_ws(p, end), end, &esc);
				if (!p || (p = json_lex_ws(p, end)) >= end || *p != ':')
					return NULL;
				p++;
			}
			if (!(p = json_lex_value(p, end, depth + 1)) || (p = json_lex_ws(p, end)) >= end)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	case 't':
		return end - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f':
		return end - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n':
		return end - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default:
		return json_lex_number(p, end);
	}
}
