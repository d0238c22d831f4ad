/* scx_rodata.c - the read-only globals a scheduler's loader fills before load.
 *
 * The community's schedulers read the kernel's sched_ext constants (SCX_DSQ_LOCAL,
 * SCX_SLICE_DFL, SCX_ENQ_*, ...) from `const volatile u64 __SCX_NAME` globals,
 * because the values moved between kernels; their loaders copy each from the
 * running kernel's BTF before load, and left at 0 the kernel ejects the
 * scheduler at its first dispatch. They also size per-CPU work by a CPU count
 * in rodata (nr_cpu_ids, nr_cpus, ...). rodata is frozen at load, so all of it
 * happens between open and load, on the section's image libbpf keeps.
 *
 * Everything here reads the object's BTF, which is outside input: every
 * variable's place is checked against the section's size before a byte is
 * written, and only plain integers (int, enum, bool of 1, 2, 4 or 8 bytes)
 * are ever written.
 */
#include "cli/scx/scx_rodata.h"
#include "cli/scx/scx_btf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One variable of a section: where its bytes are and what integer it holds. */
struct slot {
	const char *name;
	size_t off, size;
	bool is_int; /* an integer, enum or bool the variable's size fully holds */
	bool is_signed, is_bool;
};

/* The DATASEC sec_id of btf, or NULL. */
static const struct btf_type *datasec(const struct btf *btf, uint32_t sec_id)
{
	const struct btf_type *sec = btf && sec_id ? btf__type_by_id(btf, sec_id) : NULL;

	return sec && btf_is_datasec(sec) ? sec : NULL;
}

/* Variable i of sec, placed inside size bytes; 0, or -EINVAL when malformed. */
static int slot_of(const struct btf *btf, const struct btf_type *sec, unsigned i, size_t size, struct slot *s)
{
	const struct btf_var_secinfo *vi = btf_var_secinfos(sec) + i;
	const struct btf_type *v = btf__type_by_id(btf, vi->type), *t;

	memset(s, 0, sizeof(*s));
	if (!v || !btf_is_var(v))
		return -EINVAL;
	s->name = btf__name_by_offset(btf, v->name_off);
	if (!s->name || vi->offset > size || vi->size > size - vi->offset)
		return -EINVAL;
	s->off = vi->offset;
	s->size = vi->size;
	t = scx_btf_resolved(btf, v->type);
	if (!t)
		return -EINVAL;
	if (btf_is_int(t) && btf_int_offset(t) == 0 && btf_int_bits(t) == t->size * 8) {
		s->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		s->is_bool = btf_int_encoding(t) & BTF_INT_BOOL;
		s->is_int = true;
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		s->is_signed = btf_kflag(t);
		s->is_int = true;
	}
	if (t->size != vi->size || (vi->size != 1 && vi->size != 2 && vi->size != 4 && vi->size != 8))
		s->is_int = false;
	return 0;
}

/* Whether v fits the slot's integer type, v read as negative when v_signed
 * and its top bit is set. */
static bool fits(const struct slot *s, uint64_t v, bool v_signed)
{
	unsigned bits = (unsigned)s->size * 8;

	if (s->is_bool)
		return v <= 1;
	if (v_signed && (int64_t)v < 0) {
		if (!s->is_signed)
			return false;
		return bits == 64 || (int64_t)v >= -(INT64_C(1) << (bits - 1));
	}
	if (bits == 64)
		return s->is_signed ? v <= (uint64_t)INT64_MAX : true;
	return v <= (s->is_signed ? (UINT64_C(1) << (bits - 1)) - 1 : (UINT64_C(1) << bits) - 1);
}

/* Stores v in the slot's bytes, in the host's order (BPF runs on this host). */
static void put(void *data, const struct slot *s, uint64_t v)
{
	char *p = (char *)data + s->off;
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (s->size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
	}
}

int scx_rodata_kernel_enum(const struct btf *kern, const char *name, uint64_t *val)
{
	unsigned n = btf__type_cnt(kern);

	for (unsigned id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(kern, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (unsigned i = 0; i < btf_vlen(t); i++, e++) {
				const char *en = btf__name_by_offset(kern, e->name_off);

				if (en && strcmp(en, name) == 0) {
					*val = btf_kflag(t) ? (uint64_t)(int64_t)e->val : (uint64_t)(uint32_t)e->val;
					return 1;
				}
			}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (unsigned i = 0; i < btf_vlen(t); i++, e++) {
				const char *en = btf__name_by_offset(kern, e->name_off);

				if (en && strcmp(en, name) == 0) {
					*val = btf_enum64_value(e);
					return 1;
				}
			}
		}
	}
	return 0;
}

int scx_rodata_fill_enums(const struct btf *btf, uint32_t sec_id, void *data, size_t size, const struct btf *kern)
{
	const struct btf_type *sec = datasec(btf, sec_id);
	int filled = 0;

	if (!sec || !data)
		return -EINVAL;
	for (unsigned i = 0; i < btf_vlen(sec); i++) {
		struct slot s;
		uint64_t v;

		if (slot_of(btf, sec, i, size, &s))
			return -EINVAL;
		/* __SCX_DSQ_LOCAL holds SCX_DSQ_LOCAL: the name without its "__" */
		if (!s.is_int || s.is_bool || strncmp(s.name, "__SCX_", 6) != 0)
			continue;
		if (!scx_rodata_kernel_enum(kern, s.name + 2, &v) || !fits(&s, v, s.is_signed))
			continue; /* the kernel lacks it: the object's own value stands */
		put(data, &s, v);
		filled++;
	}
	return filled;
}

int scx_rodata_fill_cpus(const struct btf *btf, uint32_t sec_id, void *data, size_t size, uint32_t nr_cpus)
{
	static const char *const names[] = { "nr_cpu_ids",       "nr_cpus",           "nr_possible_cpus",
					     "nr_cpus_possible", "num_possible_cpus", "num_cpus" };
	const struct btf_type *sec = datasec(btf, sec_id);
	int filled = 0;

	if (!sec || !data)
		return -EINVAL;
	for (unsigned i = 0; i < btf_vlen(sec); i++) {
		struct slot s;

		if (slot_of(btf, sec, i, size, &s))
			return -EINVAL;
		if (!s.is_int || s.is_bool || !fits(&s, nr_cpus, false))
			continue;
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			if (strcmp(s.name, names[k]) == 0) {
				put(data, &s, nr_cpus);
				filled++;
			}
		}
	}
	return filled;
}

int scx_rodata_unset_pid(const struct btf *btf, uint32_t sec_id, const void *data, size_t size, char *name,
			 size_t namelen)
{
	const struct btf_type *sec = datasec(btf, sec_id);

	if (!sec || !data)
		return -EINVAL;
	for (unsigned i = 0; i < btf_vlen(sec); i++) {
		const char *p;
		struct slot s;
		size_t n;
		bool zero = true;

		if (slot_of(btf, sec, i, size, &s))
			return -EINVAL;
		n = strlen(s.name);
		if (!s.is_int || s.is_bool ||
		    !(strcmp(s.name, "pid") == 0 || (n > 4 && !strcmp(s.name + n - 4, "_pid"))))
			continue;
		p = (const char *)data + s.off;
		for (size_t k = 0; k < s.size; k++)
			zero = zero && p[k] == 0;
		if (zero) {
			snprintf(name, namelen, "%s", s.name);
			return 1;
		}
	}
	return 0;
}

int scx_rodata_resizable_array(const struct btf *btf, uint32_t sec_id, size_t *elem_size)
{
	const struct btf_type *sec = datasec(btf, sec_id), *v, *t, *elem;
	const struct btf_var_secinfo *vi;
	const struct btf_array *arr;

	if (!sec || btf_vlen(sec) != 1)
		return 0;
	vi = btf_var_secinfos(sec);
	v = btf__type_by_id(btf, vi->type);
	t = v && btf_is_var(v) ? scx_btf_resolved(btf, v->type) : NULL;
	if (!t || !btf_is_array(t))
		return 0;
	arr = btf_array(t);
	elem = scx_btf_resolved(btf, arr->type);
	if (arr->nelems != 1 || !elem || vi->offset != 0 || vi->size != sec->size)
		return 0;
	*elem_size = (size_t)btf__resolve_size(btf, arr->type) > 0 ? (size_t)btf__resolve_size(btf, arr->type) : 0;
	return *elem_size > 0 && *elem_size == sec->size;
}

/* Parses text as the slot's integer into *v; 0, or -EINVAL/-ERANGE with why. */
static int parse_value(const struct slot *s, const char *text, uint64_t *v, char *err, size_t errlen)
{
	bool neg;
	char *end;

	if (s->is_bool) {
		if (!strcmp(text, "true") || !strcmp(text, "1"))
			*v = 1;
		else if (!strcmp(text, "false") || !strcmp(text, "0"))
			*v = 0;
		else {
			snprintf(err, errlen, "%.64s is a bool: give true or false, not '%.32s'", s->name, text);
			return -EINVAL;
		}
		return 0;
	}
	while (*text == ' ')
		text++;
	neg = *text == '-';
	errno = 0;
	*v = neg ? (uint64_t)strtoll(text, &end, 0) : strtoull(text, &end, 0);
	if (!*text || *end || end == text) {
		snprintf(err, errlen, "%.64s takes an integer, not '%.32s'", s->name, text);
		return -EINVAL;
	}
	if (errno == ERANGE || !fits(s, *v, neg)) {
		snprintf(err, errlen, "%.32s is out of range for %.64s (a %ssigned %zu-byte integer)", text, s->name,
			 s->is_signed ? "" : "un", s->size);
		return -ERANGE;
	}
	return 0;
}

int scx_rodata_set(const struct btf *btf, uint32_t sec_id, void *data, size_t size, const char *name, const char *value,
		   char *err, size_t errlen)
{
	const struct btf_type *sec = datasec(btf, sec_id);
	struct slot s;
	uint64_t v;
	int rc;

	if (!sec || !data) {
		snprintf(err, errlen, "the object's read-only data has no usable BTF");
		return -EINVAL;
	}
	for (unsigned i = 0; i < btf_vlen(sec); i++) {
		if (slot_of(btf, sec, i, size, &s)) {
			snprintf(err, errlen, "the object's read-only data is malformed (variable %u)", i);
			return -EINVAL;
		}
		if (strcmp(s.name, name) != 0)
			continue;
		if (!s.is_int) {
			snprintf(err, errlen, "%.64s is not an integer or bool, so --set cannot give it", name);
			return -EINVAL;
		}
		rc = parse_value(&s, value, &v, err, errlen);
		if (rc)
			return rc;
		put(data, &s, v);
		return 0;
	}
	snprintf(err, errlen, "the object has no read-only variable %.64s", name);
	return -ENOENT;
}
