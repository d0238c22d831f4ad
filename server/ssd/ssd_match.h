/* ssd_match.h - the fleet link: does the io.cost configuration in force on
 * a host's disk match what the SSD database recommends for its model?
 */
#ifndef SCHEDIO_SERVER_SSD_SSD_MATCH_H
#define SCHEDIO_SERVER_SSD_SSD_MATCH_H

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "server/ssd/ssd_recommend.h"
#include "server/store/ssd_store.h"

enum ssd_match_state { SSD_MATCH_NO_DATA, SSD_MATCH_IN_USE, SSD_MATCH_DIFFERS };

/* A disk's io.cost configuration as the agent reported it. */
struct ssd_iocost_current {
	bool enabled; /* io.cost.qos enable=1 */
	bool has_model, has_qos;
	double model[SSD_NPARAMS]; /* io.cost.model values, ssd_model_keys order */
	double qos[SSD_NPARAMS];   /* io.cost.qos values, ssd_qos_keys order */
};

struct ssd_match {
	enum ssd_match_state state;
	char solution[SSD_SOLUTION_NAME_MAX + 1]; /* in_use: the solution matched; differs: the one advised */
	struct ssd_recommendation rec;            /* empty for no_data */
};

/* Recommendations already looked up, by model and firmware: a request that
 * annotates many hosts' disks (the hosts list) asks the database once per
 * model rather than once per disk (a fleet has few SSD models). */
struct ssd_match_cache {
	struct ssd_match_cached *v;
	size_t n, cap;
};

/* "in_use", "differs" or "no_data". */
const char *ssd_match_state_name(enum ssd_match_state s);
/* Compares cur with every solution of rec (within the rounding of the kernel's own
 * output); in_use when enabled and one matches, differs otherwise, no_data for an
 * empty rec. Sets *solution to the matching or advised solution (NULL for no_data). */
enum ssd_match_state ssd_match_config(const struct ssd_recommendation *rec, const struct ssd_iocost_current *cur,
				      const struct ssd_rec_solution **solution);
/* Looks model (sysfs padding trimmed) up in st and matches cur against its recommendation,
 * narrowed to fwrev when the database has results for that firmware. Returns 0 or -errno. */
int ssd_match_disk(struct ssd_store *st, const char *model, const char *fwrev, const struct ssd_iocost_current *cur,
		   struct ssd_match *out);
/* Reads the agent's per-disk iocost fields ({"enabled", "model": {..}, "qos": {..}}, as in
 * the report's iocost.disks[] or the hosts API's disks[].iocost) into cur. */
void ssd_match_current_from_json(const cJSON *disk, struct ssd_iocost_current *cur);

/* ssd_match_disk through cache (NULL: no cache). */
int ssd_match_disk_cached(struct ssd_store *st, struct ssd_match_cache *cache, const char *model, const char *fwrev,
			  const struct ssd_iocost_current *cur, struct ssd_match *out);
/* Adds "recommendation": "in_use"|"differs"|"no_data" to every object in the JSON array
 * disks (the hosts API's disk objects: "model" and "fwrev" strings, the io.cost state
 * in "iocost" {"enabled", "model", "qos"} or, as in reports, on the disk itself), looking
 * models up through cache (NULL: none). Returns 0 or -errno (disks untouched past the failing one). */
int ssd_match_annotate_disks(struct ssd_store *st, cJSON *disks, struct ssd_match_cache *cache);
/* Frees what cache holds and empties it. */
void ssd_match_cache_free(struct ssd_match_cache *cache);

#endif /* SCHEDIO_SERVER_SSD_SSD_MATCH_H */
