/* fuzz_agent_iostat.c - libFuzzer target for the io.stat and io.weight
 * parsers, which read files any cgroup's owner-to-be kernel writes: any
 * bytes must parse or be counted as malformed, never read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/iocost/iostat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iostat *st = malloc(sizeof(*st));
	struct ioweight *w = malloc(sizeof(*w));
	char *text = malloc(size + 1);

	if (st && w && text) {
		memcpy(text, data, size);
		text[size] = '\0';
		iostat_parse(text, st);
		for (size_t i = 0; i < st->n; i++)
			if (iostat_find(st, st->dev[i].major, st->dev[i].minor) != &st->dev[i])
				abort(); /* devices are unique */
		iostat_weight_parse(text, w);
		(void)iostat_weight_effective(w, 8, 0);
	}
	free(text);
	free(w);
	free(st);
	return 0;
}
