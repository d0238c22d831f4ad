/* json_lex.h - the server's one JSON grammar: RFC 8259 tokens, strings of
 * well-formed UTF-8 without \u0000 or lone surrogates, and one nesting limit.
 * json_parse.c builds cJSON trees of report bodies on it and ssd_jobs.c walks
 * resctl-bench results with it, so a document one accepts the other accepts.
 * Every function reads [p, end) only and returns where the token ends, or
 * NULL when it is not valid. */
#ifndef SCHEDIO_SERVER_JSON_JSON_LEX_H
#define SCHEDIO_SERVER_JSON_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>

/* Containers nested deeper than this are refused (a report nests 5 deep). */
#define JSON_MAX_DEPTH 64

/* Past the whitespace at p. */
const char *json_lex_ws(const char *p, const char *end);
/* Past the string whose opening quote is at p; *escapes set when it holds a backslash. */
const char *json_lex_string(const char *p, const char *end, bool *escapes);
/* Past the number at p. */
const char *json_lex_number(const char *p, const char *end);
/* Past the value at p (whitespace before it skipped) inside depth containers. */
const char *json_lex_value(const char *p, const char *end, int depth);
/* The value of the four hex digits at p (the caller checked 4 bytes exist), or -1. */
int json_lex_hex4(const char *p);

#endif /* SCHEDIO_SERVER_JSON_JSON_LEX_H */
