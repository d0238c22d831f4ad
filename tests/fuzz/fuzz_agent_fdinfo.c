/* fuzz_agent_fdinfo.c - libFuzzer target for the agent's reading of
 * /proc/self/fdinfo (agent_cost.c): any text (no newline, no NUL, a key cut
 * at the very end, digits past 32 bits) is read within its length only, and
 * an id found is a nonzero one that the text really spells after "prog_id:". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/report/agent_cost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t id = 0;
	char digits[16];

	if (agent_cost_fdinfo_prog_id((const char *)data, size, &id)) {
		snprintf(digits, sizeof(digits), "%u", id);
		if (id == 0 || !memmem(data, size, "prog_id:", 8) || !memmem(data, size, digits, strlen(digits)))
			abort();
	}
	return 0;
}
