/* scx_sched.h - one sched_ext scheduler object: open, load, attach, read its
 * counters and exit info, detach. */
#ifndef SCHEDIO_CLI_SCX_SCX_SCHED_H
#define SCHEDIO_CLI_SCX_SCX_SCHED_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

#include "cli/scx/scx_layout.h"
#include "scx_shared.h"

struct bpf_object;
struct bpf_map;
struct btf;

struct scx_sched {
	struct bpf_object *obj;
	struct bpf_map *ops;     /* the object's one struct_ops map */
	struct btf *obj_btf;     /* its BTF as compiled (the kfuncs it calls), or NULL */
	char *obj_weak;          /* its weak undefined symbols (scx_object_weak_syms), or NULL */
	char name[128];          /* the ops name: the object's .name, else its variable's */
	uint32_t timeout_ms;     /* the object's own .timeout_ms (0: unset) */
	int link_fd;             /* -1 while not attached */
	bool has_counters;       /* its stats map is schedio's (scx_layout_counters) */
	bool has_exit_info;      /* its exit_info map is schedio's struct schedio_scx_exit */
	struct bpf_map *uei_map; /* the data section holding a community `uei` record, or NULL */
	struct scx_uei uei;      /* where that record's fields lie */
	char err[512];           /* why the last call failed */
};

/* Opens an object from memory (elf, len) or, with elf NULL, from the file
 * path; marks init sleepable and the map as link-attached. Returns 0 or -errno. */
int scx_sched_open(struct scx_sched *s, const void *elf, size_t len, const char *path);
/* Fills the object's read-only globals before load: each __SCX_NAME with
 * the enumerator SCX_NAME of kern (the running kernel's BTF; NULL: none)
 * and the conventional CPU counts (nr_cpu_ids, ...) with nr_cpus (0: none);
 * *enums and *cpus say how many. Returns 0 or -errno. */
int scx_sched_fill_rodata(struct scx_sched *s, const struct btf *kern, uint32_t nr_cpus, int *enums, int *cpus);
/* Sets the read-only variable name to value (--set NAME=VALUE) before load;
 * 0, or -ENOENT (no such variable), -EINVAL or -ERANGE, with why in s->err. */
int scx_sched_set_rodata(struct scx_sched *s, const char *name, const char *value);
/* Sets the map's max_entries before load (--map-size MAP=N); 0, or -ENOENT
 * (no such map) or -EINVAL, with why in s->err. */
int scx_sched_set_map_size(struct scx_sched *s, const char *map, uint32_t n);
/* Gives each writable RESIZABLE_ARRAY section (.data.NAME, .bss.NAME; not
 * the uei's _dump) one element per CPU, as the community's loaders do;
 * *resized says how many. Before load; 0 or -errno. */
int scx_sched_resize_arrays(struct scx_sched *s, uint32_t nr_cpus, int *resized);
/* Whether the object needs a user-space half or loader of its own that
 * schedio is not: a user ring buffer, a PID in rodata still 0 beside a
 * queue, stack or ring buffer map (the channel to that task), or read-only
 * RESIZABLE_ARRAYs (per-CPU values its loader computes). 1 with why in
 * s->err, else 0. Call after --set, before load. */
int scx_sched_user_half(struct scx_sched *s);
/* Loads programs and maps into the kernel; returns 0 or -errno (-ENOENT: it
 * failed because the kernel lacks a kfunc the object calls; s->err names it). */
int scx_sched_load(struct scx_sched *s);
/* Writes key -> value into the array map named map (configuration set
 * between load and attach); returns 0 or -errno. */
int scx_sched_map_set(struct scx_sched *s, const char *map, uint32_t key, const void *value);
/* Registers the scheduler with the given watchdog timeout (0: kernel default),
 * for SCHED_EXT tasks only when partial; returns 0 or -errno (-EBUSY: another
 * scheduler is active). */
int scx_sched_attach(struct scx_sched *s, uint32_t timeout_ms, bool partial);
/* Sums the per-CPU counters into out[SCHEDIO_SCX_STAT_NR]; returns 0 or
 * -errno (-ENOENT: the object keeps no counters of schedio's layout). */
int scx_sched_stats(struct scx_sched *s, uint64_t out[SCHEDIO_SCX_STAT_NR]);
/* Reads what ops.exit recorded in schedio's exit_info map or, failing that,
 * in the object's community `uei` record; returns 1 if it ran, 0 if not yet,
 * -errno. */
int scx_sched_exit_info(struct scx_sched *s, struct schedio_scx_exit *out);
/* Unregisters the scheduler (the kernel runs ops.exit before this returns). */
void scx_sched_detach(struct scx_sched *s);
/* Detaches if needed and frees everything. */
void scx_sched_close(struct scx_sched *s);
/* A name for an enum scx_exit_kind value, e.g. "stall" for 1026. */
const char *scx_sched_exit_kind_name(int32_t kind);

#endif /* SCHEDIO_CLI_SCX_SCX_SCHED_H */
