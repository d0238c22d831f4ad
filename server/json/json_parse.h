/* json_parse.h - a strict, fast JSON parser producing cJSON trees, for report
 * bodies. cJSON's own parser spends most of its time on strtod, locale
 * lookups and keyword compares for every number; reports are mostly small
 * integers, which this parser reads directly. Same tree, so everything else
 * keeps using the cJSON API. The bulk of a report, its histograms' bucket
 * pairs, can be left as checked text (json_parse_raw_member) for a scanner
 * that reads them straight into their stored form. */
#ifndef SCHEDIO_SERVER_JSON_JSON_PARSE_H
#define SCHEDIO_SERVER_JSON_JSON_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "server/json/json_lex.h" /* JSON_MAX_DEPTH */

/* Parses exactly one JSON value spanning [s, s+len) (whitespace around it is
 * fine); returns the tree (free with cJSON_Delete) or NULL for invalid JSON,
 * nesting deeper than JSON_MAX_DEPTH, or no memory. */
cJSON *json_parse(const char *s, size_t len);
/* As json_parse, but an array that is the value of an object member named raw_name
 * is checked (the same grammar and depth) and kept as a cJSON_Raw node holding its
 * text instead of a subtree: for large arrays the caller scans itself. */
cJSON *json_parse_raw_member(const char *s, size_t len, const char *raw_name);
/* The integer pairs of a raw node from json_parse_raw_member whose array held only [integer, integer] pairs
 * (each of 1..15 digits, no sign, fraction or exponent): 2 * *n values, the pairs in order; NULL otherwise,
 * and for a copy of the node. n may be NULL. */
const uint64_t *json_raw_pairs(const cJSON *raw, size_t *n);

#endif /* SCHEDIO_SERVER_JSON_JSON_PARSE_H */
