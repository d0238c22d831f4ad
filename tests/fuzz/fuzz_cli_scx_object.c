/* fuzz_cli_scx_object.c - libFuzzer target for what `schedio scx run
 * --object FILE` reads before libbpf does: the object's own BTF out of any
 * bytes (not ELF, sections cut short, a .BTF that lies about its sizes, or a
 * raw .BTF on its own), its weak symbols out of the ELF symbol table, and its
 * extern functions checked against a kernel with one kfunc. Either no BTF, or
 * a BTF whose missing required kfunc, if any, is named. Each of its data
 * sections then gets what the loader writes into rodata (the kernel's scx
 * enum values, CPU counts, a --set) over an image of the size the BTF claims,
 * or of a smaller one: nothing is written outside it; a `uei` exit record
 * found in one is read with its strings terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cli/scx/scx_kfuncs.h"
#include "cli/scx/scx_layout.h"
#include "cli/scx/scx_rodata.h"

#define IMAGE_MAX 4096

/* The loader's rodata writes on every DATASEC of obj, and its reading of a
 * `uei` exit record out of an image holding the input's own bytes. */
static void fill_sections(const struct btf *obj, const struct btf *kern, const uint8_t *data, size_t len)
{
	struct schedio_scx_exit ex;
	struct scx_uei u;
	static unsigned char image[IMAGE_MAX + 64];
	char err[256];
	unsigned n = btf__type_cnt(obj);

	for (unsigned id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(obj, id);
		size_t size = t && btf_is_datasec(t) ? t->size : 0;

		if (!size)
			continue;
		if (size > IMAGE_MAX)
			size = IMAGE_MAX; /* a smaller image than claimed: refused, never overrun */
		memset(image + size, 0xa5, 64);
		scx_rodata_fill_enums(obj, id, image, size, kern);
		scx_rodata_fill_cpus(obj, id, image, size, 4);
		scx_rodata_set(obj, id, image, size, "nr_cpus", "-1", err, sizeof(err));
		scx_rodata_set(obj, id, image, size, "__SCX_DSQ_LOCAL", "7", err, sizeof(err));
		scx_rodata_unset_pid(obj, id, image, size, err, sizeof(err));
		{
			size_t elem;

			scx_rodata_resizable_array(obj, id, &elem);
		}
		for (size_t i = size; i < size + 64; i++)
			if (image[i] != 0xa5)
				abort(); /* written past the section's image */
		memcpy(image, data, len < size ? len : size);
		if (scx_layout_uei(obj, id, size, &u) == 1 && scx_layout_uei_read(&u, image, size, &ex) == 1 &&
		    (strlen(ex.reason) >= sizeof(ex.reason) || strlen(ex.msg) >= sizeof(ex.msg) || !ex.kind))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct btf *kern;
	struct btf *obj;
	char name[128] = "", *weak;

	if (!kern) {
		kern = btf__new_empty();
		if (!kern)
			return 0;
		btf__add_func(kern, "scx_bpf_create_dsq", BTF_FUNC_GLOBAL,
			      btf__add_func_proto(kern, btf__add_int(kern, "int", 4, BTF_INT_SIGNED)));
		btf__add_enum64(kern, "scx_dsq_id_flags", 8, true);
		btf__add_enum64_value(kern, "SCX_DSQ_LOCAL", 0x8000000000000002ULL);
		btf__add_enum(kern, "scx_public_consts", 4);
		btf__add_enum_value(kern, "SCX_SLICE_DFL", 20000000);
	}
	weak = scx_object_weak_syms(data, size, NULL);
	for (const char *w = weak; w && *w; w += strlen(w) + 1)
		if ((size_t)(w - weak) + strlen(w) >= size)
			abort(); /* more names than the input could hold: a read past its string table */
	obj = scx_object_btf(data, size, NULL);
	if (!obj) {
		/* not an object: perhaps a raw .BTF, which reaches the section walks faster */
		obj = btf__new(data, size);
		if (libbpf_get_error(obj))
			obj = NULL;
	}
	if (!obj) {
		free(weak);
		return 0;
	}
	if (scx_kfunc_missing(obj, kern, weak, name, sizeof(name)) && (!name[0] || scx_kfunc_optional(name, weak)))
		abort();
	free(weak);
	fill_sections(obj, kern, data, size);
	btf__free(obj);
	return 0;
}
