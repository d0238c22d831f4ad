/* cpu_list.c - the kernel's CPU list format, parsed once for the agent's L3
 * domains and the CLI's scx_llc domains, and the L3 cache's list read once
 * for both from cpuN/cache/indexK (the index of level 3; indexes need not be
 * contiguous).
 *
 * The kernel writes ascending, disjoint ranges; a list typed by hand need
 * not be, so the parser accepts any order and overlaps and yields the set.
 */
#include "common/cpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"

static int parse_cpu(const char **p, uint32_t nr_cpus, uint32_t *out, char *why, size_t why_len)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9') {
		snprintf(why, why_len, "expected a CPU number at '%.20s'", *p);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= nr_cpus) {
		snprintf(why, why_len, "CPU %.20s is out of range (this machine has %u)", *p, nr_cpus);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	*p = end;
	return 0;
}

static int only_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return !*p;
}

int cpu_list_parse(const char *list, uint32_t nr_cpus, uint8_t *cpus, char *why, size_t why_len)
{
	const char *p = list;
	uint32_t lo, hi;

	while (!only_space(p)) {
		if (parse_cpu(&p, nr_cpus, &lo, why, why_len))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, nr_cpus, &hi, why, why_len))
				return -EINVAL;
			if (hi < lo) {
				snprintf(why, why_len, "CPU range %u-%u runs backwards", lo, hi);
				return -EINVAL;
			}
		}
		for (uint32_t c = lo; c <= hi; c++)
			cpus[c] = 1;
		if (*p == ',')
			p++;
		else if (!only_space(p)) {
			snprintf(why, why_len, "unexpected '%c' in CPU list", *p);
			return -EINVAL;
		}
	}
	return 0;
}

int cpu_list_parse_array(const char *list, unsigned **cpus, size_t *n)
{
	uint8_t *set = calloc(CPU_LIST_MAX_CPUS, 1);
	unsigned *v = NULL;
	size_t len = 0;
	char why[128];
	int err;

	*cpus = NULL;
	*n = 0;
	if (!set)
		return -ENOMEM;
	err = cpu_list_parse(list, CPU_LIST_MAX_CPUS, set, why, sizeof(why));
	if (err)
		goto out;
	for (size_t c = 0; c < CPU_LIST_MAX_CPUS; c++)
		len += set[c];
	if (len) {
		v = malloc(len * sizeof(*v));
		if (!v) {
			err = -ENOMEM;
			goto out;
		}
	}
	len = 0;
	for (size_t c = 0; c < CPU_LIST_MAX_CPUS; c++)
		if (set[c])
			v[len++] = (unsigned)c;
	*cpus = v;
	*n = len;
out:
	free(set);
	return err;
}

/* "16384K", "32M", or plain bytes, in KiB. */
static uint64_t parse_size_kb(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*end == 'K')
		return v;
	if (*end == 'M')
		return v * 1024;
	return v / 1024;
}

int cpu_list_read_l3(const char *cpu_root, unsigned cpu, char *list, size_t len, uint64_t *size_kb)
{
	char path[PATH_MAX], buf[64];

	list[0] = '\0';
	*size_kb = 0;
	for (int idx = 0; idx < 16; idx++) {
		snprintf(path, sizeof(path), "%s/cpu%u/cache/index%d/level", cpu_root, cpu, idx);
		if (fs_read_trimmed(path, buf, sizeof(buf)) < 0 || strcmp(buf, "3"))
			continue;
		snprintf(path, sizeof(path), "%s/cpu%u/cache/index%d/shared_cpu_list", cpu_root, cpu, idx);
		if (fs_read_trimmed(path, list, len) < 0) {
			list[0] = '\0';
			continue;
		}
		snprintf(path, sizeof(path), "%s/cpu%u/cache/index%d/size", cpu_root, cpu, idx);
		if (fs_read_trimmed(path, buf, sizeof(buf)) > 0)
			*size_kb = parse_size_kb(buf);
		return 0;
	}
	return -ENOENT;
}
