/* scx_btf.c - see scx_btf.h. */
#include "cli/scx/scx_btf.h"

const struct btf_type *scx_btf_resolved(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (int depth = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); depth++) {
		if (depth == 32)
			return NULL;
		t = btf__type_by_id(btf, t->type);
	}
	return t;
}
