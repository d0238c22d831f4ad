/* fuzz_agent_iocost_config.c - libFuzzer target for the io.cost.model and
 * io.cost.qos parser and its JSON rendering: any bytes must give lines of
 * bounded keys and values or be counted as malformed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/iocost/iocost_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iocost_conf *c = malloc(sizeof(*c));
	char *text = malloc(size + 1);

	if (c && text) {
		memcpy(text, data, size);
		text[size] = '\0';
		iocost_config_parse(text, c);
		for (size_t i = 0; i < c->n; i++) {
			cJSON *j = iocost_config_to_json(&c->dev[i]);
			char *s = j ? cJSON_PrintUnformatted(j) : NULL;

			(void)iocost_config_enabled(&c->dev[i]);
			free(s);
			cJSON_Delete(j);
		}
	}
	free(text);
	free(c);
	return 0;
}
