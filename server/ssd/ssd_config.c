/* ssd_config.c - io.cost lines and hwdb text from a recommendation.
 *
 * The lines are in the kernel's own format (block/blk-iocost.c parses
 * io.cost.qos percents with two decimals and latencies as integer µs), so
 * they can be written to the cgroup2 root unchanged. The hwdb entries use
 * the property names systemd's iocost tool reads: IOCOST_SOLUTIONS lists the
 * solutions with the preferred one first, IOCOST_MODEL_<NAME> and
 * IOCOST_QOS_<NAME> carry the parameters (NAME is the solution upper-cased).
 * Model and firmware strings were restricted on import to characters that
 * are not hwdb glob syntax, so a match line matches exactly that device.
 * A model-only solution (from quick benches) has no io.cost.qos line and no
 * IOCOST_QOS_ property: no QoS was measured, and none is invented.
 */
#include "server/ssd/ssd_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ssd_config_dev_ok(const char *dev)
{
	unsigned long maj, min;
	char *end;

	if (!dev || !isdigit((unsigned char)dev[0]))
		return false;
	maj = strtoul(dev, &end, 10);
	if (*end != ':' || !isdigit((unsigned char)end[1]))
		return false;
	min = strtoul(end + 1, &end, 10);
	return *end == '\0' && maj < (1ul << 12) && min < (1ul << 20);
}

static int model_params(const struct ssd_rec_solution *s, char *out, size_t cap)
{
	return snprintf(out, cap, "rbps=%.0f rseqiops=%.0f rrandiops=%.0f wbps=%.0f wseqiops=%.0f wrandiops=%.0f",
			s->model[SSD_RBPS], s->model[SSD_RSEQIOPS], s->model[SSD_RRANDIOPS], s->model[SSD_WBPS],
			s->model[SSD_WSEQIOPS], s->model[SSD_WRANDIOPS]);
}

static int qos_params(const struct ssd_rec_solution *s, char *out, size_t cap)
{
	return snprintf(out, cap, "rpct=%.2f rlat=%.0f wpct=%.2f wlat=%.0f min=%.2f max=%.2f", s->qos[SSD_RPCT],
			s->qos[SSD_RLAT], s->qos[SSD_WPCT], s->qos[SSD_WLAT], s->qos[SSD_MIN], s->qos[SSD_MAX]);
}

int ssd_config_lines(const struct ssd_rec_solution *s, const char *dev, char *out, size_t cap)
{
	char m[256], q[256];
	int n;

	model_params(s, m, sizeof(m));
	qos_params(s, q, sizeof(q));
	if (s->model_only)
		n = snprintf(out, cap, "%s ctrl=user model=linear %s\n", dev, m);
	else
		n = snprintf(out, cap, "%s ctrl=user model=linear %s\n%s enable=1 ctrl=user %s\n", dev, m, dev, q);
	return n < 0 || (size_t)n >= cap ? -1 : n;
}

__attribute__((format(printf, 4, 5))) static int append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (*len + (size_t)n + 1 > *cap) {
		size_t nc = *cap ? *cap : 4096;
		char *nb;

		while (nc < *len + (size_t)n + 1)
			nc *= 2;
		nb = realloc(*buf, nc);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
	return 0;
}

static void upper(const char *s, char *out, size_t cap)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < cap; i++)
		out[i] = (char)toupper((unsigned char)s[i]);
	out[i] = '\0';
}

int ssd_config_hwdb_entry(const char *model, const char *fwrev, const struct ssd_recommendation *rec, char **buf,
			  size_t *len, size_t *cap)
{
	const struct ssd_rec_solution *order[SSD_MAX_SOLUTIONS];
	int n = 0, rc;

	if (rec->nsolutions == 0)
		return 0;
	/* Preferred first: systemd's iocost tool applies the first listed by default. */
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < rec->nsolutions; i++)
			if (strcmp(rec->solutions[i].name, ssd_recommend_fallback_order[k]) == 0)
				order[n++] = &rec->solutions[i];
	for (int i = 0; i < rec->nsolutions; i++) {
		bool listed = false;

		for (int k = 0; k < 4; k++)
			listed |= strcmp(rec->solutions[i].name, ssd_recommend_fallback_order[k]) == 0;
		if (!listed)
			order[n++] = &rec->solutions[i];
	}
	if (rec->quick)
		rc = append(buf, len, cap,
			    "# %s, firmware %s: quick benches (schedio bench) only, %d submission(s): io.cost model "
			    "without QoS\nblock:*:name:%s:fwrev:%s:\n",
			    model, *fwrev ? fwrev : "(none)", order[0]->submissions, model, fwrev);
	else
		rc = append(buf, len, cap,
			    "# %s, firmware %s: bench %d.%d, %d submission(s)%s\nblock:*:name:%s:fwrev:%s:\n", model,
			    *fwrev ? fwrev : "(none)", rec->bench_major, rec->bench_minor, order[0]->submissions,
			    rec->from_merged ? ", merged" : "", model, fwrev);
	rc = rc ?: append(buf, len, cap, " IOCOST_SOLUTIONS=");
	for (int i = 0; !rc && i < n; i++)
		rc = append(buf, len, cap, "%s%s", i ? " " : "", order[i]->name);
	rc = rc ?: append(buf, len, cap, "\n");
	for (int i = 0; !rc && i < n; i++) {
		char name[SSD_SOLUTION_NAME_MAX + 1], m[256], q[256];

		upper(order[i]->name, name, sizeof(name));
		model_params(order[i], m, sizeof(m));
		qos_params(order[i], q, sizeof(q));
		if (order[i]->model_only)
			rc = append(buf, len, cap, " IOCOST_MODEL_%s=%s\n", name, m);
		else
			rc = append(buf, len, cap, " IOCOST_MODEL_%s=%s\n IOCOST_QOS_%s=%s\n", name, m, name, q);
	}
	return rc ?: append(buf, len, cap, "\n");
}
