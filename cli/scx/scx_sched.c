/* scx_sched.c - the life of one sched_ext scheduler object in the loader.
 *
 * The loader speaks to every scheduler only through the maps named in
 * scx_shared.h (stats, exit_info, and for scx_llc its configuration), so the
 * built-in schedulers (embedded ELF bytes) and any object file given with
 * --object go through the same code; those maps are read only when their
 * BTF layout is schedio's, and an object written against the community's
 * headers is read through its own `uei` exit record (scx_layout.c). Attaching goes through
 * scx_ops_value.c, which explains why libbpf's own attach is not used.
 */
#include "cli/scx/scx_sched.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/scx/scx_kfuncs.h"
#include "cli/scx/scx_ops_value.h"
#include "cli/scx/scx_rodata.h"

/* Older uapi headers (Debian 12's are 6.1) lack these; the values are ABI. */
#define SCX_BPF_F_LINK (1U << 13)
#define SCX_BPF_STRUCT_OPS_ATTACH 44

/* Records "WHAT: strerror(err)" as the reason; returns err as -errno. */
__attribute__((format(printf, 3, 4))) static int fail(struct scx_sched *s, int err, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (err > 0)
		err = -err;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	n = strlen(s->err);
	if (n < sizeof(s->err) - 1)
		snprintf(s->err + n, sizeof(s->err) - n, ": %s", strerror(-err));
	return err;
}

/* The object's own ops name and watchdog timeout: the kernel shows .name
 * (the variable's name if it has none) and .timeout_ms applies unless the
 * user gives --timeout-ms. */
static void name_of_ops(struct scx_sched *s)
{
	const char *name;
	const void *timeout;
	size_t n = 0, len;

	name = scx_ops_value_obj_member(s->obj, s->ops, "name", &n);
	len = name ? strnlen(name, n) : 0;
	if (len > 0 && len < n && len < sizeof(s->name))
		memcpy(s->name, name, len + 1);
	else
		snprintf(s->name, sizeof(s->name), "%s", bpf_map__name(s->ops));
	timeout = scx_ops_value_obj_member(s->obj, s->ops, "timeout_ms", &n);
	if (timeout && n == sizeof(s->timeout_ms))
		memcpy(&s->timeout_ms, timeout, n);
}

/* Which of the object's records the loader understands (scx_layout.h). */
static void find_records(struct scx_sched *s)
{
	const struct btf *btf = bpf_object__btf(s->obj);
	struct bpf_map *stats = bpf_object__find_map_by_name(s->obj, "stats");
	struct bpf_map *ex = bpf_object__find_map_by_name(s->obj, "exit_info");
	struct bpf_map *map;

	s->has_exit_info = ex && bpf_map__type(ex) == BPF_MAP_TYPE_ARRAY && bpf_map__key_size(ex) == 4 &&
			   bpf_map__value_size(ex) == sizeof(struct schedio_scx_exit) &&
			   scx_layout_schedio_exit(btf, bpf_map__btf_value_type_id(ex));
	s->has_counters = stats && s->has_exit_info && bpf_map__type(stats) == BPF_MAP_TYPE_PERCPU_ARRAY &&
			  bpf_map__key_size(stats) == 4 && bpf_map__value_size(stats) == 8 &&
			  bpf_map__max_entries(stats) == SCHEDIO_SCX_STAT_NR &&
			  scx_layout_counters(btf, bpf_map__btf_key_type_id(stats), bpf_map__btf_value_type_id(stats),
					      bpf_map__btf_value_type_id(ex));
	bpf_object__for_each_map(map, s->obj)
	{
		__u32 id = bpf_map__btf_value_type_id(map);
		const struct btf_type *t = btf && id ? btf__type_by_id(btf, id) : NULL;
		const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;

		if (!bpf_map__is_internal(map) || !t || !btf_is_datasec(t) || !name || strncmp(name, ".data", 5))
			continue;
		if (scx_layout_uei(btf, id, bpf_map__value_size(map), &s->uei) == 1) {
			s->uei_map = map;
			break;
		}
	}
}

int scx_sched_open(struct scx_sched *s, const void *elf, size_t len, const char *path)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	int err;

	memset(s, 0, sizeof(*s));
	s->link_fd = -1;
	s->obj = elf ? bpf_object__open_mem(elf, len, NULL) : bpf_object__open_file(path, NULL);
	err = libbpf_get_error(s->obj);
	if (err) {
		s->obj = NULL;
		return fail(s, err, "cannot open BPF object %s", elf ? "(built in)" : path);
	}
	s->obj_btf = scx_object_btf(elf, len, path);
	s->obj_weak = scx_object_weak_syms(elf, len, path);
	bpf_object__for_each_map(map, s->obj)
	{
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (s->ops)
			return fail(s, -EINVAL, "%s has more than one struct_ops map", bpf_object__name(s->obj));
		s->ops = map;
	}
	if (!s->ops)
		return fail(s, -EINVAL, "%s has no struct_ops map (SEC(\".struct_ops\") or SEC(\".struct_ops.link\"))",
			    bpf_object__name(s->obj));
	name_of_ops(s);
	find_records(s);
	err = bpf_map__set_map_flags(s->ops, bpf_map__map_flags(s->ops) | SCX_BPF_F_LINK);
	if (err)
		return fail(s, err, "cannot make %s a link map", s->name);
	/* init may call scx_bpf_create_dsq, which sleeps; objects that put it in
	 * SEC("struct_ops/...") (as the built-in ones do) need the mark. libbpf
	 * makes SEC("struct_ops.s/...") programs sleepable itself at load. */
	bpf_object__for_each_program(prog, s->obj)
	{
		if (scx_ops_value_is_member(s->obj, prog, "init"))
			bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_SLEEPABLE);
	}
	return 0;
}

/* Says in s->err which required kfunc of the object the running kernel
 * lacks; 0 if none (optional ones, weak or ___compat, never count: the
 * load's own error then stands). Only vmlinux is searched, so this explains a failed load rather than
 * refusing one (a kfunc may live in a module's BTF). */
static int explain_kfuncs(struct scx_sched *s)
{
	struct btf *kern = btf__load_vmlinux_btf();
	const struct btf *obj = s->obj_btf;
	const char *old;
	char fn[128];
	int missing;

	if (!kern || !obj) {
		btf__free(kern);
		return 0; /* nothing to compare: the load itself will say what is wrong */
	}
	missing = scx_kfunc_missing(obj, kern, s->obj_weak, fn, sizeof(fn));
	old = missing ? scx_kfunc_old_name(fn) : NULL;
	if (missing && old && btf__find_by_name_kind(kern, old, BTF_KIND_FUNC) > 0)
		snprintf(s->err, sizeof(s->err),
			 "this kernel's sched_ext predates Linux 6.13: it has %s, not %.64s, which %.64s calls", old,
			 fn, s->name);
	else if (missing)
		snprintf(s->err, sizeof(s->err), "this kernel has no kfunc %.64s, which %.64s calls", fn, s->name);
	btf__free(kern);
	return missing ? -ENOENT : 0;
}

int scx_sched_load(struct scx_sched *s)
{
	int err = bpf_object__load(s->obj);

	if (!err)
		return 0;
	if (explain_kfuncs(s))
		return -ENOENT;
	return fail(s, err, "loading %s failed (the verifier log is above)", s->name);
}

/* Calls fn on each read-only data section of the object that has BTF (the
 * DATASEC ".rodata" and any ".rodata.NAME"); stops at and returns the first
 * non-zero result, or 0. Before load only: rodata is frozen at load. */
static int each_rodata(struct scx_sched *s,
		       int (*fn)(struct scx_sched *, const struct btf *, uint32_t, void *, size_t, void *), void *arg)
{
	const struct btf *btf = bpf_object__btf(s->obj);
	struct bpf_map *map;
	int rc;

	bpf_object__for_each_map(map, s->obj)
	{
		__u32 id = bpf_map__btf_value_type_id(map);
		const struct btf_type *t = btf && id ? btf__type_by_id(btf, id) : NULL;
		const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
		size_t size = 0;
		void *data;

		if (!bpf_map__is_internal(map) || !t || !btf_is_datasec(t) || !name || strncmp(name, ".rodata", 7))
			continue;
		data = bpf_map__initial_value(map, &size);
		if (!data)
			continue;
		rc = fn(s, btf, id, data, size, arg);
		if (rc)
			return rc;
	}
	return 0;
}

struct fill_args {
	const struct btf *kern;
	uint32_t nr_cpus;
	int enums, cpus;
};

static int fill_section(struct scx_sched *s, const struct btf *btf, uint32_t id, void *data, size_t size, void *arg)
{
	struct fill_args *a = arg;
	int n = a->kern ? scx_rodata_fill_enums(btf, id, data, size, a->kern) : 0;
	int c = n >= 0 && a->nr_cpus ? scx_rodata_fill_cpus(btf, id, data, size, a->nr_cpus) : 0;

	if (n < 0 || c < 0)
		return fail(s, -EINVAL, "%s: its read-only data does not match its BTF", s->name);
	a->enums += n;
	a->cpus += c;
	return 0;
}

int scx_sched_fill_rodata(struct scx_sched *s, const struct btf *kern, uint32_t nr_cpus, int *enums, int *cpus)
{
	struct fill_args a = { .kern = kern, .nr_cpus = nr_cpus };
	int rc = each_rodata(s, fill_section, &a);

	*enums = a.enums;
	*cpus = a.cpus;
	return rc;
}

struct set_args {
	const char *name, *value;
	bool done;
};

static int set_section(struct scx_sched *s, const struct btf *btf, uint32_t id, void *data, size_t size, void *arg)
{
	struct set_args *a = arg;
	int rc = scx_rodata_set(btf, id, data, size, a->name, a->value, s->err, sizeof(s->err));

	if (rc == -ENOENT)
		return 0; /* perhaps in another section */
	a->done = rc == 0;
	return rc ? rc : 1;
}

int scx_sched_set_rodata(struct scx_sched *s, const char *name, const char *value)
{
	struct set_args a = { .name = name, .value = value };
	int rc = each_rodata(s, set_section, &a);

	if (a.done)
		return 0;
	if (rc == 0) {
		snprintf(s->err, sizeof(s->err), "%.64s has no read-only variable %.64s (const volatile)", s->name,
			 name);
		return -ENOENT;
	}
	return rc;
}

static int find_unset_pid(struct scx_sched *s, const struct btf *btf, uint32_t id, void *data, size_t size, void *arg)
{
	int rc = scx_rodata_unset_pid(btf, id, data, size, arg, 64);

	(void)s;
	return rc < 0 ? 0 : rc; /* a malformed section is the load's to report */
}

/* Appends name to the comma-separated list out (len bytes, *n used so far),
 * truncating quietly when it is full. */
static void list_add(char *out, size_t len, size_t *n, const char *name)
{
	if (*n < len)
		*n += (size_t)snprintf(out + *n, len - *n, "%s%s", *n ? ", " : "", name);
}

/* The name of the internal map's DATASEC if it holds a RESIZABLE_ARRAY
 * (scx_rodata_resizable_array), else NULL; its element size in *elem. */
static const char *resizable_section(struct scx_sched *s, struct bpf_map *map, size_t *elem)
{
	const struct btf *btf = bpf_object__btf(s->obj);
	__u32 id = bpf_map__btf_value_type_id(map);
	const struct btf_type *t = btf && id ? btf__type_by_id(btf, id) : NULL;

	if (!bpf_map__is_internal(map) || !t || !btf_is_datasec(t) || !scx_rodata_resizable_array(btf, id, elem))
		return NULL;
	return btf__name_by_offset(btf, t->name_off);
}

int scx_sched_resize_arrays(struct scx_sched *s, uint32_t nr_cpus, int *resized)
{
	struct bpf_map *map;
	size_t elem;

	*resized = 0;
	bpf_object__for_each_map(map, s->obj)
	{
		const char *sec = resizable_section(s, map, &elem);
		size_t n;
		int err;

		if (!sec || !nr_cpus || (strncmp(sec, ".data.", 6) && strncmp(sec, ".bss.", 5)))
			continue;
		n = strlen(sec);
		if (n >= 5 && !strcmp(sec + n - 5, "_dump"))
			continue; /* the uei's dump buffer, sized by exit_dump_len: left as it is */
		err = bpf_map__set_value_size(map, (__u32)(elem * nr_cpus));
		if (err)
			return fail(s, err, "%.64s: cannot give %.64s %u elements", s->name, sec, nr_cpus);
		(*resized)++;
	}
	return 0;
}

/* Names the object's read-only RESIZABLE_ARRAYs into out: per-CPU values
 * only its own loader computes. Returns how many. */
static int rodata_arrays(struct scx_sched *s, char *out, size_t len)
{
	struct bpf_map *map;
	size_t elem, n = 0;
	int found = 0;

	out[0] = '\0';
	bpf_object__for_each_map(map, s->obj)
	{
		const char *sec = resizable_section(s, map, &elem);

		if (!sec || strncmp(sec, ".rodata.", 8))
			continue;
		found++;
		list_add(out, len, &n, sec + 8);
	}
	return found;
}

int scx_sched_user_half(struct scx_sched *s)
{
	char pid[64] = "", channels[128] = "";
	struct bpf_map *map;
	size_t n = 0;

	if (rodata_arrays(s, channels, sizeof(channels))) {
		snprintf(s->err, sizeof(s->err),
			 "%.64s needs its own loader: it sizes the read-only arrays %.128s to the CPUs and fills "
			 "them with values it computes, which schedio cannot know",
			 s->name, channels);
		return 1;
	}
	channels[0] = '\0';

	bpf_object__for_each_map(map, s->obj)
	{
		enum bpf_map_type t = bpf_map__type(map);

		if (t == BPF_MAP_TYPE_USER_RINGBUF) {
			snprintf(s->err, sizeof(s->err),
				 "%.64s needs its own user-space half, which schedio does not run: user space feeds "
				 "its user ring buffer %.64s; load it with its own loader",
				 s->name, bpf_map__name(map));
			return 1;
		}
		if (t == BPF_MAP_TYPE_QUEUE || t == BPF_MAP_TYPE_STACK || t == BPF_MAP_TYPE_RINGBUF)
			list_add(channels, sizeof(channels), &n, bpf_map__name(map));
	}
	if (!n || each_rodata(s, find_unset_pid, pid) != 1)
		return 0;
	snprintf(s->err, sizeof(s->err),
		 "%.64s needs its own user-space half, which schedio does not run: it waits for the PID of its "
		 "user-space task in %.64s (0 here; its own loader sets it) and trades work with that task through "
		 "%.64s; load it with its own loader",
		 s->name, pid, channels);
	return 1;
}

int scx_sched_set_map_size(struct scx_sched *s, const char *map, uint32_t n)
{
	struct bpf_map *m = bpf_object__find_map_by_name(s->obj, map);
	int err;

	if (!m || bpf_map__is_internal(m) || bpf_map__type(m) == BPF_MAP_TYPE_STRUCT_OPS) {
		snprintf(s->err, sizeof(s->err), "%.64s has no map %.64s", s->name, map);
		return -ENOENT;
	}
	if (n == 0) {
		snprintf(s->err, sizeof(s->err), "map %.64s cannot have 0 entries", map);
		return -EINVAL;
	}
	err = bpf_map__set_max_entries(m, n);
	if (err)
		return fail(s, err, "cannot give map %.64s %u entries", map, n);
	return 0;
}

int scx_sched_map_set(struct scx_sched *s, const char *name, uint32_t key, const void *value)
{
	struct bpf_map *map = bpf_object__find_map_by_name(s->obj, name);

	if (!map)
		return fail(s, -ENOENT, "%s: no such map", name);
	if (bpf_map_update_elem(bpf_map__fd(map), &key, value, BPF_ANY))
		return fail(s, -errno, "writing map %s", name);
	return 0;
}

int scx_sched_attach(struct scx_sched *s, uint32_t timeout_ms, bool partial)
{
	uint32_t zero = 0;
	void *value;
	int fd, err = 0;

	value = scx_ops_value_build(s->obj, s->ops, s->name, timeout_ms, partial, s->err, sizeof(s->err));
	if (!value)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(s->ops), &zero, value, BPF_ANY))
		err = fail(s, -errno, "writing the struct_ops value of %s", s->name);
	free(value);
	if (err)
		return err;
	fd = bpf_link_create(bpf_map__fd(s->ops), 0, SCX_BPF_STRUCT_OPS_ATTACH, NULL);
	if (fd < 0)
		return fail(s, fd, "registering %s", s->name);
	s->link_fd = fd;
	return 0;
}

int scx_sched_stats(struct scx_sched *s, uint64_t out[SCHEDIO_SCX_STAT_NR])
{
	struct bpf_map *map = bpf_object__find_map_by_name(s->obj, "stats");
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;
	int err = 0;

	memset(out, 0, sizeof(uint64_t) * SCHEDIO_SCX_STAT_NR);
	if (!map || !s->has_counters)
		return -ENOENT; /* none, or another scheduler's own: not ours to label */
	if (ncpu <= 0)
		return fail(s, ncpu, "counting CPUs");
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < SCHEDIO_SCX_STAT_NR; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, vals)) {
			err = fail(s, -errno, "reading stats");
			break;
		}
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return err;
}

int scx_sched_exit_info(struct scx_sched *s, struct schedio_scx_exit *out)
{
	struct bpf_map *map = bpf_object__find_map_by_name(s->obj, "exit_info");
	uint32_t zero = 0;
	size_t size;
	void *data;
	int rc;

	memset(out, 0, sizeof(*out));
	if (map && s->has_exit_info) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, out))
			return fail(s, -errno, "reading exit_info");
		out->reason[sizeof(out->reason) - 1] = '\0';
		out->msg[sizeof(out->msg) - 1] = '\0';
		if (out->recorded)
			return 1;
	}
	if (!s->uei_map)
		return 0;
	size = bpf_map__value_size(s->uei_map);
	data = calloc(1, size);
	if (!data)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->uei_map), &zero, data))
		rc = fail(s, -errno, "reading %s's exit record (uei)", s->name);
	else
		rc = scx_layout_uei_read(&s->uei, data, size, out);
	free(data);
	return rc;
}

void scx_sched_detach(struct scx_sched *s)
{
	if (s->link_fd >= 0) {
		/* The link holds the registration: closing it unregisters, and the
		 * kernel waits for the disable (ops.exit included) to finish. */
		close(s->link_fd);
		s->link_fd = -1;
	}
}

void scx_sched_close(struct scx_sched *s)
{
	scx_sched_detach(s);
	bpf_object__close(s->obj);
	s->obj = NULL;
	btf__free(s->obj_btf);
	s->obj_btf = NULL;
	free(s->obj_weak);
	s->obj_weak = NULL;
}

const char *scx_sched_exit_kind_name(int32_t kind)
{
	switch (kind) {
	case 0:
		return "none";
	case 1:
		return "done";
	case 64:
		return "unregistered";
	case 65:
		return "unregistered by the BPF scheduler";
	case 66:
		return "unregistered by the kernel";
	case 67:
		return "sysrq";
	case 1024:
		return "error";
	case 1025:
		return "error in the BPF scheduler";
	case 1026:
		return "stall (watchdog)";
	default:
		return kind >= 1024 ? "error" : "other";
	}
}
