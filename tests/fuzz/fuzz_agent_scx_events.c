/* fuzz_agent_scx_events.c - libFuzzer target for the sched_ext events file
 * parser (agent/host/sched_ext_events.c): any text gives at most 64 counters,
 * each named [a-z0-9_]{1,64} and found again by its name, no two alike. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/host/sched_ext_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_ext_events evs;
	size_t n = sched_ext_events_parse((const char *)data, size, &evs);

	if (n != evs.n || n > SCHED_EXT_EVENTS_MAX)
		abort();
	for (size_t i = 0; i < n; i++) {
		const char *name = evs.ev[i].name;
		size_t len = strnlen(name, sizeof(evs.ev[i].name));

		if (len == 0 || len > SCHED_EXT_EVENT_NAME_MAX ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
			abort();
		if (sched_ext_events_find(&evs, name) != &evs.ev[i])
			abort();
	}
	return 0;
}
