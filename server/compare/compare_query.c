/* compare_query.c - the checks a comparison's parts share, whether they
 * come from GET /api/v1/compare's query string or from a saved experiment's
 * definition (compare_query.h). */
#include "server/compare/compare_query.h"

#include <stdio.h>
#include <string.h>

int compare_query_cgroup(struct compare_query *q, const char *cg, char *err, size_t errlen)
{
	size_t n = strlen(cg);

	if (n == 0 || cg[0] != '/') {
		snprintf(err, errlen, "cgroup must be a cgroup path starting with '/', e.g. /system.slice/web.service");
		return -1;
	}
	if (n > REPORT_MAX_PATH) {
		snprintf(err, errlen, "cgroup is longer than the limit of %d bytes", REPORT_MAX_PATH);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)cg[i] < 0x20 || cg[i] == 0x7f) {
			snprintf(err, errlen, "cgroup has a control character");
			return -1;
		}
	/* the agent names cgroups without a trailing '/' (but the root) */
	while (n > 1 && cg[n - 1] == '/')
		n--;
	memcpy(q->cgroup, cg, n);
	q->cgroup[n] = '\0';
	return 0;
}

bool compare_query_threshold_ok(double t)
{
	return t > 0 && t < 1;
}
