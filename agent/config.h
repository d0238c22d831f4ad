/* config.h - the agent's configuration: agent.conf (INI) overlaid by flags. */
#ifndef SCHEDIO_AGENT_CONFIG_H
#define SCHEDIO_AGENT_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "common/labels.h"

#define CONFIG_DEFAULT_PATH "/etc/schedio/agent.conf"
#define CONFIG_DEFAULT_STATE_DIR "/var/lib/schedio-agent"

struct agent_config {
	char server[1024];         /* http:// or https:// base URL; empty: not set */
	char token[512];           /* bearer token, from token or token_file */
	char token_file[PATH_MAX]; /* file holding the token (read at validation) */
	uint64_t interval_s;       /* reporting interval */
	char state_dir[PATH_MAX];  /* where seq is kept */
	char spool_dir[PATH_MAX];  /* unsent reports; empty: <state_dir>/spool */
	uint64_t spool_max_bytes;  /* oldest reports are dropped beyond this */
	unsigned cgroup_depth;     /* deeper cgroups count in their ancestor */
	char ca_file[PATH_MAX];    /* PEM CA bundle for https; empty: the system's */
	char disable[256];         /* comma-separated collectors left out (e.g. "runqlat") */
	uint64_t backoff_max_s;    /* retry delay cap */
	/* BPF run-time statistics on for bpf_stats_sample_ms of every bpf_stats_period_s (0: never) */
	uint64_t bpf_stats_sample_ms;
	uint64_t bpf_stats_period_s;
	/* host labels (label.K = V), reported as host.labels; in the order first set */
	struct config_label {
		char key[LABEL_KEY_MAX + 1];
		char value[LABEL_VALUE_MAX + 1];
	} labels[LABELS_MAX];
	unsigned nlabels;
};

/* Fills c with the defaults (interval 10 s, spool 64 MiB, depth 2, backoff cap 60 s,
 * BPF statistics 1000 ms of every 10 s). */
void config_defaults(struct agent_config *c);
/* Sets one key (file spelling, e.g. "spool_max_bytes", or "label.K" for a label; setting a label
 * again replaces its value) from text; 0, or -1 with the reason in err. */
int config_set(struct agent_config *c, const char *key, const char *value, char *err, size_t errlen);
/* Reads an INI file into c (keys at top level or in [agent]); a missing file is an error only when
 * must_exist. Returns 0, 1 when the file was missing, or -1 with "FILE:LINE: reason" in err. */
int config_load_file(struct agent_config *c, const char *path, bool must_exist, char *err, size_t errlen);
/* Checks the whole configuration for a daemon (server set, token_file readable, ...), reads the
 * token file and fills derived defaults; 0 or -1 with the reason in err. */
int config_finish(struct agent_config *c, char *err, size_t errlen);
/* Prints the effective configuration as an INI file, the token redacted. */
void config_print(const struct agent_config *c, FILE *out);
/* Adds the labels to report's host object as host.labels (nothing when there are none);
 * 0 or -ENOMEM. */
int config_labels_to_json(const struct agent_config *c, cJSON *report);

#endif /* SCHEDIO_AGENT_CONFIG_H */
