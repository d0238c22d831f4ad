/* json_parse.c - see json_parse.h. The grammar and its limits are
 * json_lex.c's (RFC 8259, strings in well-formed UTF-8, JSON_MAX_DEPTH);
 * this file turns the tokens into cJSON nodes. A string is decoded only
 * after the lexer accepted it, so decoding cannot fail. Integers up to 15
 * digits, and decimals of up to 15 digits without an exponent, are read
 * without strtod; anything else numeric goes through strtod on a bounded copy. */
#include "server/json/json_parse.h"

#include "server/json/json_lex.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const char *p, *end;
	int depth;
	const char *raw_name; /* arrays under members of this name stay text; NULL: none */
};

/* Past JSON whitespace at p (json_lex_ws's grammar), inline: a report has thousands of short gaps. */
static inline const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static void skip_ws(struct jp *j)
{
	j->p = ws(j->p, j->end);
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

/* The string at j->p (its opening quote) into a cJSON_malloc'd C string. */
static char *parse_string(struct jp *j)
{
	const char *s = j->p + 1, *q;
	bool escapes;
	char *out, *o;

	q = json_lex_string(j->p, j->end, &escapes);
	if (!q)
		return NULL;
	j->p = q--; /* q: the closing quote */
	/* Escapes only ever shrink the text, so its length bounds the output. */
	out = cJSON_malloc((size_t)(q - s) + 1);
	if (!out)
		return NULL;
	if (!escapes) {
		memcpy(out, s, (size_t)(q - s));
		out[q - s] = '\0';
		return out;
	}
	for (o = out; s < q; s++) {
		uint32_t cp;

		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		s++;
		switch (*s) {
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
			cp = (uint32_t)json_lex_hex4(s + 1);
			s += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) { /* the lexer saw the low half follow */
				cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)json_lex_hex4(s + 3) - 0xdc00);
				s += 6;
			}
			o += put_utf8(o, cp);
			break;
		default: /* " \ / */
			*o++ = *s;
			break;
		}
	}
	*o = '\0';
	return out;
}

/* A zeroed node of type t from cJSON's allocator (the arena while one is active). */
static cJSON *new_node(int t)
{
	cJSON *n = cJSON_malloc(sizeof(*n));

	if (n) {
		memset(n, 0, sizeof(*n));
		n->type = t;
	}
	return n;
}

/* A number node as cJSON_CreateNumber makes it (valueint saturated). */
static cJSON *number_node(double d)
{
	cJSON *n = new_node(cJSON_Number);

	if (!n)
		return NULL;
	n->valuedouble = d;
	n->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
	return n;
}

/* A lexed unsigned number d..end without exponent and with at most 15
 * digits, as strtod reads it: m / 10^k with m < 2^53 and 10^k exact (k <= 15)
 * is one correctly rounded division (Clinger's fast path). false: anything else. */
static bool decimal_fast(const char *d, const char *end, double *out)
{
	static const double pow10[] = { 1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
					1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	int64_t m = 0;
	int digits = 0, k = -1;

	for (const char *p = d; p < end; p++) {
		if (*p == '.') {
			k = 0;
			continue;
		}
		if (*p < '0' || *p > '9' || ++digits > 15)
			return false;
		m = m * 10 + (*p - '0');
		if (k >= 0)
			k++;
	}
	if (k < 0)
		return false;
	*out = (double)m / pow10[k];
	return true;
}

static cJSON *parse_number(struct jp *j)
{
	const char *s = j->p, *d = s + (*s == '-'), *q;
	int64_t v = 0;
	double frac;
	char buf[400], *end;

	/* The common case, a plain integer of up to 15 digits, in one pass. An int64 holds it
	 * exactly and its conversion rounds as strtod would; -0 stays -0, as in cJSON. */
	for (q = d; q < j->end && q - d < 16 && *q >= '0' && *q <= '9'; q++)
		v = v * 10 + (*q - '0');
	if (q > d && q - d < 16 && (q - d == 1 || *d != '0') &&
	    (q == j->end || (*q != '.' && *q != 'e' && *q != 'E' && (*q < '0' || *q > '9')))) {
		j->p = q;
		return number_node(*s == '-' ? -(double)v : (double)v);
	}
	q = json_lex_number(j->p, j->end);
	if (!q || (size_t)(q - s) >= sizeof(buf))
		return NULL;
	j->p = q;
	if (decimal_fast(d, q, &frac))
		return number_node(*s == '-' ? -frac : frac);
	memcpy(buf, s, (size_t)(q - s));
	buf[q - s] = '\0';
	return number_node(strtod(buf, &end));
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

/* Pairs read while checking a raw array (lex_pairs): a thread's scratch, copied to the node. */
#define RAW_PAIRS_MAX 4096
static __thread uint64_t raw_pairs[2 * RAW_PAIRS_MAX];

/* A plain non-negative integer of 1..15 digits at *p (no sign, fraction or exponent)
 * into *v, *p moved past it; false for anything else. */
static inline bool lex_uint(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p, *d = s;
	uint64_t x = 0;

	while (d < end && *d >= '0' && *d <= '9' && d - s < 16)
		x = x * 10 + (uint64_t)(*d++ - '0');
	if (d == s || d - s > 15 || (*s == '0' && d - s > 1) || (d < end && (*d == '.' || *d == 'e' || *d == 'E')))
		return false;
	*v = x;
	*p = d;
	return true;
}

/* The array at s ('[') when it holds nothing but [integer, integer] pairs of
 * lex_uint's integers, at most RAW_PAIRS_MAX: returns its end, the pairs in
 * raw_pairs and their number in *n. NULL for anything else, valid JSON or not:
 * the general lexer decides then. One pass reads and checks the bulk of a report. */
static const char *lex_pairs(const char *s, const char *end, size_t *n)
{
	const char *p = ws(s + 1, end);
	size_t k = 0;

	if (p < end && *p == ']') {
		*n = 0;
		return p + 1;
	}
	while (k < RAW_PAIRS_MAX && p < end && *p == '[') {
		p = ws(p + 1, end);
		if (!lex_uint(&p, end, &raw_pairs[2 * k]) || (p = ws(p, end)) >= end || *p != ',')
			return NULL;
		p = ws(p + 1, end);
		if (!lex_uint(&p, end, &raw_pairs[2 * k + 1]) || (p = ws(p, end)) >= end || *p != ']')
			return NULL;
		k++;
		p = ws(p + 1, end);
		if (p < end && *p == ']') {
			*n = k;
			return p + 1;
		}
		if (p >= end || *p != ',')
			return NULL;
		p = ws(p + 1, end);
	}
	return NULL;
}

/* Where a raw node's pairs start: past its text of text bytes and NUL, 8-aligned. */
static inline size_t pairs_at(size_t text)
{
	return (text + 1 + 7) & ~(size_t)7;
}

/* The array at j->p (after whitespace) checked as parse_value would and kept as a
 * cJSON_Raw node of its text; NULL, with j->p unmoved, when the value is no array.
 * An array of integer pairs also keeps them, read (json_raw_pairs): after the
 * text's NUL, their number + 1 in valueint, and valuedouble holding the text's
 * address so that a copy of the node (whose text is copied alone) is told apart. */
static cJSON *parse_raw_array(struct jp *j)
{
	const char *s = ws(j->p, j->end), *q = NULL;
	size_t np = 0, text, room;
	bool pairs = false;
	cJSON *n;

	if (s >= j->end || *s != '[')
		return NULL;
	if (j->depth + 2 <= JSON_MAX_DEPTH) /* the pairs nest two deeper, as json_lex_value counts */
		pairs = (q = lex_pairs(s, j->end, &np)) != NULL;
	if (!q && !(q = json_lex_value(s, j->end, j->depth)))
		return NULL;
	text = (size_t)(q - s);
	room = pairs ? pairs_at(text) + np * 2 * sizeof(uint64_t) : text + 1;
	n = new_node(cJSON_Raw);
	if (!n || !(n->valuestring = cJSON_malloc(room))) {
		cJSON_free(n);
		return NULL;
	}
	memcpy(n->valuestring, s, text);
	n->valuestring[text] = '\0';
	if (pairs) {
		memcpy(n->valuestring + pairs_at(text), raw_pairs, np * 2 * sizeof(uint64_t));
		n->valueint = (int)np + 1;
		n->valuedouble = (double)(uintptr_t)n->valuestring;
	}
	j->p = q;
	return n;
}

const uint64_t *json_raw_pairs(const cJSON *raw, size_t *n)
{
	if (!cJSON_IsRaw(raw) || !raw->valuestring || raw->valueint <= 0 ||
	    raw->valuedouble != (double)(uintptr_t)raw->valuestring)
		return NULL;
	if (n)
		*n = (size_t)raw->valueint - 1;
	return (const uint64_t *)(void *)(raw->valuestring + pairs_at(strlen(raw->valuestring)));
}

static cJSON *parse_container(struct jp *j, bool object)
{
	cJSON *c = new_node(object ? cJSON_Object : cJSON_Array), *last = NULL;
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
		item = key && j->raw_name && key[0] == j->raw_name[0] && strcmp(key, j->raw_name) == 0
			   ? parse_raw_array(j)
			   : NULL;
		if (!item)
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
		s = parse_string(j);
		if (!s)
			return NULL;
		item = new_node(cJSON_String);
		if (!item) {
			cJSON_free(s);
			return NULL;
		}
		item->valuestring = s;
		return item;
	case 't':
		return keyword(j, "true", 4) ? new_node(cJSON_True) : NULL;
	case 'f':
		return keyword(j, "false", 5) ? new_node(cJSON_False) : NULL;
	case 'n':
		return keyword(j, "null", 4) ? new_node(cJSON_NULL) : NULL;
	default:
		return parse_number(j);
	}
}

cJSON *json_parse(const char *s, size_t len)
{
	return json_parse_raw_member(s, len, NULL);
}

cJSON *json_parse_raw_member(const char *s, size_t len, const char *raw_name)
{
	struct jp j = { .p = s, .end = s + len, .raw_name = raw_name };
	cJSON *v = parse_value(&j);

	skip_ws(&j);
	if (v && j.p != j.end) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}
