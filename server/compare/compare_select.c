/* compare_select.c - see compare_select.h.
 *
 * A term is KEY=VALUE split at its first '='; spaces around a term and
 * around its '=' are dropped, so "sched = scx_fifo, label.role=web" reads as
 * meant. Every term may appear once (label terms once per key): all terms
 * must hold, so a second value would either repeat the first or select
 * nothing, and both are more likely a mistake than a wish.
 */
#include "server/compare/compare_select.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/labels.h"

#define TERMS_HELP "terms are sched=NAME, label.KEY=VALUE, host=ID or kernel=PREFIX, joined by commas"

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* s[n] as an error message may quote it: at most 48 bytes, anything but
 * printable ASCII (and the quote) as '?', so the message stays valid UTF-8. */
static const char *shown(const char *s, size_t n, char out[64])
{
	size_t k = 0;

	for (size_t i = 0; i < n && i < 48; i++)
		out[k++] = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\'' ? s[i] : '?';
	if (n > 48) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
	return out;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Narrows s[*n] to its part without spaces around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && is_space(*s)) {
		s++;
		(*n)--;
	}
	while (*n && is_space(s[*n - 1]))
		(*n)--;
	return s;
}

/* Stores the value of a sched, host or kernel term into dst[cap]. */
static int set_value(char *dst, size_t cap, const char *name, const char *what, const char *v, size_t n, char *err,
		     size_t errlen)
{
	char show[64];

	if (*dst)
		return fail(err, errlen, "%s= is given twice; all terms must hold, so give it once", name);
	if (n == 0)
		return fail(err, errlen, "%s= needs %s", name, what);
	if (n >= cap)
		return fail(err, errlen, "%s=%s is longer than the limit of %zu bytes", name, shown(v, n, show),
			    cap - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return fail(err, errlen, "%s=%s has a control character", name, shown(v, n, show));
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

static int add_label(struct compare_select *sel, const char *k, size_t kn, const char *v, size_t vn, char *err,
		     size_t errlen)
{
	char show[64], vshow[64], why[256];
	struct compare_select_label *l;

	if (kn == 0)
		return fail(err, errlen, "label.=%s needs a key: label.KEY=VALUE", shown(v, vn, vshow));
	/* common/labels.h decides (one definition of a label); the message quotes safely */
	if (!label_key_ok(k, kn, why, sizeof(why)))
		return fail(
		    err, errlen,
		    "label key '%s' must be a lowercase letter then at most 62 lowercase letters, digits or '_'",
		    shown(k, kn, show));
	if (vn == 0)
		return fail(err, errlen, "label.%s= needs a value", shown(k, kn, show));
	if (!label_value_ok("", v, vn, why, sizeof(why)))
		return fail(err, errlen,
			    "label.%s=%s: a label value is 1 to 128 bytes of printable ASCII without '\"', '\\', "
			    "',' or '='",
			    shown(k, kn, show), shown(v, vn, vshow));
	for (size_t i = 0; i < sel->nlabels; i++)
		if (strlen(sel->labels[i].key) == kn && memcmp(sel->labels[i].key, k, kn) == 0)
			return fail(err, errlen, "label.%s is given twice; all terms must hold, so give it once",
				    shown(k, kn, show));
	if (sel->nlabels >= COMPARE_SELECT_MAX_LABELS)
		return fail(err, errlen, "more than %d label terms", COMPARE_SELECT_MAX_LABELS);
	l = &sel->labels[sel->nlabels++];
	memcpy(l->key, k, kn);
	l->key[kn] = '\0';
	memcpy(l->value, v, vn);
	l->value[vn] = '\0';
	return 0;
}

static bool key_is(const char *k, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(k, name, n) == 0;
}

/* One term t[n], already without spaces around it. */
static int parse_term(const char *t, size_t n, struct compare_select *sel, char *err, size_t errlen)
{
	const char *eq = memchr(t, '=', n), *k = t, *v;
	size_t kn, vn;
	char show[64];

	if (!eq)
		return fail(err, errlen, "term '%s' has no '=' (" TERMS_HELP ")", shown(t, n, show));
	kn = (size_t)(eq - t);
	vn = n - kn - 1;
	k = trim(k, &kn);
	v = trim(eq + 1, &vn);
	if (key_is(k, kn, "sched"))
		return set_value(sel->sched, sizeof(sel->sched), "sched",
				 "a scheduler: a sched_ext ops name, eevdf or fair", v, vn, err, errlen);
	if (key_is(k, kn, "host"))
		return set_value(sel->host, sizeof(sel->host), "host", "a host id", v, vn, err, errlen);
	if (key_is(k, kn, "kernel"))
		return set_value(sel->kernel, sizeof(sel->kernel), "kernel", "the start of a kernel release", v, vn,
				 err, errlen);
	if (kn >= 6 && memcmp(k, "label.", 6) == 0)
		return add_label(sel, k + 6, kn - 6, v, vn, err, errlen);
	if (kn == 5 && memcmp(k, "label", 5) == 0)
		return fail(err, errlen, "label=... needs a key: label.KEY=VALUE");
	return fail(err, errlen, "unknown term '%s' (" TERMS_HELP ")", shown(k, kn, show));
}

int compare_select_parse(const char *text, struct compare_select *sel, char *err, size_t errlen)
{
	const char *p = text;
	size_t len;

	memset(sel, 0, sizeof(*sel));
	if (!text)
		return fail(err, errlen, "a selector is required (" TERMS_HELP ")");
	len = strnlen(text, COMPARE_SELECT_MAX_LEN + 1);
	if (len > COMPARE_SELECT_MAX_LEN)
		return fail(err, errlen, "the selector is longer than the limit of %d bytes", COMPARE_SELECT_MAX_LEN);
	trim(text, &len);
	if (len == 0)
		return fail(err, errlen, "the selector is empty (" TERMS_HELP ")");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const char *t = trim(p, &n);

		if (n == 0)
			return fail(err, errlen,
				    "the selector has an empty term (two commas in a row, or one at an end)");
		if (parse_term(t, n, sel, err, errlen))
			return -1;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* Appends "sep key=value" to out[cap] at *len (which counts what did not fit too). */
static void append(char *out, size_t cap, size_t *len, const char *key, const char *value)
{
	int n = snprintf(out && *len < cap ? out + *len : NULL, out && *len < cap ? cap - *len : 0, "%s%s=%s",
			 *len ? "," : "", key, value);

	if (n > 0)
		*len += (size_t)n;
}

size_t compare_select_format(const struct compare_select *sel, char *out, size_t cap)
{
	const struct compare_select_label *order[COMPARE_SELECT_MAX_LABELS];
	size_t len = 0;

	if (out && cap)
		*out = '\0';
	if (*sel->sched)
		append(out, cap, &len, "sched", sel->sched);
	if (*sel->host)
		append(out, cap, &len, "host", sel->host);
	if (*sel->kernel)
		append(out, cap, &len, "kernel", sel->kernel);
	/* labels by key (insertion sort: at most 32) */
	for (size_t i = 0; i < sel->nlabels; i++) {
		size_t j = i;

		while (j > 0 && strcmp(order[j - 1]->key, sel->labels[i].key) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = &sel->labels[i];
	}
	for (size_t i = 0; i < sel->nlabels; i++) {
		char key[6 + COMPARE_SELECT_MAX_LABEL_KEY + 1];

		snprintf(key, sizeof(key), "label.%s", order[i]->key);
		append(out, cap, &len, key, order[i]->value);
	}
	return len;
}

/* Both names of the kernel's own classes: the fleet groups a host without
 * sched_ext as "eevdf" from 6.6 on and as "fair" before, and a comparison of
 * "the kernel's scheduler" must not depend on that. */
static bool kernel_class(const char *group)
{
	return strcmp(group, "eevdf") == 0 || strcmp(group, "fair") == 0;
}

bool compare_select_sched_matches(const struct compare_select *sel, const char *group)
{
	if (!*sel->sched)
		return true;
	if (!group)
		return false;
	if (kernel_class(sel->sched))
		return kernel_class(group);
	return strcmp(sel->sched, group) == 0;
}

bool compare_select_kernel_matches(const struct compare_select *sel, const char *kernel)
{
	if (!*sel->kernel)
		return true;
	return kernel && strncmp(kernel, sel->kernel, strlen(sel->kernel)) == 0;
}

bool compare_select_host_matches(const struct compare_select *sel, const char *id)
{
	return !*sel->host || (id && strcmp(sel->host, id) == 0);
}
