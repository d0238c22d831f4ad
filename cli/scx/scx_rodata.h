/* scx_rodata.h - the read-only globals a scheduler's loader fills before
 * load: the kernel's scx enum values, the CPU count, and --set NAME=VALUE.
 * Each works on one data section as the object's BTF describes it (a DATASEC
 * and its image), so it is tested and fuzzed without a kernel. */
#ifndef SCHEDIO_CLI_SCX_SCX_RODATA_H
#define SCHEDIO_CLI_SCX_SCX_RODATA_H

#include <stddef.h>
#include <stdint.h>

#include <bpf/btf.h>

/* The value of the enumerator called name in any enum or enum64 of kern, as
 * 64 bits (sign-extended when the enum is signed); 1 if found, 0 if not. */
int scx_rodata_kernel_enum(const struct btf *kern, const char *name, uint64_t *val);

/* Writes into data (size bytes, the image of DATASEC sec_id of btf) each
 * integer variable __SCX_NAME the value of the kernel's enumerator SCX_NAME
 * when kern has it (as the community's SCX_ENUM_INIT does); the rest keep
 * theirs. Returns how many were filled, or -EINVAL for a malformed section. */
int scx_rodata_fill_enums(const struct btf *btf, uint32_t sec_id, void *data, size_t size, const struct btf *kern);

/* Writes nr_cpus into each integer variable with a conventional CPU-count
 * name (nr_cpu_ids, nr_cpus, nr_possible_cpus, ...) that can hold it;
 * returns how many, or -EINVAL for a malformed section. */
int scx_rodata_fill_cpus(const struct btf *btf, uint32_t sec_id, void *data, size_t size, uint32_t nr_cpus);

/* Finds an integer variable named pid or NAME_pid still 0 (the PID of a
 * user-space task its own loader would give); 1 with its name in name, 0 if
 * none, -EINVAL for a malformed section. */
int scx_rodata_unset_pid(const struct btf *btf, uint32_t sec_id, const void *data, size_t size, char *name,
			 size_t namelen);

/* Whether DATASEC sec_id holds only a one-element array filling it (the
 * community's RESIZABLE_ARRAY, which its loader resizes to one element per
 * CPU); 1 with the element's size in *elem_size, else 0. */
int scx_rodata_resizable_array(const struct btf *btf, uint32_t sec_id, size_t *elem_size);

/* Sets variable name of the section to value (an integer of the variable's
 * size and signedness, or true/false for a bool); 0, -ENOENT if the section
 * has no such variable, or -EINVAL/-ERANGE with why in err. */
int scx_rodata_set(const struct btf *btf, uint32_t sec_id, void *data, size_t size, const char *name, const char *value,
		   char *err, size_t errlen);

#endif /* SCHEDIO_CLI_SCX_SCX_RODATA_H */
