/* store_labels.c - store_labels_hosts (store.h): the hosts whose reports in a
 * window carried one label, for selectors such as label.role=web (issue 15).
 * The backends answer from their label spans (schema/<backend>/0013); this
 * checks the pair and collects the machine ids into an array the caller owns. */
#include "server/store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"

struct id_list {
	char **v;
	size_t n, cap;
};

static int add_id(void *arg, const char *id)
{
	struct id_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(id ? id : "");
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

int store_labels_hosts(struct store *s, const char *key, const char *value, int64_t from_ms, int64_t to_ms,
		       char ***host_ids, size_t *n)
{
	char pair[LABEL_KEY_MAX + LABEL_VALUE_MAX + 2], why[256];
	struct id_list l = { 0 };
	int rc;

	*host_ids = NULL;
	*n = 0;
	if (!label_key_ok(key, strlen(key), why, sizeof(why)) ||
	    !label_value_ok(key, value, strlen(value), why, sizeof(why)))
		return -EINVAL;
	snprintf(pair, sizeof(pair), "%s=%s", key, value);
	rc = s->ops->label_hosts(s, pair, from_ms, to_ms, add_id, &l);
	if (rc) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return rc == -ENOMEM ? -ENOMEM : -EIO;
	}
	*host_ids = l.v;
	*n = l.n;
	return 0;
}
