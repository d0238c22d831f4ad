/* iocost_set.h - iocost state as the server stores it: per disk the vrate,
 * per (disk, cgroup) weight, hweights, usage and wait/debt/delay, kept as sums
 * with sample counts so rows merge by adding (a rollup is a sum; the query
 * divides). Encoded in one blob per report or rollup row: varints, and for a
 * set of many rows bit-packed columns of values (iocost_set.c). */
#ifndef SCHEDIO_SERVER_SERIES_IOCOST_SET_H
#define SCHEDIO_SERVER_SERIES_IOCOST_SET_H

#include <stddef.h>
#include <stdint.h>

#include "server/series/blob.h"

enum iocost_kind { IOCOST_DISK = 0, IOCOST_CGROUP = 1 };

/* Field slots. Disks use IOCOST_VRATE only. The first four are averaged over a
 * step, the *_us ones summed (time spent waiting in the step). Percentages and
 * weights are stored in thousandths. */
enum iocost_field {
	IOCOST_WEIGHT = 0,
	IOCOST_VRATE = 0,
	IOCOST_HWEIGHT_ACTIVE,
	IOCOST_HWEIGHT_INUSE,
	IOCOST_USAGE,
	IOCOST_WAIT_US,
	IOCOST_INDEBT_US,
	IOCOST_INDELAY_US,
	IOCOST_FIELDS
};
#define IOCOST_AVERAGED_FIELDS 4

struct iocost_row {
	uint8_t kind;
	char *dev;
	char *path; /* "" for a disk row */
	int64_t sum[IOCOST_FIELDS];
	uint64_t n[IOCOST_FIELDS]; /* samples behind sum; 0 = never reported */
};

struct iocost_slab;

struct iocost_set {
	struct iocost_row **v;
	size_t n, cap;
	struct iocost_slab *slab; /* where the rows and their names are carved from, newest first */
};

/* The row (kind, dev, path) of s, added empty if absent; NULL when out of memory. */
struct iocost_row *iocost_set_get(struct iocost_set *s, uint8_t kind, const char *dev, size_t devlen, const char *path,
				  size_t pathlen);
/* Encodes the set into out. */
void iocost_set_encode(const struct iocost_set *s, struct blob *out);
/* Decodes a blob and adds its rows into s; returns 0, -EINVAL (corrupt) or -ENOMEM. */
int iocost_set_add_blob(struct iocost_set *s, const void *p, size_t len);
/* Value of field f of a row as the API shows it (average or sum); false when never reported. */
int iocost_row_value(const struct iocost_row *r, int f, double *out);
/* Frees the rows of s and empties it. */
void iocost_set_free(struct iocost_set *s);

#endif /* SCHEDIO_SERVER_SERIES_IOCOST_SET_H */
