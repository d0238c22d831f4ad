/* compare_data.h - what one arm of a comparison is made of: for a window
 * [from, to) and a selector, each matching host's runqueue latency samples
 * in that window merged into one histogram (the whole host, or one
 * workload's cgroups). The unit of a comparison is the host, so this is all
 * the statistics need from the store.
 */
#ifndef SCHEDIO_SERVER_COMPARE_COMPARE_DATA_H
#define SCHEDIO_SERVER_COMPARE_COMPARE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"
#include "server/compare/compare_select.h"
#include "server/server.h"
#include "server/store/store.h"

/* One host of an arm with at least one sample in the arm's window. */
struct compare_data_host {
	char host_id[COMPARE_SELECT_MAX_HOST + 1]; /* the machine id the API shows */
	char *hostname;
	struct hist hist; /* its samples in the window, merged */
};

/* One arm: what to gather (sel, from, to), then what was gathered (hosts, by host id). */
struct compare_arm {
	const struct compare_select *sel;
	int64_t from, to; /* ms, [from, to) */
	struct compare_data_host *hosts;
	size_t nhosts;
};

/* Fills each arm's hosts from st (arms sharing a window share one read); cgroup: that cgroup and the ones
 * below it instead of the whole host (NULL: the whole host). 0, or -errno with why in err[errlen]. */
int compare_data_gather(struct server *srv, struct store *st, const char *cgroup, struct compare_arm *arms, size_t n,
			char *err, size_t errlen);
/* True if a and b hold the same hosts (paired when their windows differ). */
bool compare_data_same_hosts(const struct compare_arm *a, const struct compare_arm *b);
/* Frees what compare_data_gather put in arm (hosts). */
void compare_arm_free(struct compare_arm *arm);

#endif /* SCHEDIO_SERVER_COMPARE_COMPARE_DATA_H */
