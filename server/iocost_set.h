/* iocost_set.h - iocost state as the server stores it: per disk the vrate,
 * per (disk, cgroup) weight, hweights, usage and wait/debt/delay, kept as sums
 * with sample counts so rows merge by adding (a rollup is a sum; the query
 * divides). Encoded as varints in one blob per report or rollup row. */
#ifndef SCHEDIO_SERVER_IOCOST_SET_H
#define SCHEDIO_SERVER_IOCOST_SET_H

#include <stddef.h>
#include <stdint.h>

#include "server/blob.h"

enum io_kind { IO_DISK = 0, IO_CGROUP = 1 };

/* Field slots. Disks use IO_VRATE only. The first four are averaged over a
 * step, the *_us ones summed (time spent waiting in the step). Percentages and
 * weights are stored in thousandths. */
enum io_field {
	IO_WEIGHT = 0,
	IO_VRATE = 0,
	IO_HWEIGHT_ACTIVE,
	IO_HWEIGHT_INUSE,
	IO_USAGE,
	IO_WAIT_US,
	IO_INDEBT_US,
	IO_INDELAY_US,
	IO_FIELDS
};
#define IO_AVERAGED_FIELDS 4

struct io_row {
	uint8_t kind;
	char *dev;
	char *path;              /* "" for a disk row */
	int64_t sum[IO_FIELDS];
	uint64_t n[IO_FIELDS];   /* samples behind sum; 0 = never reported */
};

struct io_set {
	struct io_row **v;
	size_t n, cap;
};

/* The row (kind, dev, path) of s, added empty if absent; NULL when out of memory. */
struct io_row *io_set_get(struct io_set *s, uint8_t kind, const char *dev, size_t devlen, const char *path,
			  size_t pathlen);
/* Encodes the set into out. */
void io_set_encode(const struct io_set *s, struct blob *out);
/* Decodes a blob and adds its rows into s; returns 0, -EINVAL (corrupt) or -ENOMEM. */
int io_set_add_blob(struct io_set *s, const void *p, size_t len);
/* Value of field f of a row as the API shows it (average or sum); false when never reported. */
int io_row_value(const struct io_row *r, int f, double *out);
/* Frees the rows of s and empties it. */
void io_set_free(struct io_set *s);

#endif /* SCHEDIO_SERVER_IOCOST_SET_H */
