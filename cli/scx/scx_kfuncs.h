/* scx_kfuncs.h - the kfuncs a scheduler object calls that the running
 * kernel does not have, so that when a load fails the loader can say why in
 * one line instead of leaving the user with libbpf's relocation log.
 */
#ifndef SCHEDIO_CLI_SCX_SCX_KFUNCS_H
#define SCHEDIO_CLI_SCX_SCX_KFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>

/* The BTF of a BPF object as its compiler wrote it, from ELF bytes (elf,
 * len) or, with elf NULL, the file path; NULL when it has none. (libbpf's
 * bpf_object__btf() is no use here: opening an object turns its extern
 * functions into global ones.) Free with btf__free. */
struct btf *scx_object_btf(const void *elf, size_t len, const char *path);
/* The names of the object's weak undefined symbols (kfuncs declared __weak),
 * from ELF bytes or, with elf NULL, the file path: NUL-terminated names
 * ending with an empty one; NULL when there are none. Free with free(). */
char *scx_object_weak_syms(const void *elf, size_t len, const char *path);
/* Whether the kfunc is optional: weak (named in weak, as from
 * scx_object_weak_syms; may be NULL) or with a flavour suffix ("___compat"). */
bool scx_kfunc_optional(const char *name, const char *weak);
/* Copies into name the first required (not optional) function obj declares
 * extern (a kfunc) that kern has no function of; 1 if there is one, 0 if
 * kern has them all. */
int scx_kfunc_missing(const struct btf *obj, const struct btf *kern, const char *weak, char *name, size_t cap);
/* The name an older kernel gave the kfunc (6.12's scx_bpf_dispatch for
 * scx_bpf_dsq_insert, ...), or NULL when it was not renamed. */
const char *scx_kfunc_old_name(const char *name);

#endif /* SCHEDIO_CLI_SCX_SCX_KFUNCS_H */
