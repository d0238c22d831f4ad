/* config.c - agent.conf and its flags. Every key has one parser, used for
 * the file and for the flag alike, so a value means the same wherever it is
 * written. Unknown keys and bad values are errors naming the file and line:
 * a typo in a fleet-wide config must stop the agent at install time, not
 * silently run it with a default. Labels (label.K = V, issue 15) are the one
 * family of keys named by the user; their limits are common/labels.h's.
 */
#include "agent/config.h"

#include <errno.h>
#include <stddef.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/report/collector.h"
#include "common/cli.h"
#include "common/fsutil.h"

enum key_kind { K_URL, K_STRING, K_PATH, K_SECONDS, K_BYTES, K_DEPTH, K_COLLECTORS, K_MILLIS };

struct key {
	const char *name;
	enum key_kind kind;
	size_t offset;
	size_t size;       /* buffer size for strings */
	uint64_t min, max; /* for numbers */
};

/* clang-format breaks a braced initializer inside a macro apart */
/* clang-format off */
#define STR_KEY(n, k) { #n, k, offsetof(struct agent_config, n), sizeof(((struct agent_config *)0)->n), 0, 0 }
#define NUM_KEY(n, f, k, lo, hi) { #n, k, offsetof(struct agent_config, f), 0, lo, hi }
/* clang-format on */

static const struct key keys[] = {
	STR_KEY(server, K_URL),
	STR_KEY(token, K_STRING),
	STR_KEY(token_file, K_PATH),
	NUM_KEY(interval, interval_s, K_SECONDS, 1, 3600),
	STR_KEY(state_dir, K_PATH),
	STR_KEY(spool_dir, K_PATH),
	NUM_KEY(spool_max_bytes, spool_max_bytes, K_BYTES, 1024, 1ULL << 40),
	NUM_KEY(cgroup_depth, cgroup_depth, K_DEPTH, 0, 16),
	STR_KEY(ca_file, K_PATH),
	NUM_KEY(backoff_max, backoff_max_s, K_SECONDS, 1, 3600),
	STR_KEY(disable, K_COLLECTORS),
	NUM_KEY(bpf_stats_sample_ms, bpf_stats_sample_ms, K_MILLIS, 0, 3600000),
	NUM_KEY(bpf_stats_period, bpf_stats_period_s, K_SECONDS, 1, 3600),
};

void config_defaults(struct agent_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_s = 10;
	c->spool_max_bytes = 64ULL << 20;
	c->cgroup_depth = 2;
	c->backoff_max_s = 60;
	c->bpf_stats_sample_ms = 1000;
	c->bpf_stats_period_s = 10;
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", CONFIG_DEFAULT_STATE_DIR);
}

/* Sizes take an optional K, M or G suffix (powers of 1024). */
static int parse_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char num[32];
	size_t len = strlen(s);
	unsigned shift = 0;

	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	switch (num[len - 1]) {
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	}
	if (shift)
		num[len - 1] = '\0';
	if (cli_parse_u64(num, 0, max >> shift, out))
		return -1;
	*out <<= shift;
	return *out < min ? -1 : 0;
}

/* label.K = V: K and V checked as the server checks host.labels, so a label the agent starts
 * with is never refused at ingest. */
static int set_label(struct agent_config *c, const char *key, const char *value, char *err, size_t errlen)
{
	unsigned i;

	if (!label_key_ok(key, strlen(key), err, errlen) || !label_value_ok(key, value, strlen(value), err, errlen))
		return -1;
	for (i = 0; i < c->nlabels && strcmp(c->labels[i].key, key) != 0; i++)
		;
	if (i == LABELS_MAX) {
		snprintf(err, errlen, "label %s: more than %d labels", key, LABELS_MAX);
		return -1;
	}
	snprintf(c->labels[i].key, sizeof(c->labels[i].key), "%s", key);
	snprintf(c->labels[i].value, sizeof(c->labels[i].value), "%s", value);
	if (i == c->nlabels)
		c->nlabels++;
	return 0;
}

int config_set(struct agent_config *c, const char *key, const char *value, char *err, size_t errlen)
{
	const struct key *k = NULL;
	char *field;
	uint64_t v;

	if (strncmp(key, "label.", 6) == 0)
		return set_label(c, key + 6, value, err, errlen);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, key) == 0)
			k = &keys[i];
	if (!k) {
		snprintf(err, errlen, "unknown key '%s'", key);
		return -1;
	}
	field = (char *)c + k->offset;
	switch (k->kind) {
	case K_URL:
		if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8)) {
			snprintf(err, errlen, "%s wants an http:// or https:// URL, not '%s'", key, value);
			return -1;
		}
		/* fallthrough */
	case K_COLLECTORS:
		if (k->kind == K_COLLECTORS && collector_check_list(value, err, errlen) < 0)
			return -1;
		/* fallthrough */
	case K_STRING:
	case K_PATH:
		if (strlen(value) >= k->size) {
			snprintf(err, errlen, "%s is longer than %zu bytes", key, k->size - 1);
			return -1;
		}
		if (k->kind == K_PATH && *value && *value != '/') {
			snprintf(err, errlen, "%s wants an absolute path, not '%s'", key, value);
			return -1;
		}
		snprintf(field, k->size, "%s", value);
		return 0;
	case K_MILLIS:
		if (cli_parse_u64(value, k->min, k->max, &v)) {
			snprintf(err, errlen, "%s wants whole milliseconds %llu..%llu, not '%s'", key,
				 (unsigned long long)k->min, (unsigned long long)k->max, value);
			return -1;
		}
		*(uint64_t *)field = v;
		return 0;
	case K_SECONDS:
		if (cli_parse_u64(value, k->min, k->max, &v)) {
			snprintf(err, errlen, "%s wants whole seconds %llu..%llu, not '%s'", key,
				 (unsigned long long)k->min, (unsigned long long)k->max, value);
			return -1;
		}
		*(uint64_t *)field = v;
		return 0;
	case K_BYTES:
		if (parse_bytes(value, k->min, k->max, &v)) {
			snprintf(err, errlen, "%s wants bytes (optionally with K, M or G) from 1K to 1024G, not '%s'",
				 key, value);
			return -1;
		}
		*(uint64_t *)field = v;
		return 0;
	case K_DEPTH:
		if (cli_parse_u64(value, k->min, k->max, &v)) {
			snprintf(err, errlen, "%s wants 0..16, not '%s'", key, value);
			return -1;
		}
		*(unsigned *)field = (unsigned)v;
		return 0;
	}
	return -1;
}

struct ini_ctx {
	struct agent_config *c;
	char msg[512];
};

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;

	if (*section && strcmp(section, "agent") != 0) {
		snprintf(ctx->msg, sizeof(ctx->msg), "unknown section [%s] (keys go at the top or in [agent])",
			 section);
		return 0;
	}
	if (!name) /* a section header alone */
		return 1;
	return config_set(ctx->c, name, value ? value : "", ctx->msg, sizeof(ctx->msg)) == 0;
}

int config_load_file(struct agent_config *c, const char *path, bool must_exist, char *err, size_t errlen)
{
	struct ini_ctx ctx = { .c = c };
	FILE *f = fopen(path, "r");
	int line;

	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 1;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	line = ini_parse_file(f, on_ini, &ctx);
	fclose(f);
	if (line == 0)
		return 0;
	if (line > 0 && !ctx.msg[0])
		snprintf(ctx.msg, sizeof(ctx.msg), "not a key = value line");
	if (line < 0)
		snprintf(ctx.msg, sizeof(ctx.msg), "out of memory parsing");
	snprintf(err, errlen, "%s:%d: %s", path, line, ctx.msg);
	return -1;
}

int config_finish(struct agent_config *c, char *err, size_t errlen)
{
	if (!c->server[0]) {
		snprintf(err, errlen, "no server set: put 'server = URL' in the config or pass --server URL");
		return -1;
	}
	if (c->token[0] && c->token_file[0]) {
		snprintf(err, errlen, "token and token_file are both set; keep one");
		return -1;
	}
	if (c->token_file[0]) {
		ssize_t n = fs_read_trimmed(c->token_file, c->token, sizeof(c->token));

		if (n < 0) {
			snprintf(err, errlen, "cannot read token_file %s: %s", c->token_file, strerror((int)-n));
			return -1;
		}
		if (n == 0) {
			snprintf(err, errlen, "token_file %s is empty", c->token_file);
			return -1;
		}
	}
	if (strpbrk(c->token, "\r\n")) {
		snprintf(err, errlen, "the token holds a line break");
		return -1;
	}
	if (c->ca_file[0] && access(c->ca_file, R_OK) != 0) {
		snprintf(err, errlen, "cannot read ca_file %s: %s", c->ca_file, strerror(errno));
		return -1;
	}
	if (c->ca_file[0] && strncmp(c->server, "https://", 8) != 0) {
		snprintf(err, errlen, "ca_file is set but server %s is not https://", c->server);
		return -1;
	}
	if (!c->state_dir[0]) {
		snprintf(err, errlen, "state_dir is empty");
		return -1;
	}
	if (!c->spool_dir[0] &&
	    snprintf(c->spool_dir, sizeof(c->spool_dir), "%s/spool", c->state_dir) >= (int)sizeof(c->spool_dir)) {
		snprintf(err, errlen, "state_dir is too long");
		return -1;
	}
	return 0;
}

void config_print(const struct agent_config *c, FILE *out)
{
	fprintf(out, "server = %s\n", c->server);
	if (c->token_file[0])
		fprintf(out, "token_file = %s\n", c->token_file);
	else
		fprintf(out, "token = %s\n", c->token[0] ? "(set, not shown)" : "");
	fprintf(out, "interval = %llu\n", (unsigned long long)c->interval_s);
	fprintf(out, "state_dir = %s\n", c->state_dir);
	fprintf(out, "spool_dir = %s\n", c->spool_dir);
	fprintf(out, "spool_max_bytes = %llu\n", (unsigned long long)c->spool_max_bytes);
	fprintf(out, "cgroup_depth = %u\n", c->cgroup_depth);
	fprintf(out, "ca_file = %s\n", c->ca_file);
	fprintf(out, "backoff_max = %llu\n", (unsigned long long)c->backoff_max_s);
	fprintf(out, "disable = %s\n", c->disable);
	fprintf(out, "bpf_stats_sample_ms = %llu\n", (unsigned long long)c->bpf_stats_sample_ms);
	fprintf(out, "bpf_stats_period = %llu\n", (unsigned long long)c->bpf_stats_period_s);
	for (unsigned i = 0; i < c->nlabels; i++)
		fprintf(out, "label.%s = %s\n", c->labels[i].key, c->labels[i].value);
}

int config_labels_to_json(const struct agent_config *c, cJSON *report)
{
	cJSON *host = cJSON_GetObjectItemCaseSensitive(report, "host"), *labels;

	if (c->nlabels == 0)
		return 0;
	if (!host && !(host = cJSON_AddObjectToObject(report, "host")))
		return -ENOMEM;
	cJSON_DeleteItemFromObjectCaseSensitive(host, "labels");
	labels = cJSON_AddObjectToObject(host, "labels");
	if (!labels)
		return -ENOMEM;
	for (unsigned i = 0; i < c->nlabels; i++)
		if (!cJSON_AddStringToObject(labels, c->labels[i].key, c->labels[i].value))
			return -ENOMEM;
	return 0;
}
