/* scx_ops_value.h - the value written into a sched_ext struct_ops map. */
#ifndef SCHEDIO_CLI_SCX_SCX_OPS_VALUE_H
#define SCHEDIO_CLI_SCX_SCX_OPS_VALUE_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Builds the kernel's struct bpf_struct_ops_sched_ext_ops for the loaded
 * object's only struct_ops map: program fds, the name, the watchdog timeout
 * (0: the kernel's default) and, with partial, SCX_OPS_SWITCH_PARTIAL (only
 * SCHED_EXT tasks go to the scheduler). Returns a calloc'd buffer of
 * bpf_map__value_size(map) bytes, or NULL with a message in err. */
void *scx_ops_value_build(struct bpf_object *obj, struct bpf_map *map, const char *name, uint32_t timeout_ms,
			  bool partial, char *err, size_t errlen);

/* Whether the struct_ops program prog implements the callback named member
 * (e.g. "init"); usable between open and load. */
int scx_ops_value_is_member(struct bpf_object *obj, struct bpf_program *prog, const char *member);

#endif /* SCHEDIO_CLI_SCX_SCX_OPS_VALUE_H */
