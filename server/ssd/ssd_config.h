/* ssd_config.h - a recommendation written out as configuration: the two
 * cgroup2 lines for io.cost.model and io.cost.qos, and systemd hwdb entries.
 */
#ifndef SCHEDIO_SERVER_SSD_SSD_CONFIG_H
#define SCHEDIO_SERVER_SSD_SSD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "server/ssd/ssd_recommend.h"

/* True if dev is MAJ:MIN (decimal, each below 2^20 as the kernel's dev_t allows). */
bool ssd_config_dev_ok(const char *dev);
/* Writes "DEV ctrl=user model=linear rbps=.. ...\nDEV enable=1 ctrl=user rpct=.. ...\n" into out;
 * returns the length, or -1 when it does not fit. */
int ssd_config_lines(const struct ssd_rec_solution *s, const char *dev, char *out, size_t cap);
/* Appends one hwdb entry (comment, match line, IOCOST_* properties, blank line) for
 * model and fwrev to the growing buffer *buf (malloc'd, *len bytes); returns 0 or -ENOMEM. */
int ssd_config_hwdb_entry(const char *model, const char *fwrev, const struct ssd_recommendation *rec, char **buf,
			  size_t *len, size_t *cap);

#endif /* SCHEDIO_SERVER_SSD_SSD_CONFIG_H */
