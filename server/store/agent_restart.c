/* agent_restart.c - telling an agent that started its seq over from one
 * that merely moved on, the same way on every backend.
 *
 * Every agent process reports under a new incarnation id. One that lost its
 * state folder counts seq from 1 again, one restored from a backup rewinds it. Its reports are stored (they are new),
 * but the host's history has a seam there that an operator should see as a restart, not as a host that went quiet: so
 * it is logged, counted on /metrics, and shown by the hosts API. A new incarnation whose seq carries on (a restart with
 * the state kept, or an upgrade from an agent without one) is no restart.
 */
#include <string.h>

#include "common/log.h"
#include "server/store/store.h"

bool store_agent_restart(struct report *r, const char *old_incarnation, int64_t old_seq)
{
	if (!old_incarnation || strcmp(old_incarnation, r->incarnation) == 0 || (int64_t)r->seq >= old_seq)
		return false;
	log_warn("host %s (%s): agent restarted with a new incarnation, seq went back from %lld to %llu", r->hostname,
		 r->machine_id, (long long)old_seq, (unsigned long long)r->seq);
	r->agent_restarted = true;
	return true;
}
