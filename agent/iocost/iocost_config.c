/* iocost_config.c - the io.cost configuration in force, as the kernel prints
 * it in the cgroup2 root's io.cost.model ("MAJ:MIN ctrl=auto model=linear
 * rbps=... rseqiops=... rrandiops=... wbps=... wseqiops=... wrandiops=...")
 * and io.cost.qos ("MAJ:MIN enable=1 ctrl=user rpct=95.00 rlat=... wpct=...
 * wlat=... min=... max=..."). Every key is kept, not just the ones known
 * today, so the server sees what a newer kernel adds; a line that is not
 * "MAJ:MIN key=value..." with short lowercase keys is skipped and counted.
 */
#include "agent/iocost/iocost_config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/iocost/iostat.h"

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static int conf_line(const char *p, const char *end, struct iocost_config_dev *d)
{
	memset(d, 0, sizeof(*d));
	if (iostat_parse_devno(&p, &d->major, &d->minor) || p >= end || *p != ' ')
		return -1;
	while (p < end) {
		const char *tok, *eq;
		size_t klen, vlen;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		tok = p;
		while (p < end && *p != ' ')
			p++;
		eq = memchr(tok, '=', (size_t)(p - tok));
		if (!eq || d->n == IOCOST_CONF_MAX_KEYS)
			return -1;
		klen = (size_t)(eq - tok);
		vlen = (size_t)(p - eq - 1);
		if (klen == 0 || klen >= sizeof(d->kv[0].key) || vlen == 0 || vlen >= sizeof(d->kv[0].val))
			return -1;
		for (size_t i = 0; i < klen; i++)
			if (!key_char(tok[i]))
				return -1;
		for (size_t i = 0; i < vlen; i++)
			if (eq[1 + i] == '=' || (unsigned char)eq[1 + i] < 0x21 || (unsigned char)eq[1 + i] > 0x7e)
				return -1;
		memcpy(d->kv[d->n].key, tok, klen);
		memcpy(d->kv[d->n].val, eq + 1, vlen);
		d->n++;
	}
	return d->n ? 0 : -1;
}

void iocost_config_parse(const char *text, struct iocost_conf *conf)
{
	const char *p = text;

	conf->n = 0;
	conf->bad_lines = 0;
	while (*p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		struct iocost_config_dev d;

		while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (end > p) {
			if (conf_line(p, end, &d) || iocost_config_find(conf, d.major, d.minor) ||
			    conf->n == IOCOST_CONF_MAX_DEVS)
				conf->bad_lines++;
			else
				conf->dev[conf->n++] = d;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

const struct iocost_config_dev *iocost_config_find(const struct iocost_conf *conf, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < conf->n; i++)
		if (conf->dev[i].major == major && conf->dev[i].minor == minor)
			return &conf->dev[i];
	return NULL;
}

const char *iocost_config_get(const struct iocost_config_dev *dev, const char *key)
{
	for (size_t i = 0; i < dev->n; i++)
		if (!strcmp(dev->kv[i].key, key))
			return dev->kv[i].val;
	return NULL;
}

/* Plain decimals only ("95.00", "1000"): strtod would also take hex, inf and exponents. */
static bool is_decimal(const char *v)
{
	bool digit = false, dot = false;

	if (*v == '-')
		v++;
	for (; *v; v++) {
		if (*v >= '0' && *v <= '9')
			digit = true;
		else if (*v == '.' && !dot && digit)
			dot = true;
		else
			return false;
	}
	return digit;
}

bool iocost_config_enabled(const struct iocost_config_dev *qos)
{
	const char *v = qos ? iocost_config_get(qos, "enable") : NULL;

	return v && !strcmp(v, "1");
}

cJSON *iocost_config_to_json(const struct iocost_config_dev *dev)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	for (size_t i = 0; i < dev->n; i++) {
		const char *v = dev->kv[i].val;
		cJSON *item;

		if (is_decimal(v))
			item = cJSON_CreateNumber(strtod(v, NULL));
		else
			item = cJSON_CreateString(v);
		if (!item || !cJSON_AddItemToObject(o, dev->kv[i].key, item)) {
			cJSON_Delete(item);
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}
