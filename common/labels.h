/* labels.h - host labels (issue 15): the limits on their keys and values,
 * shared by the agent (which reads them from its configuration), the server
 * (which takes them from reports) and selectors (label.K=V), and their
 * canonical text form "k1=v1,k2=v2" (sorted by key), which is why a value may
 * hold neither ',' nor '='. */
#ifndef SCHEDIO_COMMON_LABELS_H
#define SCHEDIO_COMMON_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#define LABELS_MAX 32       /* labels per host */
#define LABEL_KEY_MAX 63    /* [a-z][a-z0-9_]{0,62} */
#define LABEL_VALUE_MAX 128 /* 1..128 bytes of printable ASCII but " \ , = */
/* The longest canonical text: every label at its longest, with '=' and ','. */
#define LABELS_TEXT_MAX (LABELS_MAX * (LABEL_KEY_MAX + LABEL_VALUE_MAX + 2))

/* Whether k (len bytes) is a valid label key; if not, the reason goes to err. */
bool label_key_ok(const char *k, size_t len, char *err, size_t errlen);
/* Whether v (len bytes) is a valid value for key k; if not, the reason (naming k) goes to err. */
bool label_value_ok(const char *k, const char *v, size_t len, char *err, size_t errlen);
/* Joins n checked labels into canonical text (sorted by key, keys distinct) in out
 * (LABELS_TEXT_MAX + 1 bytes); "" when n is 0. keys and values are reordered. */
void labels_canonical(const char **keys, const char **values, size_t n, char *out);
/* The value of key in canonical text, its length in *len; NULL when absent. */
const char *labels_find(const char *text, const char *key, size_t *len);
/* Adds each label of canonical text to obj as "key": "value"; 0 or -1 out of memory. */
int labels_to_json(const char *text, cJSON *obj);

#endif /* SCHEDIO_COMMON_LABELS_H */
