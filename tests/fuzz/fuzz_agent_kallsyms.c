/* fuzz_agent_kallsyms.c - libFuzzer target for the kallsyms scan that finds
 * ext_sched_class: any bytes (NULs, lines without newlines, endless hex)
 * must end in found, missing or hidden, never a read out of bounds, and a
 * found address must be non-zero. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent/runqlat/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	uint64_t addr = 0;
	int rc;

	if (!f)
		return 0; /* fmemopen refuses size 0 on some libcs */
	rc = kallsyms_find(f, "ext_sched_class", &addr);
	fclose(f);
	if (rc != 0 && rc != -ENOENT && rc != -EPERM)
		abort();
	if (rc == 0 && addr == 0)
		abort();
	return 0;
}
