/* iocost_config.h - parsing the cgroup2 root's io.cost.model and io.cost.qos. */
#ifndef SCHEDIO_AGENT_IOCOST_IOCOST_CONFIG_H
#define SCHEDIO_AGENT_IOCOST_IOCOST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#define IOCOST_CONF_MAX_KEYS 16
#define IOCOST_CONF_MAX_DEVS 64

struct iocost_config_kv {
	char key[16];
	char val[32];
};

/* One device line: "MAJ:MIN key=value ..." with every key kept in file order. */
struct iocost_config_dev {
	unsigned major, minor;
	size_t n;
	struct iocost_config_kv kv[IOCOST_CONF_MAX_KEYS];
};

struct iocost_conf {
	size_t n;
	struct iocost_config_dev dev[IOCOST_CONF_MAX_DEVS];
	unsigned bad_lines; /* malformed lines skipped */
};

/* Parses io.cost.model or io.cost.qos text; malformed lines are skipped and counted. */
void iocost_config_parse(const char *text, struct iocost_conf *conf);
/* The line for major:minor, or NULL. */
const struct iocost_config_dev *iocost_config_find(const struct iocost_conf *conf, unsigned major, unsigned minor);
/* The value of key on that line, or NULL. */
const char *iocost_config_get(const struct iocost_config_dev *dev, const char *key);
/* True when an io.cost.qos line says enable=1. */
bool iocost_config_enabled(const struct iocost_config_dev *qos);
/* A JSON object of every key: numbers where the value is one, strings otherwise; NULL on OOM. */
cJSON *iocost_config_to_json(const struct iocost_config_dev *dev);

#endif /* SCHEDIO_AGENT_IOCOST_IOCOST_CONFIG_H */
