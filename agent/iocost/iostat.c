/* iostat.c - parsing a cgroup's io.stat and io.weight.
 *
 * io.stat has one line per device, "MAJ:MIN key=value ...": the byte and IO
 * counters every kernel prints, and blk-iocost's cost.usage (µs of device
 * time at vrate 100%), cost.wait, cost.indebt, cost.indelay (µs; the last
 * three only with blkcg debug stats) and, on the root, cost.vrate (percent).
 * Keys this parser does not know are ignored so newer kernels keep working;
 * a line that is not "MAJ:MIN key=value..." or whose known key has a value
 * that is not a number is skipped whole and counted, never half-used.
 */
#include "agent/iocost/iostat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int iostat_parse_devno(const char **s, unsigned *major, unsigned *minor)
{
	const char *p = *s;
	char *end;
	unsigned long ma, mi;

	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	ma = strtoul(p, &end, 10);
	if (errno || *end != ':' || ma > 0xfff)
		return -1;
	p = end + 1;
	if (*p < '0' || *p > '9')
		return -1;
	mi = strtoul(p, &end, 10);
	if (errno || mi > 0xfffff)
		return -1;
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	*s = end;
	return 0;
}

static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_pct(const char *s, size_t len, double *out)
{
	char buf[32], *end;

	if (len == 0 || len >= sizeof(buf) || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return *end ? -1 : 0;
}

struct iostat_key {
	const char *name;
	size_t off;
	unsigned has;
};

static const struct iostat_key iostat_keys[] = {
	{ "rbytes", offsetof(struct iostat_dev, rbytes), 0 },
	{ "wbytes", offsetof(struct iostat_dev, wbytes), 0 },
	{ "rios", offsetof(struct iostat_dev, rios), 0 },
	{ "wios", offsetof(struct iostat_dev, wios), 0 },
	{ "dbytes", offsetof(struct iostat_dev, dbytes), 0 },
	{ "dios", offsetof(struct iostat_dev, dios), 0 },
	{ "cost.usage", offsetof(struct iostat_dev, cost_usage_us), IOSTAT_HAS_USAGE },
	{ "cost.wait", offsetof(struct iostat_dev, cost_wait_us), IOSTAT_HAS_WAIT },
	{ "cost.indebt", offsetof(struct iostat_dev, cost_indebt_us), IOSTAT_HAS_INDEBT },
	{ "cost.indelay", offsetof(struct iostat_dev, cost_indelay_us), IOSTAT_HAS_INDELAY },
};

/* Applies one "key=value" token; unknown keys are fine, bad numbers are not. */
static int iostat_token(struct iostat_dev *d, const char *tok, size_t len)
{
	const char *eq = memchr(tok, '=', len);
	size_t klen, vlen;

	if (!eq || eq == tok)
		return -1;
	klen = (size_t)(eq - tok);
	vlen = len - klen - 1;
	if (klen == 10 && !memcmp(tok, "cost.vrate", 10)) {
		if (parse_pct(eq + 1, vlen, &d->cost_vrate_pct))
			return -1;
		d->has |= IOSTAT_HAS_VRATE;
		return 0;
	}
	for (size_t i = 0; i < sizeof(iostat_keys) / sizeof(iostat_keys[0]); i++) {
		const struct iostat_key *k = &iostat_keys[i];

		if (strlen(k->name) != klen || memcmp(k->name, tok, klen))
			continue;
		if (parse_u64(eq + 1, vlen, (uint64_t *)((char *)d + k->off)))
			return -1;
		d->has |= k->has;
		return 0;
	}
	return 0;
}

static int iostat_line(const char *p, const char *end, struct iostat_dev *d)
{
	memset(d, 0, sizeof(*d));
	if (iostat_parse_devno(&p, &d->major, &d->minor) || p > end || (p < end && *p != ' '))
		return -1;
	while (p < end) {
		const char *tok;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		tok = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if (p > tok && iostat_token(d, tok, (size_t)(p - tok)))
			return -1;
	}
	return 0;
}

/* Calls fn on each non-empty line of text. */
static void each_line(const char *text, void (*fn)(const char *p, const char *end, void *arg), void *arg)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);

		while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (end > p)
			fn(p, end, arg);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void iostat_one(const char *p, const char *end, void *arg)
{
	struct iostat *st = arg;
	struct iostat_dev d;

	if (iostat_line(p, end, &d) || iostat_find(st, d.major, d.minor)) {
		st->bad_lines++;
		return;
	}
	if (st->n == IOSTAT_MAX_DEVS) {
		st->bad_lines++;
		return;
	}
	st->dev[st->n++] = d;
}

void iostat_parse(const char *text, struct iostat *st)
{
	st->n = 0;
	st->bad_lines = 0;
	each_line(text, iostat_one, st);
}

const struct iostat_dev *iostat_find(const struct iostat *st, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->dev[i].major == major && st->dev[i].minor == minor)
			return &st->dev[i];
	return NULL;
}

/* A weight is 1..10000 (cgroup v2's CGROUP_WEIGHT_MIN..MAX). */
static int parse_weight(const char *s, const char *end, unsigned *out)
{
	uint64_t v;

	while (s < end && *s == ' ')
		s++;
	if (parse_u64(s, (size_t)(end - s), &v) || v < 1 || v > 10000)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static void ioweight_one(const char *p, const char *end, void *arg)
{
	struct ioweight *w = arg;
	unsigned ma, mi, v;

	if ((size_t)(end - p) > 8 && !memcmp(p, "default ", 8)) {
		if (parse_weight(p + 8, end, &v))
			w->bad_lines++;
		else
			w->dflt = v;
		return;
	}
	if (iostat_parse_devno(&p, &ma, &mi) || p >= end || *p != ' ' || parse_weight(p, end, &v) ||
	    w->n == IOWEIGHT_MAX_DEVS) {
		w->bad_lines++;
		return;
	}
	w->dev[w->n].major = ma;
	w->dev[w->n].minor = mi;
	w->dev[w->n].weight = v;
	w->n++;
}

void iostat_weight_parse(const char *text, struct ioweight *w)
{
	w->dflt = 100;
	w->n = 0;
	w->bad_lines = 0;
	each_line(text, ioweight_one, w);
}

unsigned iostat_weight_effective(const struct ioweight *w, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->dev[i].major == major && w->dev[i].minor == minor)
			return w->dev[i].weight;
	return w->dflt;
}
