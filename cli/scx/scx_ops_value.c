/* scx_ops_value.c - fills a sched_ext struct_ops map value ourselves.
 *
 * Written for Debian 12's libbpf 1.1, which could not change the ops' data
 * after open and registered without a BPF link (a loader that died left the
 * scheduler running); the CLI now links libbpf >= 1.4, whose own attach could
 * do much of this, but this path is proven on the VM test bed and keeps the
 * value in our hands. We let libbpf load the programs and
 * create the map (with BPF_F_LINK), then write the value from the running
 * kernel's BTF: each callback's slot gets its program's fd (libbpf has set the
 * program's expected_attach_type to the kernel's member index at load), the
 * object's own data members (flags, timeout_ms, ...) are copied by name, as
 * the community's loaders let libbpf do, and then the name, a --timeout-ms
 * and SCX_OPS_SWITCH_PARTIAL are put over them (the flag's value is read from
 * the kernel's enum scx_ops_flags, not assumed). The caller then creates the link, whose fd holds
 * the scheduler: closing it, or dying, unregisters it.
 */
#include "cli/scx/scx_ops_value.h"
#include "cli/scx/scx_btf.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Byte offset and type of the member called name, or -1. */
static long member_offset(const struct btf *btf, const struct btf_type *t, const char *name, __u32 *type_id)
{
	const struct btf_member *m = btf_members(t);

	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);

		if (mname && strcmp(mname, name) == 0) {
			if (type_id)
				*type_id = m->type;
			return btf_member_bit_offset(t, i) / 8;
		}
	}
	return -1;
}

/* Value of enumerator name in the kernel's enum type (a 32- or, as 7.x
 * encodes the u64 flag enums, a 64-bit enum), or -1; flags are positive. */
static long long enum_value(const struct btf *btf, const char *type, const char *name)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;

	if (id <= 0)
		id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM64);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (unsigned i = 0; t && i < btf_vlen(t); i++) {
		if (btf_is_enum(t) && strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), name) == 0)
			return btf_enum(t)[i].val;
		if (btf_is_enum64(t) && strcmp(btf__name_by_offset(btf, btf_enum64(t)[i].name_off), name) == 0)
			return (long long)btf_enum64_value(&btf_enum64(t)[i]);
	}
	return -1;
}

/* Whether len bytes at p are all zero. */
static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

int scx_ops_value_copy_data(const struct btf *obj_btf, __u32 obj_type_id, const void *obj_data, size_t obj_size,
			    const struct btf *kbtf, const struct btf_type *kops, void *kdata, char *err, size_t errlen)
{
	const struct btf_type *t = btf__type_by_id(obj_btf, obj_type_id);
	const struct btf_member *m;

	if (!t || !btf_is_struct(t)) {
		snprintf(err, errlen, "the object's struct_ops type is not a struct");
		return -EINVAL;
	}
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(obj_btf, m->name_off);
		const struct btf_type *mt = scx_btf_resolved(obj_btf, m->type), *kt;
		long long msize = btf__resolve_size(obj_btf, m->type), ksize;
		size_t moff = btf_member_bit_offset(t, i) / 8;
		__u32 ktype = 0;
		long koff;

		if (!mname || !mt || msize < 0 || moff + (size_t)msize > obj_size) {
			snprintf(err, errlen, "the object's struct_ops member %u is malformed", i);
			return -EINVAL;
		}
		if (btf_is_ptr(mt))
			continue; /* a callback: its program's fd goes there */
		if (all_zero((const char *)obj_data + moff, msize))
			continue; /* unset: the kernel's zero, whatever the layout */
		koff = member_offset(kbtf, kops, mname, &ktype);
		kt = koff >= 0 ? scx_btf_resolved(kbtf, ktype) : NULL;
		ksize = koff >= 0 ? btf__resolve_size(kbtf, ktype) : -1;
		if (!kt) {
			snprintf(err, errlen, "the scheduler sets sched_ext_ops.%.64s, which this kernel lacks", mname);
			return -ENOENT;
		}
		if (btf_member_bitfield_size(t, i) || ksize != msize || btf_kind(kt) != btf_kind(mt)) {
			snprintf(err, errlen, "sched_ext_ops.%.64s differs between the object and this kernel", mname);
			return -EINVAL;
		}
		memcpy((char *)kdata + koff, (const char *)obj_data + moff, msize);
	}
	return 0;
}

const void *scx_ops_value_obj_member(struct bpf_object *obj, struct bpf_map *map, const char *member, size_t *size)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *t = btf ? btf__type_by_id(btf, bpf_map__btf_value_type_id(map)) : NULL;
	const char *data;
	size_t dsize = 0;
	long long msize;
	__u32 mtype = 0;
	long off;

	data = bpf_map__initial_value(map, &dsize);
	off = t && btf_is_struct(t) && data ? member_offset(btf, t, member, &mtype) : -1;
	msize = off >= 0 ? btf__resolve_size(btf, mtype) : -1;
	if (msize < 0 || (size_t)off + (size_t)msize > dsize)
		return NULL;
	*size = msize;
	return data + off;
}

void *scx_ops_value_build(struct bpf_object *obj, struct bpf_map *map, const char *name, uint32_t timeout_ms,
			  bool partial, char *err, size_t errlen)
{
	struct btf *kbtf = btf__load_vmlinux_btf();
	const struct btf_type *vt, *ops, *nt;
	struct bpf_program *prog;
	long data_off, name_off, timeout_off, flags_off;
	long long partial_flag = 0;
	__u32 ops_id = 0, name_id = 0;
	size_t size = bpf_map__value_size(map), name_cap, obj_size = 0;
	const void *obj_data;
	char *value = NULL;
	int id;

	if (!kbtf) {
		snprintf(err, errlen, "cannot read the kernel's BTF: %s", strerror(errno));
		goto fail;
	}
	id = btf__find_by_name_kind(kbtf, "bpf_struct_ops_sched_ext_ops", BTF_KIND_STRUCT);
	vt = id > 0 ? btf__type_by_id(kbtf, id) : NULL;
	data_off = vt ? member_offset(kbtf, vt, "data", &ops_id) : -1;
	ops = data_off >= 0 ? btf__type_by_id(kbtf, ops_id) : NULL;
	if (!ops || !btf_is_struct(ops) || vt->size != size) {
		snprintf(err, errlen, "the kernel's BTF has no usable bpf_struct_ops_sched_ext_ops");
		goto fail;
	}
	name_off = member_offset(kbtf, ops, "name", &name_id);
	timeout_off = member_offset(kbtf, ops, "timeout_ms", NULL);
	flags_off = member_offset(kbtf, ops, "flags", NULL);
	if (name_off < 0 || timeout_off < 0 || flags_off < 0) {
		snprintf(err, errlen, "the kernel's sched_ext_ops has no name, timeout_ms or flags");
		goto fail;
	}
	if (partial) {
		partial_flag = enum_value(kbtf, "scx_ops_flags", "SCX_OPS_SWITCH_PARTIAL");
		if (partial_flag <= 0) {
			snprintf(err, errlen, "this kernel's sched_ext has no SCX_OPS_SWITCH_PARTIAL");
			goto fail;
		}
	}
	value = calloc(1, size);
	if (!value) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* The object's own data (flags, timeout_ms, dispatch_max_batch, ...),
	 * member by member into the kernel's layout. */
	obj_data = bpf_map__initial_value(map, &obj_size);
	if (obj_data && bpf_object__btf(obj) &&
	    scx_ops_value_copy_data(bpf_object__btf(obj), bpf_map__btf_value_type_id(map), obj_data, obj_size, kbtf,
				    ops, value + data_off, err, errlen))
		goto fail;
	bpf_object__for_each_program(prog, obj)
	{
		__u32 idx = bpf_program__expected_attach_type(prog);

		if (bpf_program__type(prog) != BPF_PROG_TYPE_STRUCT_OPS || !bpf_program__autoload(prog))
			continue;
		if (idx >= btf_vlen(ops)) {
			snprintf(err, errlen, "program %s has no slot in sched_ext_ops", bpf_program__name(prog));
			goto fail;
		}
		*(__u64 *)(value + data_off + btf_member_bit_offset(ops, idx) / 8) = (__u64)bpf_program__fd(prog);
	}
	/* name is char[128] in every sched_ext so far; stay inside it whatever it is. */
	nt = btf__type_by_id(kbtf, name_id);
	name_cap = nt && btf_is_array(nt) ? btf_array(nt)->nelems : 0;
	if (name_cap == 0 || strlen(name) >= name_cap) {
		snprintf(err, errlen, "scheduler name '%s' does not fit sched_ext_ops.name", name);
		goto fail;
	}
	memset(value + data_off + name_off, 0, name_cap);
	memcpy(value + data_off + name_off, name, strlen(name) + 1);
	if (timeout_ms) /* else the object's own, or the kernel's default */
		memcpy(value + data_off + timeout_off, &timeout_ms, sizeof(timeout_ms));
	/* flags is a u64 in every sched_ext so far: the object's, plus ours */
	*(__u64 *)(value + data_off + flags_off) |= (__u64)partial_flag;
	btf__free(kbtf);
	return value;
fail:
	free(value);
	btf__free(kbtf);
	return NULL;
}

int scx_ops_value_is_member(struct bpf_object *obj, struct bpf_program *prog, const char *member)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *t, *mt;
	struct bpf_map *map;
	const char *data;
	__u32 mtype = 0;
	size_t size = 0;
	long off;

	if (!btf || bpf_program__type(prog) != BPF_PROG_TYPE_STRUCT_OPS)
		return 0;
	/* libbpf (>= 1.3) shows a struct_ops map's data as its "shadow" type: the
	 * object's struct, each callback slot holding its struct bpf_program. */
	bpf_object__for_each_map(map, obj)
	{
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		t = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
		data = bpf_map__initial_value(map, &size);
		off = t && btf_is_struct(t) && data ? member_offset(btf, t, member, &mtype) : -1;
		mt = off >= 0 ? scx_btf_resolved(btf, mtype) : NULL;
		if (!mt || !btf_is_ptr(mt) || (size_t)off + sizeof(prog) > size)
			continue;
		if (*(struct bpf_program *const *)(data + off) == prog)
			return 1;
	}
	return 0;
}
