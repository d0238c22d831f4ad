/* fuzz_cli_scx_domains.c - libFuzzer target for `schedio scx run llc
 * --domains SPEC` and the CPU lists read from sysfs: any string must parse
 * into domains that cover every CPU once, or fail with a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/scx/scx_topology.h"
#include "common/cpu_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scx_topology t;
	uint8_t cpus[SCHEDIO_SCX_MAX_CPUS];
	char *spec = malloc(size + 1), why[256];

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	for (uint32_t n = 1; n <= SCHEDIO_SCX_MAX_CPUS; n *= 8) {
		if (scx_topology_parse(spec, n, &t, why, sizeof(why)) == 0) {
			for (uint32_t c = 0; c < n; c++) {
				if (t.domain[c] >= t.nr_domains)
					abort();
			}
		}
		memset(cpus, 0, sizeof(cpus));
		cpu_list_parse(spec, n, cpus, why, sizeof(why));
	}
	free(spec);
	return 0;
}
