/* fuzz_cli_scx_object.c - libFuzzer target for what `schedio scx run
 * --object FILE` reads before libbpf does: the object's own BTF out of any
 * bytes (not ELF, sections cut short, a .BTF that lies about its sizes) and
 * its extern functions checked against a kernel with one kfunc. Either no
 * BTF, or a BTF whose missing kfunc, if any, is named. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "cli/scx/scx_kfuncs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct btf *kern;
	struct btf *obj;
	char name[128] = "";

	if (!kern) {
		kern = btf__new_empty();
		if (!kern)
			return 0;
		btf__add_func(kern, "scx_bpf_create_dsq", BTF_FUNC_GLOBAL,
			      btf__add_func_proto(kern, btf__add_int(kern, "int", 4, BTF_INT_SIGNED)));
	}
	obj = scx_object_btf(data, size, NULL);
	if (!obj)
		return 0;
	if (scx_kfunc_missing(obj, kern, name, sizeof(name)) && !name[0])
		abort();
	btf__free(obj);
	return 0;
}
