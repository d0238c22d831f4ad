/* scx_btf.h - small BTF walks the sched_ext loader's readers share (the ops
 * value, the rodata globals, the record layouts). */
#ifndef SCHEDIO_CLI_SCX_SCX_BTF_H
#define SCHEDIO_CLI_SCX_SCX_BTF_H

#include <bpf/btf.h>
#include <linux/types.h>

/* The type behind id's modifiers and typedefs; NULL for an unknown id or past
 * a depth no sane BTF has (a crafted one may loop). */
const struct btf_type *scx_btf_resolved(const struct btf *btf, __u32 id);

#endif /* SCHEDIO_CLI_SCX_SCX_BTF_H */
