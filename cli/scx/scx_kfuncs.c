/* scx_kfuncs.c - kfuncs a scheduler calls that the kernel lacks.
 *
 * clang records each kfunc a BPF object declares __ksym as a BTF FUNC with
 * extern linkage; the kernel lists its kfuncs as FUNCs in its own BTF. Any
 * extern FUNC without a kernel FUNC of the same name would fail the load.
 * Linux 6.13 renamed the dispatch kfuncs schedio's schedulers use; on 6.12
 * that is the usual reason, so the old names are known here to say so.
 *
 * Not every extern is required: a kfunc declared __weak (ELF STB_WEAK; BTF
 * has no weak linkage for functions) is set to 0 by libbpf when the kernel
 * lacks it, and a name with a flavour suffix (scx_bpf_dispatch___compat) is
 * looked up by the name before "___" and is how the community's compat
 * headers reach kfuncs older or newer kernels may not have. Both are
 * optional and never named as the reason a load failed.
 */
#include "cli/scx/scx_kfuncs.h"

#include <bpf/libbpf.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The .BTF section of the ELF image in memory, or NULL. */
static struct btf *btf_of_elf_mem(const void *elf_bytes, size_t len)
{
	struct btf *btf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_memory((char *)elf_bytes, len);
	if (!elf)
		return NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".BTF"))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			btf = btf__new(data->d_buf, data->d_size);
		break;
	}
out:
	elf_end(elf);
	return btf;
}

struct btf *scx_object_btf(const void *elf, size_t len, const char *path)
{
	struct btf *btf = elf ? btf_of_elf_mem(elf, len) : btf__parse_elf(path, NULL);

	return btf && !libbpf_get_error(btf) ? btf : NULL;
}

/* Appends the names of elf's weak undefined symbols to a buffer of
 * NUL-terminated names that ends with an empty one; NULL if none or on error. */
static char *weak_undefined(Elf *elf)
{
	char *names = NULL, *grown;
	size_t used = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			size_t len;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_BIND(sym.st_info) != STB_WEAK ||
			    sym.st_shndx != SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			len = strlen(name) + 1;
			grown = realloc(names, used + len + 1);
			if (!grown) {
				free(names);
				return NULL;
			}
			names = grown;
			memcpy(names + used, name, len);
			used += len;
			names[used] = '\0';
		}
	}
	return names;
}

char *scx_object_weak_syms(const void *elf_bytes, size_t len, const char *path)
{
	char *names = NULL;
	int fd = -1;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	if (elf_bytes) {
		elf = elf_memory((char *)elf_bytes, len);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	}
	if (elf && elf_kind(elf) == ELF_K_ELF)
		names = weak_undefined(elf);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return names;
}

bool scx_kfunc_optional(const char *name, const char *weak)
{
	const char *sep = strstr(name, "___");

	/* a flavour: "name___suffix" with something on both sides */
	if (sep && sep > name && sep[3] && sep[3] != '_')
		return true;
	for (const char *w = weak; w && *w; w += strlen(w) + 1)
		if (strcmp(w, name) == 0)
			return true;
	return false;
}

/* A FUNC's linkage sits in its vlen bits (libbpf 1.1 has no btf_func_linkage()). */
static unsigned linkage(const struct btf_type *t)
{
	return btf_vlen(t);
}

int scx_kfunc_missing(const struct btf *obj, const struct btf *kern, const char *weak, char *name, size_t cap)
{
	unsigned n = btf__type_cnt(obj);

	for (unsigned id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(obj, id);
		const char *fn;

		if (!btf_is_func(t) || linkage(t) != BTF_FUNC_EXTERN)
			continue;
		fn = btf__name_by_offset(obj, t->name_off);
		if (!fn || !*fn || scx_kfunc_optional(fn, weak) || btf__find_by_name_kind(kern, fn, BTF_KIND_FUNC) > 0)
			continue;
		snprintf(name, cap, "%s", fn);
		return 1;
	}
	return 0;
}

const char *scx_kfunc_old_name(const char *name)
{
	static const char *const renamed[][2] = {
		/* Linux 6.13: "sched_ext: Rename scx_bpf_dispatch[_vtime]() ..." and "... consume()" */
		{ "scx_bpf_dsq_insert", "scx_bpf_dispatch" },
		{ "scx_bpf_dsq_insert_vtime", "scx_bpf_dispatch_vtime" },
		{ "scx_bpf_dsq_move_to_local", "scx_bpf_consume" },
	};

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(name, renamed[i][0]))
			return renamed[i][1];
	return NULL;
}
