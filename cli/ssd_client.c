/* ssd_client.c - see ssd_client.h. */
#include "cli/ssd_client.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"

void ssd_client_init(struct ssd_client *c)
{
	const char *t = getenv("SCHEDIO_TOKEN");

	c->server = command_default_server();
	c->token = t && *t ? t : NULL;
}

int ssd_client_option(struct ssd_client *c, int opt, const char *arg)
{
	if (opt == SSD_OPT_SERVER)
		c->server = arg;
	else if (opt == SSD_OPT_TOKEN)
		c->token = arg;
	else
		return 0;
	return 1;
}

const char *ssd_client_error(const struct http_result *res, char *buf, size_t cap)
{
	cJSON *doc;
	const cJSON *e;

	if (res->status < 0) {
		snprintf(buf, cap, "%s", res->error);
		return buf;
	}
	doc = cJSON_Parse(res->body);
	e = cJSON_GetObjectItemCaseSensitive(doc, "error");
	if (cJSON_IsString(e))
		snprintf(buf, cap, "%s (HTTP %ld)", e->valuestring, res->status);
	else
		snprintf(buf, cap, "the server answered HTTP %ld", res->status);
	cJSON_Delete(doc);
	return buf;
}

char *ssd_client_escape(const char *s, char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *s && o + 4 < cap; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    strchr("-._~", ch)) {
			out[o++] = (char)ch;
		} else {
			out[o++] = '%';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
	return out;
}
