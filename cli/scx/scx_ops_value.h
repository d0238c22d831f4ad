/* scx_ops_value.h - the value written into a sched_ext struct_ops map. */
#ifndef SCHEDIO_CLI_SCX_SCX_OPS_VALUE_H
#define SCHEDIO_CLI_SCX_SCX_OPS_VALUE_H

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Builds the kernel's struct bpf_struct_ops_sched_ext_ops for the loaded
 * object's only struct_ops map: program fds, the object's own data (flags,
 * timeout_ms, ...), then the name, the watchdog timeout (0: the object's, or
 * the kernel's default) and, with partial, SCX_OPS_SWITCH_PARTIAL (only
 * SCHED_EXT tasks go to the scheduler). Returns a calloc'd buffer of
 * bpf_map__value_size(map) bytes, or NULL with a message in err. */
void *scx_ops_value_build(struct bpf_object *obj, struct bpf_map *map, const char *name, uint32_t timeout_ms,
			  bool partial, char *err, size_t errlen);

/* Copies the non-zero data members of the object's ops (obj_data, of type
 * obj_type_id in obj_btf) by name into kdata, laid out as the kernel's kops;
 * callbacks are skipped. Returns 0, or -errno with a message in err when a
 * set member is missing from the kernel or differs in size or kind. */
int scx_ops_value_copy_data(const struct btf *obj_btf, __u32 obj_type_id, const void *obj_data, size_t obj_size,
			    const struct btf *kbtf, const struct btf_type *kops, void *kdata, char *err, size_t errlen);

/* The object's own value of ops member `member` (before or after load) and
 * its size, or NULL if the object's ops have no such member. */
const void *scx_ops_value_obj_member(struct bpf_object *obj, struct bpf_map *map, const char *member, size_t *size);

/* Whether the struct_ops program prog implements the callback named member
 * (e.g. "init"); usable between open and load. */
int scx_ops_value_is_member(struct bpf_object *obj, struct bpf_program *prog, const char *member);

#endif /* SCHEDIO_CLI_SCX_SCX_OPS_VALUE_H */
