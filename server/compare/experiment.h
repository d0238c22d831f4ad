/* experiment.h - a saved experiment's definition (POST /api/v1/experiments):
 * a name and a comparison (two selectors, a metric, a threshold, a cgroup)
 * over a window that is either fixed ({"from", "to"}, or per arm {"a_from",
 * "a_to", "b_from", "b_to"}) or moves with time ({"last_hours": N}). The body
 * is checked as GET /api/v1/compare checks its query (the same selector
 * parser, metric names and limits), every refusal naming the field; parsing
 * is pure, so it is unit tested and fuzzed on its own, and the stored text is
 * the canonical JSON it makes, read back through the same parser.
 */
#ifndef SCHEDIO_SERVER_COMPARE_EXPERIMENT_H
#define SCHEDIO_SERVER_COMPARE_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "server/compare/compare_query.h"

#define EXPERIMENT_NAME_MAX 128            /* bytes of a name */
#define EXPERIMENT_BODY_MAX 65536          /* bytes of a definition as sent */
#define EXPERIMENT_LAST_HOURS_MAX 8784     /* a leap year */
#define EXPERIMENT_MS_MAX 9007199254740992 /* 2^53: every integer below is exact in JSON */

enum experiment_window {
	EXPERIMENT_LAST_HOURS,   /* [now - last_hours, now) for both arms */
	EXPERIMENT_FIXED,        /* q.from/q.to, the same for both arms */
	EXPERIMENT_BEFORE_AFTER, /* q.from/q.to, one window per arm */
};

struct experiment {
	char name[EXPERIMENT_NAME_MAX + 1];
	struct compare_query q; /* the windows of a last_hours one are set by experiment_at */
	enum experiment_window window;
	int64_t last_hours;
};

/* Parses and checks a definition, JSON text of len bytes; 0, or -1 with why (naming the field) in err[errlen]. */
int experiment_parse(const char *text, size_t len, struct experiment *e, char *err, size_t errlen);
/* The definition as canonical JSON (name, a, b, metric, threshold, cgroup, window); NULL without memory. */
cJSON *experiment_to_json(const struct experiment *e);
/* Sets a last_hours experiment's windows to the hours before now (ms); fixed windows stay. */
void experiment_at(struct experiment *e, int64_t now);

#endif /* SCHEDIO_SERVER_COMPARE_EXPERIMENT_H */
