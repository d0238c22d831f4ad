/* scx_layout.c - records in a scheduler object the loader reads only when it
 * understands their layout.
 *
 * The community's schedulers keep the kernel's exit info in a global
 * `struct user_exit_info uei` in .data (UEI_DEFINE), copied in ops.exit
 * (UEI_RECORD: reason and msg first, kind last), and their loaders print it
 * when the kernel ejects the scheduler. Its layout changed over time
 * (exit_code came later), so it is found by member names in the object's
 * BTF, never by assumed offsets; a uei of any other shape is left unread.
 * Counters are read with schedio's labels only from a `stats` map of u32 keys
 * and u64 values beside an `exit_info` map of struct schedio_scx_exit, the
 * pair scx_common.bpf.h gives every scheduler written against it: a foreign
 * `stats` map (scx_simple's has two counters of its own) means something else.
 */
#include "cli/scx/scx_layout.h"
#include "cli/scx/scx_btf.h"

#include <errno.h>
#include <string.h>

/* Member name of struct t: its byte offset and type, or -1 (also for a bitfield). */
static long member(const struct btf *btf, const struct btf_type *t, const char *name, const struct btf_type **type)
{
	const struct btf_member *m = btf_members(t);

	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i);

		if (!mname || strcmp(mname, name) != 0)
			continue;
		if (btf_member_bitfield_size(t, i) || bits % 8)
			return -1;
		*type = scx_btf_resolved(btf, m->type);
		return *type ? (long)(bits / 8) : -1;
	}
	return -1;
}

/* Whether t is an integer of size bytes. */
static bool is_int(const struct btf_type *t, unsigned size)
{
	return t && btf_is_int(t) && t->size == size && btf_int_offset(t) == 0 && btf_int_bits(t) == size * 8;
}

/* The length of a char array member, or 0 when t is none. */
static size_t char_array(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_array *a = t && btf_is_array(t) ? btf_array(t) : NULL;

	return a && is_int(scx_btf_resolved(btf, a->type), 1) ? a->nelems : 0;
}

int scx_layout_uei(const struct btf *btf, uint32_t sec_id, size_t size, struct scx_uei *u)
{
	const struct btf_type *sec = btf && sec_id ? btf__type_by_id(btf, sec_id) : NULL;
	const struct btf_var_secinfo *vi;

	memset(u, 0, sizeof(*u));
	if (!sec || !btf_is_datasec(sec))
		return 0;
	vi = btf_var_secinfos(sec);
	for (unsigned i = 0; i < btf_vlen(sec); i++, vi++) {
		const struct btf_type *v = btf__type_by_id(btf, vi->type), *t, *kind, *code, *reason, *msg;
		const char *name = v && btf_is_var(v) ? btf__name_by_offset(btf, v->name_off) : NULL;
		long ko, co, ro, mo;

		if (!name || strcmp(name, "uei") != 0)
			continue;
		t = scx_btf_resolved(btf, v->type);
		if (!t || !btf_is_struct(t) || t->size != vi->size || vi->offset > size || vi->size > size - vi->offset)
			return -EINVAL;
		ko = member(btf, t, "kind", &kind);
		ro = member(btf, t, "reason", &reason);
		mo = member(btf, t, "msg", &msg);
		co = member(btf, t, "exit_code", &code);
		if (ko < 0 || !is_int(kind, 4) || ro < 0 || mo < 0 || (co >= 0 && !is_int(code, 8)))
			return -EINVAL;
		u->reason_len = char_array(btf, reason);
		u->msg_len = char_array(btf, msg);
		if (!u->reason_len || !u->msg_len || (size_t)ko + 4 > t->size || (size_t)ro + u->reason_len > t->size ||
		    (size_t)mo + u->msg_len > t->size || (co >= 0 && (size_t)co + 8 > t->size))
			return -EINVAL;
		u->kind_off = vi->offset + (size_t)ko;
		u->reason_off = vi->offset + (size_t)ro;
		u->msg_off = vi->offset + (size_t)mo;
		u->has_code = co >= 0;
		u->code_off = u->has_code ? vi->offset + (size_t)co : 0;
		return 1;
	}
	return 0;
}

/* Copies a string of at most len bytes at src into dst (cap bytes), terminated. */
static void copy_str(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = strnlen(src, len);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int scx_layout_uei_read(const struct scx_uei *u, const void *data, size_t size, struct schedio_scx_exit *out)
{
	const char *p = data;
	int32_t kind;

	memset(out, 0, sizeof(*out));
	/* the image must be the one the layout was found in */
	if (u->kind_off + 4 > size || u->reason_off + u->reason_len > size || u->msg_off + u->msg_len > size ||
	    (u->has_code && u->code_off + 8 > size))
		return 0;
	memcpy(&kind, p + u->kind_off, sizeof(kind));
	if (!kind)
		return 0;
	out->kind = kind;
	if (u->has_code)
		memcpy(&out->exit_code, p + u->code_off, sizeof(out->exit_code));
	copy_str(out->reason, sizeof(out->reason), p + u->reason_off, u->reason_len);
	copy_str(out->msg, sizeof(out->msg), p + u->msg_off, u->msg_len);
	out->recorded = 1;
	return 1;
}

bool scx_layout_schedio_exit(const struct btf *btf, uint32_t exit_value_type_id)
{
	const struct btf_type *ex = btf && exit_value_type_id ? scx_btf_resolved(btf, exit_value_type_id) : NULL;
	const char *name = ex ? btf__name_by_offset(btf, ex->name_off) : NULL;

	return ex && btf_is_struct(ex) && name && strcmp(name, "schedio_scx_exit") == 0 &&
	       ex->size == sizeof(struct schedio_scx_exit);
}

bool scx_layout_counters(const struct btf *btf, uint32_t key_type_id, uint32_t value_type_id,
			 uint32_t exit_value_type_id)
{
	const struct btf_type *key = btf && key_type_id ? scx_btf_resolved(btf, key_type_id) : NULL;
	const struct btf_type *value = btf && value_type_id ? scx_btf_resolved(btf, value_type_id) : NULL;

	return is_int(key, 4) && is_int(value, 8) && scx_layout_schedio_exit(btf, exit_value_type_id);
}
