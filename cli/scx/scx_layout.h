/* scx_layout.h - the records in a scheduler object the loader reads only
 * when their BTF layout is the one it understands: the exit-info record of
 * the community's user_exit_info.h (`uei`) and schedio's own counters. */
#ifndef SCHEDIO_CLI_SCX_SCX_LAYOUT_H
#define SCHEDIO_CLI_SCX_SCX_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/btf.h>
#include <linux/types.h>

#include "scx_shared.h"

/* Where the fields of a `uei` record lie in its data section. */
struct scx_uei {
	size_t kind_off, code_off, reason_off, msg_off;
	size_t reason_len, msg_len;
	bool has_code; /* exit_code (newer user_exit_info.h) */
};

/* Finds the variable uei in DATASEC sec_id of btf (a section of size bytes):
 * 1 with its layout in *u when it is a struct with int kind, char reason[]
 * and char msg[] (and perhaps s64 exit_code), 0 when the section has no uei,
 * -EINVAL when it has one of another layout (then it is never read). */
int scx_layout_uei(const struct btf *btf, uint32_t sec_id, size_t size, struct scx_uei *u);

/* Copies the record from the section's image (data, size bytes) into out,
 * strings cut to out's and terminated; 1 once ops.exit recorded it (kind is
 * set last, so a non-zero kind means the strings are complete), else 0. */
int scx_layout_uei_read(const struct scx_uei *u, const void *data, size_t size, struct schedio_scx_exit *out);

/* Whether an `exit_info` map's value type (a BTF id in btf) is schedio's
 * struct schedio_scx_exit, of the size the loader reads. */
bool scx_layout_schedio_exit(const struct btf *btf, uint32_t exit_value_type_id);
/* Whether a `stats` map's key and value types (BTF ids in btf) and the
 * `exit_info` map's value type are schedio's own (u32 -> u64 counters beside
 * struct schedio_scx_exit, as scx_common.bpf.h declares them): only then are
 * they read with schedio's labels. */
bool scx_layout_counters(const struct btf *btf, uint32_t key_type_id, uint32_t value_type_id,
			 uint32_t exit_value_type_id);

#endif /* SCHEDIO_CLI_SCX_SCX_LAYOUT_H */
