/* sched_ext_events.c - the event counters of the running sched_ext scheduler.
 *
 * Kernels since 6.15 have /sys/kernel/sched_ext/root/events while a
 * scheduler is loaded: one "SCX_EV_NAME VALUE" line per counter (fallbacks
 * of select_cpu, dispatches to an offline CPU's DSQ, bypass time, ...),
 * summed over CPUs. The counters belong to the scheduler instance: a newly
 * loaded one starts from zero. The report names them in lower case without
 * the prefix, so a name unknown today still gets through.
 */
#include "agent/host/sched_ext_events.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/fsutil.h"

#define EV_PREFIX "SCX_EV_"

/* Parses one line [p, end); true with *ev filled if it is "SCX_EV_NAME VALUE". */
static bool parse_line(const char *p, const char *end, struct sched_ext_event *ev)
{
	const size_t plen = strlen(EV_PREFIX);
	size_t n = 0, digits = 0;
	uint64_t v = 0;

	if ((size_t)(end - p) < plen || memcmp(p, EV_PREFIX, plen))
		return false;
	for (p += plen; p < end && *p != ' ' && *p != '\t'; p++) {
		char c = *p;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') || n == SCHED_EXT_EVENT_NAME_MAX)
			return false;
		ev->name[n++] = c;
	}
	ev->name[n] = '\0';
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (n == 0)
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (!digits)
		return false;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p != end)
		return false;
	ev->value = v;
	return true;
}

const struct sched_ext_event *sched_ext_events_find(const struct sched_ext_events *evs, const char *name)
{
	for (size_t i = 0; i < evs->n; i++)
		if (!strcmp(evs->ev[i].name, name))
			return &evs->ev[i];
	return NULL;
}

size_t sched_ext_events_parse(const char *buf, size_t len, struct sched_ext_events *out)
{
	const char *p = buf, *end = buf + len;

	out->n = 0;
	while (p < end && out->n < SCHED_EXT_EVENTS_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct sched_ext_event ev;

		if (parse_line(p, eol, &ev) && !sched_ext_events_find(out, ev.name))
			out->ev[out->n++] = ev;
		p = nl ? nl + 1 : end;
	}
	return out->n;
}

int sched_ext_events_read(const char *root, struct sched_ext_events *out)
{
	char path[PATH_MAX], buf[8192];
	ssize_t n;

	out->n = 0;
	snprintf(path, sizeof(path), "%s/root/events", root);
	n = fs_read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return (int)sched_ext_events_parse(buf, (size_t)n, out);
}
