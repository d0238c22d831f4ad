/* labels.c - see labels.h. The checks are the one definition of a valid
 * label for every part of schedio, so what the agent accepts the server
 * stores and a selector can name. */
#include "common/labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool label_key_ok(const char *k, size_t len, char *err, size_t errlen)
{
	if (len == 0 || len > LABEL_KEY_MAX || k[0] < 'a' || k[0] > 'z')
		goto bad;
	for (size_t i = 1; i < len; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			goto bad;
	return true;
bad:
	snprintf(err, errlen,
		 "label key '%.*s' must be a lowercase letter then up to %d of a-z, 0-9 and _ (%d bytes at most)",
		 (int)(len > 80 ? 80 : len), k, LABEL_KEY_MAX - 1, LABEL_KEY_MAX);
	return false;
}

bool label_value_ok(const char *k, const char *v, size_t len, char *err, size_t errlen)
{
	if (len == 0 || len > LABEL_VALUE_MAX) {
		snprintf(err, errlen, "label %s: the value must be 1..%d bytes, not %zu", k, LABEL_VALUE_MAX, len);
		return false;
	}
	for (size_t i = 0; i < len; i++)
		if (v[i] < 0x20 || v[i] > 0x7e || strchr("\"\\,=", v[i])) {
			snprintf(err, errlen,
				 "label %s: the value may hold printable ASCII but \", \\, ',' and '=' "
				 "(byte %zu is 0x%02x)",
				 k, i, (unsigned char)v[i]);
			return false;
		}
	return true;
}

void labels_canonical(const char **keys, const char **values, size_t n, char *out)
{
	size_t o = 0;

	/* Insertion sort: at most LABELS_MAX labels. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			const char *k = keys[j], *v = values[j];

			keys[j] = keys[j - 1];
			values[j] = values[j - 1];
			keys[j - 1] = k;
			values[j - 1] = v;
		}
	out[0] = '\0';
	for (size_t i = 0; i < n && i < LABELS_MAX; i++)
		o += (size_t)snprintf(out + o, LABELS_TEXT_MAX + 1 - o, "%s%s=%s", i ? "," : "", keys[i], values[i]);
}

const char *labels_find(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);

		if (eq && (size_t)(eq - p) == klen && memcmp(p, key, klen) == 0) {
			*len = n - klen - 1;
			return eq + 1;
		}
		p += n + (p[n] == ',');
	}
	return NULL;
}

int labels_to_json(const char *text, cJSON *obj)
{
	char k[LABEL_KEY_MAX + 1], v[LABEL_VALUE_MAX + 1];

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ","), kl;
		const char *eq = memchr(p, '=', n);

		if (eq) {
			kl = (size_t)(eq - p);
			snprintf(k, sizeof(k), "%.*s", (int)kl, p);
			snprintf(v, sizeof(v), "%.*s", (int)(n - kl - 1), eq + 1);
			if (!cJSON_AddStringToObject(obj, k, v))
				return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}
