/* json_parse.c - see json_parse.h. RFC 8259: no trailing commas, no
 * comments, no control characters in strings, \u escapes (surrogate pairs
 * joined, lone surrogates and \u0000 refused, since the tree holds C
 * strings), and strings must be well-formed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF) — PostgreSQL refuses to store
 * anything else, so it is refused here, as bad input, before it can fail a
 * whole ingest batch. Integers up to 15 digits are read without strtod;
 * anything else numeric goes through strtod on a bounded copy. */
#include "server/json/json_parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const char *p, *end;
	int depth;
};

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
		j->p++;
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

static int hex4(const char *p)
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

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at j->p (after its opening quote) into a cJSON_malloc'd C string. */
static char *parse_string(struct jp *j)
{
	const char *s = j->p, *q = s;
	bool escapes = false;
	char *out, *o;

	while (q < j->end && *q != '"') {
		if ((unsigned char)*q < 0x20)
			return NULL;
		if ((unsigned char)*q >= 0x80) {
			size_t n = utf8_seq((const unsigned char *)q, (const unsigned char *)j->end);

			if (!n)
				return NULL;
			q += n;
			continue;
		}
		if (*q == '\\') {
			escapes = true;
			q++;
		}
		q++;
	}
	if (q >= j->end)
		return NULL;
	/* Escapes only ever shrink the text, so its length bounds the output. */
	out = cJSON_malloc((size_t)(q - s) + 1);
	if (!out)
		return NULL;
	if (!escapes) {
		memcpy(out, s, (size_t)(q - s));
		out[q - s] = '\0';
		j->p = q + 1;
		return out;
	}
	for (o = out; s < q; s++) {
		int cp, lo;

		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		s++;
		switch (*s) {
		case '"':
		case '\\':
		case '/':
			*o++ = *s;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (q - s < 5 || (cp = hex4(s + 1)) <= 0)
				goto bad;
			s += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				goto bad;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (q - s < 7 || s[1] != '\\' || s[2] != 'u' || (lo = hex4(s + 3)) < 0xdc00 ||
				    lo > 0xdfff)
					goto bad;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
			o += put_utf8(o, (uint32_t)cp);
			break;
		default:
			goto bad;
		}
	}
	*o = '\0';
	j->p = q + 1;
	return out;
bad:
	cJSON_free(out);
	return NULL;
}

static cJSON *parse_number(struct jp *j)
{
	const char *s = j->p, *q = s;
	bool neg = false, simple = true;
	int64_t v = 0;
	double d;
	char buf[400], *end;

	if (q < j->end && *q == '-') {
		neg = true;
		q++;
	}
	if (q >= j->end || *q < '0' || *q > '9' || (*q == '0' && q + 1 < j->end && q[1] >= '0' && q[1] <= '9'))
		return NULL;
	while (q < j->end && *q >= '0' && *q <= '9') {
		if (q - s >= 16)
			simple = false;
		else
			v = v * 10 + (*q - '0');
		q++;
	}
	if (q < j->end && *q == '.') {
		simple = false;
		if (++q >= j->end || *q < '0' || *q > '9')
			return NULL;
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < j->end && (*q == 'e' || *q == 'E')) {
		simple = false;
		q++;
		if (q < j->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= j->end || *q < '0' || *q > '9')
			return NULL;
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	j->p = q;
	if (simple)
		return cJSON_CreateNumber((double)(neg ? -v : v));
	if ((size_t)(q - s) >= sizeof(buf))
		return NULL;
	memcpy(buf, s, (size_t)(q - s));
	buf[q - s] = '\0';
	d = strtod(buf, &end);
	return cJSON_CreateNumber(d);
}

static cJSON *parse_value(struct jp *j);

static void append(cJSON *parent, cJSON **last, cJSON *item)
{
	if (!*last) {
		parent->child = item;
	} else {
		(*last)->next = item;
		item->prev = *last;
	}
	*last = item;
	parent->child->prev = item; /* cJSON keeps the tail in child->prev */
}

static cJSON *parse_container(struct jp *j, bool object)
{
	cJSON *c = object ? cJSON_CreateObject() : cJSON_CreateArray(), *last = NULL;
	char close = object ? '}' : ']';

	if (!c || ++j->depth > JSON_MAX_DEPTH)
		goto bad;
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return c;
	}
	for (;;) {
		char *key = NULL;
		cJSON *item;

		skip_ws(j);
		if (object) {
			if (j->p >= j->end || *j->p != '"')
				goto bad;
			j->p++;
			key = parse_string(j);
			if (!key)
				goto bad;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				cJSON_free(key);
				goto bad;
			}
			j->p++;
		}
		item = parse_value(j);
		if (!item) {
			cJSON_free(key);
			goto bad;
		}
		item->string = key;
		append(c, &last, item);
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return c;
		}
		goto bad;
	}
bad:
	cJSON_Delete(c);
	return NULL;
}

static bool keyword(struct jp *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

static cJSON *parse_value(struct jp *j)
{
	cJSON *item;
	char *s;

	skip_ws(j);
	if (j->p >= j->end)
		return NULL;
	switch (*j->p) {
	case '{':
		return parse_container(j, true);
	case '[':
		return parse_container(j, false);
	case '"':
		j->p++;
		s = parse_string(j);
		if (!s)
			return NULL;
		item = cJSON_CreateNull();
		if (!item) {
			cJSON_free(s);
			return NULL;
		}
		item->type = cJSON_String;
		item->valuestring = s;
		return item;
	case 't':
		return keyword(j, "true", 4) ? cJSON_CreateTrue() : NULL;
	case 'f':
		return keyword(j, "false", 5) ? cJSON_CreateFalse() : NULL;
	case 'n':
		return keyword(j, "null", 4) ? cJSON_CreateNull() : NULL;
	default:
		return parse_number(j);
	}
}

cJSON *json_parse(const char *s, size_t len)
{
	struct jp j = { .p = s, .end = s + len };
	cJSON *v = parse_value(&j);

	skip_ws(&j);
	if (v && j.p != j.end) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}
