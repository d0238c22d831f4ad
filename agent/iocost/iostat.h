/* iostat.h - parsing a cgroup's io.stat and io.weight (cgroup v2 text files). */
#ifndef SCHEDIO_AGENT_IOCOST_IOSTAT_H
#define SCHEDIO_AGENT_IOCOST_IOSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which optional keys an io.stat line carried. */
enum iostat_has {
	IOSTAT_HAS_USAGE = 1 << 0,
	IOSTAT_HAS_WAIT = 1 << 1,
	IOSTAT_HAS_INDEBT = 1 << 2,
	IOSTAT_HAS_INDELAY = 1 << 3,
	IOSTAT_HAS_VRATE = 1 << 4,
};

/* One device line of io.stat. Counters are cumulative since the blkg was created. */
struct iostat_dev {
	unsigned major, minor;
	uint64_t rbytes, wbytes, rios, wios, dbytes, dios;
	uint64_t cost_usage_us, cost_wait_us, cost_indebt_us, cost_indelay_us;
	double cost_vrate_pct; /* the root's cost.vrate */
	unsigned has;          /* enum iostat_has bits */
};

#define IOSTAT_MAX_DEVS 64

struct iostat {
	size_t n;
	struct iostat_dev dev[IOSTAT_MAX_DEVS];
	unsigned bad_lines; /* malformed lines skipped */
};

#define IOWEIGHT_MAX_DEVS 64

/* io.weight: "default N" and per-device "MAJ:MIN N" overrides. */
struct ioweight {
	unsigned dflt; /* 100 unless the file says otherwise */
	size_t n;
	struct {
		unsigned major, minor, weight;
	} dev[IOWEIGHT_MAX_DEVS];
	unsigned bad_lines;
};

/* Parses "MAJ:MIN", advancing *s past it; returns 0 or -1. */
int iostat_parse_devno(const char **s, unsigned *major, unsigned *minor);
/* Parses io.stat text (NUL-terminated); malformed lines are skipped and counted in st->bad_lines. */
void iostat_parse(const char *text, struct iostat *st);
/* The line for major:minor, or NULL. */
const struct iostat_dev *iostat_find(const struct iostat *st, unsigned major, unsigned minor);
/* Parses io.weight text; malformed lines are skipped and counted in w->bad_lines. */
void iostat_weight_parse(const char *text, struct ioweight *w);
/* The weight in force for major:minor: its override, else the default. */
unsigned iostat_weight_effective(const struct ioweight *w, unsigned major, unsigned minor);

#endif /* SCHEDIO_AGENT_IOCOST_IOSTAT_H */
