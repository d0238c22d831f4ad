/* fuzz_server_json.c - differential libFuzzer target for the server's JSON
 * parser (server/json): whatever it accepts, cJSON_ParseWithLength must
 * accept too and build the same tree; what it alone refuses must be one of
 * the things it refuses on purpose (see refused_on_purpose). Trees are
 * compared printed, in order, because cJSON_Compare finds object members by
 * key and so misreads duplicate keys. The ssd job scanner shares the lexer,
 * so it must accept exactly the same documents. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "server/json/json_arena.h"
#include "server/json/json_parse.h"
#include "server/ssd/ssd_jobs.h"

/* True when the number token [p, end) (a run of [0-9+-.eE]) follows RFC 8259:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool rfc_number(const char *p, const char *end)
{
	const char *d;

	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	else
		return false;
	if (p < end && *p == '.') {
		for (d = ++p; p < end && *p >= '0' && *p <= '9';)
			p++;
		if (p == d)
			return false;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		for (d = p; p < end && *p >= '0' && *p <= '9';)
			p++;
		if (p == d)
			return false;
	}
	return p == end;
}

/* True when [p, end) starts with four hex digits. */
static bool hex4(const char *p, const char *end)
{
	if (end - p < 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
			return false;
	return true;
}

/* True when s[len] has something json_parse refuses by design and cJSON
 * takes: bytes that are not ASCII (UTF-8 is checked here, not by cJSON), raw
 * control characters in strings and, but for whitespace, outside them,
 * \u0000 and \u without four hex digits (cJSON reads both as NUL), numbers
 * RFC 8259 does not allow (cJSON hands strtod "01" or "1."), nesting past
 * JSON_MAX_DEPTH. */
static bool refused_on_purpose(const char *s, size_t len)
{
	int depth = 0, max = 0;
	bool in_str = false;

	if (memmem(s, len, "\\u0000", 6))
		return true;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80)
			return true;
		if (in_str) {
			if (c < 0x20)
				return true;
			if (c == '\\' && i + 1 < len && s[i + 1] == 'u' && !hex4(s + i + 2, s + len))
				return true;
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c < 0x20 && (!c || !strchr(" \t\n\r", c)))
			return true; /* cJSON skips any control character as whitespace */
		if (c == '-' || (c >= '0' && c <= '9')) {
			size_t j = i;

			while (j < len && strchr("0123456789+-.eE", s[j]) && s[j])
				j++;
			if (!rfc_number(s + i, s + j))
				return true;
			i = j - 1;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			max = ++depth > max ? depth : max;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return max > JSON_MAX_DEPTH;
}

/* Aborts unless every raw node under node whose pairs were read holds the pairs its text parses to. */
static void check_raw_pairs(const cJSON *node)
{
	for (const cJSON *it = node->child; it; it = it->next) {
		size_t n = 0, i = 0;
		const uint64_t *v = json_raw_pairs(it, &n);
		cJSON *tree, *pair;

		if (!cJSON_IsRaw(it)) {
			check_raw_pairs(it);
			continue;
		}
		if (!v)
			continue;
		tree = json_parse(it->valuestring, strlen(it->valuestring));
		if (!tree || cJSON_GetArraySize(tree) != (int)n)
			abort();
		cJSON_ArrayForEach(pair, tree)
		{
			if (cJSON_GetArraySize(pair) != 2 || pair->child->valuedouble != (double)v[2 * i] ||
			    pair->child->next->valuedouble != (double)v[2 * i + 1])
				abort();
			i++;
		}
		cJSON_Delete(tree);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = NULL;
	cJSON *ours, *theirs, *jobs, *raw;
	char *a, *b;
	bool oom;

	json_arena_begin();
	ours = json_parse(s, size);
	theirs = cJSON_ParseWithLengthOpts(s, size, &end, false);
	/* cJSON_ParseWithLength ignores what follows the value; RFC 8259 allows only whitespace */
	while (theirs && end < s + size && strchr(" \t\n\r", *end) && *end)
		end++;
	if (theirs && end != s + size) {
		cJSON_Delete(theirs);
		theirs = NULL;
	}
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
	/* arrays under "b" kept as text (with their pairs read): accepted exactly when the tree is */
	raw = json_parse_raw_member(s, size, "b");
	if ((raw != NULL) != (ours != NULL))
		abort();
	if (raw)
		check_raw_pairs(raw);
	cJSON_Delete(raw);
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
