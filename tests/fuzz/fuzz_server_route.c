/* fuzz_server_route.c - libFuzzer target for the route matcher, which sees
 * every request path: any path against every kind of pattern must match or
 * not without reading out of bounds or leaking captures.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *patterns[] = { "/healthz", "/api/v1/hosts/{id}", "/api/v1/hosts/{id}/runqlat",
					  "/a/{x}/b/{y}", "/api/v1/ssd/models/{id}/config" };
	char *path = malloc(size + 1), *args[HTTP_MAX_PATH_ARGS];

	if (!path)
		return 0;
	memcpy(path, data, size);
	path[size] = '\0';
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		int n = route_match(patterns[i], path, args, HTTP_MAX_PATH_ARGS);

		for (int k = 0; k < n; k++)
			free(args[k]);
	}
	free(path);
	return 0;
}
