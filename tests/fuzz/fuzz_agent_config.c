/* fuzz_agent_config.c - agent.conf is written by people and config tools:
 * any bytes must parse or fail with a message, never crash or overrun. The
 * input is handed to config_load_file through a memfd, as a file would be.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_config c;
	char path[64], err[1024];
	bool loaded;
	int fd = memfd_create("agent.conf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		config_defaults(&c);
		loaded = config_load_file(&c, path, true, err, sizeof(err)) == 0;
		if (loaded) {
			cJSON *rep = cJSON_CreateObject();

			if (rep && config_labels_to_json(&c, rep) == 0) {
				char *text = cJSON_PrintUnformatted(rep);

				cJSON_free(text);
			}
			cJSON_Delete(rep);
		}
		if (loaded && config_finish(&c, err, sizeof(err)) == 0) {
			FILE *out = fopen("/dev/null", "w");

			if (out) {
				config_print(&c, out);
				fclose(out);
			}
		}
	}
	close(fd);
	return 0;
}
