/* report_parse.c - see report_parse.h. Parsing is strict where the server depends on a
 * value (types, ranges, lengths, the histogram layout) and lenient about
 * everything it does not know (unknown fields are ignored), so newer agents
 * keep working against this server. Limits on lengths and counts are refused
 * with a message naming the limit rather than truncated, so what is stored is
 * always exactly what was sent.
 */
#include "server/ingest/report_parse.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/labels.h"
#include "server/series/blob_dict.h"
#include "server/series/iocost_set.h"
#include "server/json/json_arena.h"
#include "server/json/json_parse.h"
#include "server/series/runqlat_set.h"

#define JS_MAX_INT 9007199254740992.0 /* 2^53: beyond it a JSON number is not an exact integer */

struct parse {
	char *err;
	size_t errlen;
	int status;
};

/* obj's first member named name, as cJSON_GetObjectItemCaseSensitive finds it, with the
 * first byte compared before the rest: a report's objects are looked up thousands of times. */
static cJSON *member(const cJSON *obj, const char *name)
{
	if (!obj)
		return NULL;
	for (cJSON *it = obj->child; it; it = it->next)
		if (it->string && it->string[0] == name[0] && strcmp(it->string, name) == 0)
			return it;
	return NULL;
}

/* "<a><b>[i]." into buf as snprintf would write it (an element's path for
 * messages): built by hand, as a report has dozens of elements. */
static void elem_path(char *buf, size_t size, const char *a, const char *b, unsigned i)
{
	char num[16], *q = num + sizeof(num);
	size_t la = strlen(a), lb = strlen(b), nd;
	unsigned u = i;

	do
		*--q = (char)('0' + u % 10);
	while (u /= 10);
	nd = (size_t)(num + sizeof(num) - q);
	if (la + lb + nd + 4 > size) { /* '[', "].", NUL */
		snprintf(buf, size, "%s%s[%u].", a, b, i);
		return;
	}
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	buf[la + lb] = '[';
	memcpy(buf + la + lb + 1, q, nd);
	memcpy(buf + la + lb + 1 + nd, "].", 3);
}

__attribute__((format(printf, 3, 4))) static int fail(struct parse *ps, int status, const char *fmt, ...)
{
	va_list ap;

	if (!ps->status) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
		ps->status = status;
	}
	return -1;
}

/* Refuses a member given as null: the schema has no null where a value is
 * optional (leave the member out instead); the few that may be null are read
 * by their own code. Returns -1 (after fail) for null, 0 otherwise. */
static int not_null(struct parse *ps, const cJSON *it, const char *path, const char *name)
{
	if (cJSON_IsNull(it))
		return fail(ps, 400, "%s%s must not be null (leave it out when there is no value)", path, name);
	return 0;
}

/* A string field: absent is fine unless required; present must be a string of 1..max bytes. */
static int get_str(struct parse *ps, const cJSON *obj, const char *name, const char *path, bool required, size_t max,
		   const char **out)
{
	const cJSON *it = member(obj, name);
	size_t len;

	*out = NULL;
	if (!it) {
		if (required)
			return fail(ps, 400, "missing required field %s%s", path, name);
		return 0;
	}
	if (not_null(ps, it, path, name))
		return -1;
	if (!cJSON_IsString(it) || !it->valuestring)
		return fail(ps, 400, "%s%s must be a string", path, name);
	len = strlen(it->valuestring);
	if (required && len == 0)
		return fail(ps, 400, "%s%s must not be empty", path, name);
	if (len > max)
		return fail(ps, 400, "%s%s is longer than the limit of %zu bytes", path, name, max);
	*out = it->valuestring;
	return 0;
}

/* True if it is an exact integer in [min, max]. */
static bool int_ok(const cJSON *it, int64_t min, int64_t max, int64_t *out)
{
	double d;
	int64_t i;

	if (!cJSON_IsNumber(it))
		return false;
	d = it->valuedouble;
	/* NaN fails the range test; the 2^53 bound makes the cast exact and defined. */
	if (!(d >= (double)min && d <= (double)max) || d > JS_MAX_INT || d < -JS_MAX_INT)
		return false;
	i = (int64_t)d;
	if ((double)i != d)
		return false;
	*out = i;
	return true;
}

static int int_fail(struct parse *ps, const cJSON *it, const char *path, const char *name, int64_t min, int64_t max)
{
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble != floor(it->valuedouble))
		return fail(ps, 400, "%s%s must be an integer", path, name);
	return fail(ps, 400, "%s%s is out of range (%lld..%lld)", path, name, (long long)min, (long long)max);
}

/* An integer field; *present says whether it was there. */
static int get_int(struct parse *ps, const cJSON *obj, const char *name, const char *path, bool required, int64_t min,
		   int64_t max, int64_t *out, bool *present)
{
	const cJSON *it = member(obj, name);

	if (present)
		*present = false;
	if (!it) {
		if (required)
			return fail(ps, 400, "missing required field %s%s", path, name);
		return 0;
	}
	if (not_null(ps, it, path, name))
		return -1;
	if (!int_ok(it, min, max, out))
		return int_fail(ps, it, path, name, min, max);
	if (present)
		*present = true;
	return 0;
}

/* A number field (percentages may be fractional); stored in thousandths. */
static int get_milli(struct parse *ps, const cJSON *obj, const char *name, const char *path, int64_t *out,
		     bool *present)
{
	const cJSON *it = member(obj, name);

	*present = false;
	if (!it)
		return 0;
	if (not_null(ps, it, path, name))
		return -1;
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || fabs(it->valuedouble) > 1e12)
		return fail(ps, 400, "%s%s must be a number", path, name);
	*out = (int64_t)llround(it->valuedouble * 1000.0);
	*present = true;
	return 0;
}

/* An optional string field that must be one of allowed (NULL-terminated); list names them for the message. */
static int check_enum(struct parse *ps, const cJSON *obj, const char *name, const char *path,
		      const char *const *allowed, const char *list)
{
	const char *s;

	if (get_str(ps, obj, name, path, false, REPORT_MAX_NAME, &s))
		return -1;
	if (!s)
		return 0;
	for (; *allowed; allowed++)
		if (strcmp(s, *allowed) == 0)
			return 0;
	return fail(ps, 400, "%s%s must be one of %s", path, name, list);
}

/* An optional field the server does not store: checked for type (and >= 0 for counts) all the same. */
static int check_count(struct parse *ps, const cJSON *obj, const char *name, const char *path)
{
	int64_t v;

	return get_int(ps, obj, name, path, false, 0, INT64_MAX, &v, NULL);
}

static int check_bool(struct parse *ps, const cJSON *obj, const char *name, const char *path)
{
	const cJSON *it = member(obj, name);

	if (!it)
		return 0;
	if (not_null(ps, it, path, name))
		return -1;
	return cJSON_IsBool(it) ? 0 : fail(ps, 400, "%s%s must be true or false", path, name);
}

/* A device number, MAJOR:MINOR in decimal. */
static bool dev_ok(const char *s)
{
	size_t maj = strspn(s, "0123456789"), min;

	if (maj == 0 || s[maj] != ':')
		return false;
	min = strspn(s + maj + 1, "0123456789");
	return min > 0 && s[maj + 1 + min] == '\0';
}

static const char *const io_sources[] = { "tracepoints", "weights", NULL };

static const cJSON *get_obj(struct parse *ps, const cJSON *obj, const char *name, const char *path, bool required)
{
	const cJSON *it = member(obj, name);

	if (!it) {
		if (required)
			fail(ps, 400, "missing required field %s%s", path, name);
		return NULL;
	}
	if (not_null(ps, it, path, name))
		return NULL;
	if (!cJSON_IsObject(it)) {
		fail(ps, 400, "%s%s must be an object", path, name);
		return NULL;
	}
	return it;
}

/* An array field of at most max entries (past it: too_many, 413 or 400); NULL when absent or on error. */
static const cJSON *get_array(struct parse *ps, const cJSON *obj, const char *name, const char *path, int max,
			      int too_many)
{
	const cJSON *it = member(obj, name);

	if (!it || not_null(ps, it, path, name))
		return NULL;
	if (!cJSON_IsArray(it)) {
		fail(ps, 400, "%s%s must be an array", path, name);
		return NULL;
	}
	if (cJSON_GetArraySize(it) > max) {
		fail(ps, too_many, "%s%s has more than the limit of %d entries", path, name, max);
		return NULL;
	}
	return it;
}

static const cJSON *get_arr(struct parse *ps, const cJSON *obj, const char *name, const char *path, int max)
{
	return get_array(ps, obj, name, path, max, 413);
}

/* Scratch space for turning sparse JSON buckets into an encoded series. */
struct hist_scratch {
	uint64_t dense[HIST_BUCKETS]; /* zero between series */
	uint64_t cnt[HIST_BUCKETS];
	uint16_t touched[HIST_BUCKETS];
	struct runqlat_hist host; /* the whole-host merge */
};

/* Adds cnt to bucket idx of the scratch, keeping its list of touched buckets sorted. */
static void scratch_add(struct hist_scratch *sc, size_t *nt, int64_t idx, int64_t cnt)
{
	if (!sc->dense[idx] && cnt) {
		/* Agents send buckets in index order; keep the list sorted either way. */
		size_t k = (*nt)++;

		while (k > 0 && sc->touched[k - 1] > idx) {
			sc->touched[k] = sc->touched[k - 1];
			k--;
		}
		sc->touched[k] = (uint16_t)idx;
	}
	sc->dense[idx] += (uint64_t)cnt;
}

/* Zeroes the scratch's touched buckets (it is zero between series). */
static void scratch_clear(struct hist_scratch *sc, size_t nt)
{
	for (size_t k = 0; k < nt; k++)
		sc->dense[sc->touched[k]] = 0;
}

/* The buckets of a histogram, kept by the parser as checked text with its
 * [index, count] pairs read (json_raw_pairs), into the scratch when they are
 * within the limits. Returns false, the scratch cleared, for anything else:
 * the caller then takes the general path, whose messages name the fault. */
static bool read_buckets(const cJSON *raw, struct hist_scratch *sc, size_t *nt)
{
	size_t n;
	const uint64_t *v = json_raw_pairs(raw, &n);

	*nt = 0;
	if (!v || n > HIST_BUCKETS)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[2 * i] > HIST_BUCKETS - 1) {
			scratch_clear(sc, *nt);
			*nt = 0;
			return false;
		}
		/* a count has at most 15 digits, below int_ok's 2^53 bound: both paths take it */
		scratch_add(sc, nt, (int64_t)v[2 * i], (int64_t)v[2 * i + 1]);
	}
	return true;
}

/* Replaces raw, a member of parent, by the tree its text parses to, under the same
 * name; false when out of memory (the text was checked by the parser). */
static bool replace_raw(cJSON *parent, cJSON *raw)
{
	cJSON *tree = json_parse(raw->valuestring, strlen(raw->valuestring));

	if (!tree)
		return false;
	tree->string = raw->string;
	raw->string = NULL;
	return cJSON_ReplaceItemViaPointer(parent, raw, tree);
}

/* Replaces o's raw "buckets" member by its parsed tree, for the general path. */
static int buckets_as_tree(struct parse *ps, const cJSON *o, cJSON *raw)
{
	if (!replace_raw((cJSON *)o, raw))
		return fail(ps, 500, "out of memory");
	return 0;
}

/* Turns every raw node under node back into its parsed tree; false when out of memory. */
static bool unraw(cJSON *node)
{
	for (cJSON *it = node->child, *next; it; it = next) {
		next = it->next;
		if (cJSON_IsRaw(it)) {
			if (!replace_raw(node, it))
				return false;
		} else if (!unraw(it)) {
			return false;
		}
	}
	return true;
}

/* A deep copy of item as if the whole document had been parsed into a tree (no raw
 * "buckets" text in it), for parts stored as the agent sent them; NULL when out of memory. */
static cJSON *dup_parsed(const cJSON *item)
{
	cJSON *copy = cJSON_Duplicate(item, true);

	if (copy && !unraw(copy)) {
		cJSON_Delete(copy);
		return NULL;
	}
	return copy;
}

/* One runqlat histogram object (a cgroup, a CPU or a scheduler), encoded into
 * out as (kind, key) unless out is NULL; added into sum unless that is NULL. */
static int parse_hist(struct parse *ps, const cJSON *o, const char *path, uint8_t kind, const char *key,
		      struct hist_scratch *sc, struct blob *out, struct runqlat_hist *sum)
{
	const cJSON *buckets, *pair;
	cJSON *raw;
	int64_t count = 0, sum_ns = 0, max = 0;
	size_t nt = 0;
	int i = 0;

	if (get_int(ps, o, "count", path, false, 0, INT64_MAX, &count, NULL) ||
	    get_int(ps, o, "sum_ns", path, false, 0, INT64_MAX, &sum_ns, NULL) ||
	    get_int(ps, o, "max_ns", path, false, 0, INT64_MAX, &max, NULL) || check_count(ps, o, "p50_ns", path) ||
	    check_count(ps, o, "p90_ns", path) || check_count(ps, o, "p99_ns", path) ||
	    check_count(ps, o, "p999_ns", path))
		return -1;
	raw = member(o, "buckets");
	if (raw && cJSON_IsRaw(raw) && read_buckets(raw, sc, &nt))
		goto summed;
	if (raw && cJSON_IsRaw(raw) && buckets_as_tree(ps, o, raw))
		return -1;
	buckets = get_arr(ps, o, "buckets", path, HIST_BUCKETS);
	if (ps->status)
		return -1;
	cJSON_ArrayForEach(pair, buckets)
	{
		const cJSON *a = pair->child, *b = a ? a->next : NULL;
		int64_t idx, cnt;

		if (!cJSON_IsArray(pair) || !b || b->next || !int_ok(a, 0, HIST_BUCKETS - 1, &idx) ||
		    !int_ok(b, 0, INT64_MAX, &cnt)) {
			scratch_clear(sc, nt); /* zeroed for the next report */
			return fail(ps, 400, "%sbuckets[%d] must be [index, count] with index 0..%d and count >= 0",
				    path, i, HIST_BUCKETS - 1);
		}
		scratch_add(sc, &nt, idx, cnt);
		i++;
	}
summed:
	for (size_t k = 0; k < nt; k++) {
		uint16_t b = sc->touched[k];

		sc->cnt[k] = sc->dense[b];
		if (sum)
			sum->hist.buckets[b] += sc->dense[b];
		sc->dense[b] = 0;
	}
	if (sum)
		hist_add_totals(&sum->hist, (uint64_t)count, (uint64_t)sum_ns, (uint64_t)max);
	if (out)
		runqlat_set_encode_series(out, kind, key, strlen(key), (uint64_t)count, (uint64_t)sum_ns, (uint64_t)max,
					  sc->touched, sc->cnt, nt);
	return 0;
}

/* Kernels from 6.6 on schedule fair tasks with EEVDF, older ones with CFS. */
static const char *fair_class_name(const char *kernel)
{
	unsigned long maj, min;
	char *e, *f;

	if (!kernel)
		return "fair";
	maj = strtoul(kernel, &e, 10);
	if (e == kernel || *e != '.')
		return "fair";
	min = strtoul(e + 1, &f, 10);
	if (f != e + 1 && (maj > 6 || (maj == 6 && min >= 6)))
		return "eevdf";
	return "fair";
}

/* runqlat.by_scheduler: the host's samples split by the scheduler that ran
 * each task, merged per group into sched (RUNQLAT_SCHED series). The split must
 * add up to the whole host exactly, or the fleet groups would not add up to
 * the fleet. */
static int parse_by_scheduler(struct parse *ps, const cJSON *rq, const char *kernel, struct hist_scratch *sc,
			      struct runqlat_set *sched)
{
	const cJSON *arr = member(rq, "by_scheduler"), *it;
	uint64_t count = 0, total = 0, host_total = hist_total(sc->host.hist.buckets);
	int i = 0;

	if (!arr)
		return 0;
	if (not_null(ps, arr, "runqlat.", "by_scheduler"))
		return -1;
	if (!cJSON_IsArray(arr))
		return fail(ps, 400, "runqlat.by_scheduler must be an array");
	if (cJSON_GetArraySize(arr) > REPORT_MAX_SCHEDULERS)
		return fail(ps, 400, "runqlat.by_scheduler has more than the limit of %d entries",
			    REPORT_MAX_SCHEDULERS);
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *ops = cJSON_IsObject(it) ? member(it, "ops") : NULL;
		const char *key;
		struct runqlat_hist *h;
		char path[64];

		snprintf(path, sizeof(path), "runqlat.by_scheduler[%d].", i);
		if (!cJSON_IsObject(it))
			return fail(ps, 400, "runqlat.by_scheduler[%d] must be an object", i);
		/* null: the kernel's own classes, grouped as a host without sched_ext is. */
		if (cJSON_IsNull(ops)) {
			key = fair_class_name(kernel);
		} else if (!cJSON_IsString(ops) || !ops->valuestring || !*ops->valuestring) {
			return fail(ps, 400, "%sops must be null or a non-empty string", path);
		} else if (strlen(ops->valuestring) > REPORT_MAX_NAME) {
			return fail(ps, 400, "%sops is longer than the limit of %d bytes", path, REPORT_MAX_NAME);
		} else {
			key = ops->valuestring;
		}
		h = runqlat_set_get(sched, RUNQLAT_SCHED, key, strlen(key));
		if (!h)
			return fail(ps, 500, "out of memory");
		if (parse_hist(ps, it, path, RUNQLAT_SCHED, key, sc, NULL, h))
			return -1;
		i++;
	}
	for (size_t k = 0; k < sched->n; k++) {
		count += sched->v[k]->hist.count;
		total += hist_total(sched->v[k]->hist.buckets);
	}
	if (count != sc->host.hist.count)
		return fail(ps, 400, "runqlat.by_scheduler counts add up to %llu, but the host total is %llu",
			    (unsigned long long)count, (unsigned long long)sc->host.hist.count);
	if (total != host_total)
		return fail(ps, 400, "runqlat.by_scheduler buckets add up to %llu, but the host's add up to %llu",
			    (unsigned long long)total, (unsigned long long)host_total);
	return 0;
}

static int parse_runqlat(struct parse *ps, const cJSON *rq, struct report *rep)
{
	const cJSON *layout = get_obj(ps, rq, "layout", "runqlat.", true), *arr[2], *it;
	static const char *const names[2] = { "cgroups", "cpus" };
	static const char *const attach_kinds[] = { "tp_btf", "raw_tp", NULL };
	static char host_key[1]; /* "" */
	struct hist_scratch *sc = NULL;
	struct runqlat_set sched = { 0 };
	int64_t g, n;
	bool from_cpus;
	int rc = -1;

	if (!layout)
		return -1;
	if (get_int(ps, layout, "grouping_power", "runqlat.layout.", true, 0, 64, &g, NULL) ||
	    get_int(ps, layout, "max_value_power", "runqlat.layout.", true, 0, 64, &n, NULL))
		return -1;
	if (g != HIST_GROUPING_POWER || n != HIST_MAX_VALUE_POWER)
		return fail(ps, 422,
			    "unknown histogram layout (grouping_power %lld, max_value_power %lld); this server "
			    "stores grouping_power %d, max_value_power %d",
			    (long long)g, (long long)n, HIST_GROUPING_POWER, HIST_MAX_VALUE_POWER);
	if (check_enum(ps, rq, "attach", "runqlat.", attach_kinds, "tp_btf, raw_tp"))
		return -1;
	for (int k = 0; k < 2; k++) {
		arr[k] = get_arr(ps, rq, names[k], "runqlat.", REPORT_MAX_SERIES);
		if (ps->status)
			return -1;
	}
	if (cJSON_GetArraySize(arr[0]) + cJSON_GetArraySize(arr[1]) > REPORT_MAX_SERIES)
		return fail(ps, 413, "runqlat has more than the limit of %d cgroups and CPUs", REPORT_MAX_SERIES);
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return fail(ps, 500, "out of memory");
	sc->host.kind = RUNQLAT_HOST;
	sc->host.key = host_key;
	/* The whole host: the CPUs when sent (every event lands on one CPU), else
	 * the cgroups (the agent keys every task by exactly one cgroup). */
	from_cpus = cJSON_GetArraySize(arr[1]) > 0;
	runqlat_set_encode_begin(&rep->series, (size_t)(cJSON_GetArraySize(arr[0]) + cJSON_GetArraySize(arr[1])));
	for (int k = 0; k < 2; k++) {
		int i = 0;

		cJSON_ArrayForEach(it, arr[k])
		{
			char key[32], hpath[64];
			const char *kp;
			int64_t cpu;

			elem_path(hpath, sizeof(hpath), "runqlat.", names[k], (unsigned)i++);
			if (!cJSON_IsObject(it)) {
				fail(ps, 400, "runqlat.%s[%d] must be an object", names[k], i - 1);
				goto out;
			}
			if (k == 0) {
				if (get_str(ps, it, "path", hpath, true, REPORT_MAX_PATH, &kp))
					goto out;
				/* "this cgroup and those below it" (compare, the cgroup queries) matches by '/' */
				if (kp[0] != '/') {
					fail(ps, 400, "%spath must start with '/' (relative to the cgroup2 root)",
					     hpath);
					goto out;
				}
			} else {
				if (get_int(ps, it, "cpu", hpath, true, 0, 1 << 20, &cpu, NULL))
					goto out;
				snprintf(key, sizeof(key), "%lld", (long long)cpu);
				kp = key;
			}
			if (parse_hist(ps, it, hpath, k ? RUNQLAT_CPU : RUNQLAT_CGROUP, kp, sc, &rep->series,
				       from_cpus == (k == 1) ? &sc->host : NULL))
				goto out;
		}
	}
	if (parse_by_scheduler(ps, rq, rep->kernel, sc, &sched))
		goto out;
	runqlat_set_encode_host_hist(&rep->host_hist, &sc->host, &sched, rep->sched_group);
	if (rep->host_hist.oom || rep->series.oom || blob_pack_kind(&rep->series, BLOB_DICT_SERIES)) {
		fail(ps, 500, "out of memory");
		goto out;
	}
	rep->has_runqlat = true;
	rc = 0;
out:
	runqlat_set_free(&sched);
	free(sc);
	return rc;
}

static int add_io(struct parse *ps, struct iocost_row *r, int f, const cJSON *o, const char *name, const char *path,
		  bool milli)
{
	int64_t v;
	bool has;

	if (milli ? get_milli(ps, o, name, path, &v, &has)
		  : get_int(ps, o, name, path, false, 0, INT64_MAX / 4, &v, &has))
		return -1;
	if (has) {
		/* rows repeating one (dev, cgroup) are summed: refuse sums past int64 */
		if (__builtin_add_overflow(r->sum[f], v, &r->sum[f]))
			return fail(ps, 400, "%s%s: repeated rows for one cgroup and disk add up past the limit", path,
				    name);
		r->n[f]++;
	}
	return 0;
}

/* Copies one disk object into the API's shape, keyed by dev in disks (merged
 * when host.disks and iocost.disks both describe it); adds its vrate row. */
static int parse_disk(struct parse *ps, const cJSON *d, const char *path, cJSON *disks, struct iocost_set *io)
{
	static const char *const strs[] = { "name", "fwrev" };
	const char *dev, *s;
	cJSON *out = NULL, *ioc, *child;
	int64_t v;
	bool has;

	if (!cJSON_IsObject(d))
		return fail(ps, 400, "%.*s must be an object", (int)strlen(path) - 1, path);
	if (get_str(ps, d, "dev", path, true, REPORT_MAX_NAME, &dev))
		return -1;
	cJSON_ArrayForEach(child, disks)
	{
		if (strcmp(member(child, "dev")->valuestring, dev) == 0)
			out = child;
	}
	if (!out) {
		if (cJSON_GetArraySize(disks) >= REPORT_MAX_DISKS)
			return fail(ps, 413, "more than the limit of %d disks", REPORT_MAX_DISKS);
		out = cJSON_CreateObject();
		if (!out)
			return fail(ps, 500, "out of memory");
		cJSON_AddItemToArray(disks, out);
		cJSON_AddStringToObject(out, "dev", dev);
		cJSON_AddItemToObject(out, "iocost", cJSON_CreateObject());
	}
	ioc = member(out, "iocost");
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (get_str(ps, d, strs[i], path, false, REPORT_MAX_NAME, &s))
			return -1;
		if (s) {
			cJSON_DeleteItemFromObjectCaseSensitive(out, strs[i]);
			cJSON_AddStringToObject(out, strs[i], s);
		}
	}
	if (get_int(ps, d, "size_bytes", path, false, 0, INT64_MAX, &v, &has))
		return -1;
	if (has) {
		cJSON_DeleteItemFromObjectCaseSensitive(out, "size_bytes");
		cJSON_AddNumberToObject(out, "size_bytes", (double)v);
	}
	/* "model" names the drive when a string and io.cost.model when an object
	 * (the report format uses the one key for both). */
	cJSON_ArrayForEach(child, d)
	{
		const char *k = child->string;

		if (!k)
			continue;
		if (cJSON_IsNull(child) &&
		    (strcmp(k, "model") == 0 || strcmp(k, "cost_model") == 0 || strcmp(k, "qos") == 0 ||
		     strcmp(k, "rotational") == 0 || strcmp(k, "enabled") == 0))
			return not_null(ps, child, path, k);
		if (strcmp(k, "model") == 0 && cJSON_IsString(child)) {
			if (strlen(child->valuestring) > REPORT_MAX_NAME)
				return fail(ps, 400, "%smodel is longer than the limit of %d bytes", path,
					    REPORT_MAX_NAME);
			cJSON_DeleteItemFromObjectCaseSensitive(out, "model");
			cJSON_AddStringToObject(out, "model", child->valuestring);
		} else if (strcmp(k, "model") == 0 || strcmp(k, "cost_model") == 0 || strcmp(k, "qos") == 0) {
			const char *key = strcmp(k, "qos") == 0 ? "qos" : "model";

			if (!cJSON_IsObject(child))
				return fail(ps, 400, "%s%s must be an object", path, k);
			cJSON_DeleteItemFromObjectCaseSensitive(ioc, key);
			cJSON_AddItemToObject(ioc, key, dup_parsed(child));
		} else if (strcmp(k, "rotational") == 0 || strcmp(k, "enabled") == 0) {
			const char *key = strcmp(k, "enabled") == 0 ? "enabled" : "rotational";
			cJSON *dst = strcmp(k, "enabled") == 0 ? ioc : out;

			if (!cJSON_IsBool(child))
				return fail(ps, 400, "%s%s must be true or false", path, k);
			cJSON_DeleteItemFromObjectCaseSensitive(dst, key);
			cJSON_AddBoolToObject(dst, key, cJSON_IsTrue(child));
		}
	}
	if (member(d, "vrate_pct")) {
		struct iocost_row *r = iocost_set_get(io, IOCOST_DISK, dev, strlen(dev), "", 0);

		if (!r)
			return fail(ps, 500, "out of memory");
		if (add_io(ps, r, IOCOST_VRATE, d, "vrate_pct", path, true))
			return -1;
	}
	return 0;
}

static int parse_disks(struct parse *ps, const cJSON *parent, const char *ppath, cJSON *disks, struct iocost_set *io)
{
	const cJSON *arr = get_arr(ps, parent, "disks", ppath, REPORT_MAX_DISKS), *d;
	int i = 0;

	if (ps->status)
		return -1;
	cJSON_ArrayForEach(d, arr)
	{
		char path[64];

		elem_path(path, sizeof(path), ppath, "disks", (unsigned)i++);
		if (parse_disk(ps, d, path, disks, io))
			return -1;
		/* iocost.disks as the schema states them (host.disks is older and looser) */
		if (strcmp(ppath, "iocost.") == 0 && !dev_ok(member(d, "dev")->valuestring))
			return fail(ps, 400, "%sdev must be MAJOR:MINOR in decimal", path);
		if (strcmp(ppath, "iocost.") == 0 && (!member(d, "name") || !member(d, "enabled")))
			return fail(ps, 400, "missing required field %s%s", path,
				    member(d, "name") ? "enabled" : "name");
	}
	return 0;
}

static int parse_iocost(struct parse *ps, const cJSON *ioc, cJSON *disks, struct iocost_set *io)
{
	static const struct {
		const char *name;
		int field;
		bool milli;
	} fields[] = {
		{ "weight", IOCOST_WEIGHT, true },
		{ "hweight_active_pct", IOCOST_HWEIGHT_ACTIVE, true },
		{ "hweight_inuse_pct", IOCOST_HWEIGHT_INUSE, true },
		{ "usage_pct", IOCOST_USAGE, true },
		{ "wait_us", IOCOST_WAIT_US, false },
		{ "indebt_us", IOCOST_INDEBT_US, false },
		{ "indelay_us", IOCOST_INDELAY_US, false },
	};
	static const char *const counts[] = { "rbytes", "wbytes", "rios", "wios" };
	const cJSON *arr, *c;
	int i = 0;

	if (check_enum(ps, ioc, "source", "iocost.", io_sources, "tracepoints, weights") ||
	    check_bool(ps, ioc, "io_controller", "iocost.") || check_count(ps, ioc, "parse_warnings", "iocost.") ||
	    parse_disks(ps, ioc, "iocost.", disks, io))
		return -1;
	arr = get_arr(ps, ioc, "cgroups", "iocost.", REPORT_MAX_IOCOST_ROWS);
	if (ps->status)
		return -1;
	cJSON_ArrayForEach(c, arr)
	{
		const char *p, *dev;
		struct iocost_row *r;
		int64_t active;
		bool has;
		char path[64];

		elem_path(path, sizeof(path), "iocost.", "cgroups", (unsigned)i++);
		if (!cJSON_IsObject(c))
			return fail(ps, 400, "%.*s must be an object", (int)strlen(path) - 1, path);
		if (get_str(ps, c, "path", path, true, REPORT_MAX_PATH, &p) ||
		    get_str(ps, c, "dev", path, true, REPORT_MAX_NAME, &dev))
			return -1;
		if (!dev_ok(dev))
			return fail(ps, 400, "%sdev must be MAJOR:MINOR in decimal", path);
		for (size_t f = 0; f < sizeof(counts) / sizeof(counts[0]); f++)
			if (check_count(ps, c, counts[f], path))
				return -1;
		if (get_milli(ps, c, "active_pct", path, &active, &has) ||
		    check_enum(ps, c, "hweight_source", path, io_sources, "tracepoints, weights"))
			return -1;
		r = iocost_set_get(io, IOCOST_CGROUP, dev, strlen(dev), p, strlen(p));
		if (!r)
			return fail(ps, 500, "out of memory");
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
			if (add_io(ps, r, fields[f].field, c, fields[f].name, path, fields[f].milli))
				return -1;
	}
	return 0;
}

/* The same for one (state, ops) pair: state a string, ops a string or null; both required. */
static int check_scx_pair(struct parse *ps, const cJSON *o, const char *path, const char **state, const char **ops)
{
	const cJSON *it = member(o, "ops");

	*ops = NULL;
	if (get_str(ps, o, "state", path, true, REPORT_MAX_NAME, state))
		return -1;
	if (!it)
		return fail(ps, 400, "missing required field %sops (null when no scheduler is loaded)", path);
	if (cJSON_IsNull(it))
		return 0;
	return get_str(ps, o, "ops", path, false, REPORT_MAX_NAME, ops);
}

/* sched_ext's state and ops (what the report counts under), and its
 * transitions, which the server does not store but checks all the same. */
static int parse_scx_state(struct parse *ps, const cJSON *scx, struct report *rep)
{
	const cJSON *arr, *it;
	const char *s, *o;
	int64_t t;
	int i = 0;

	if (check_scx_pair(ps, scx, "sched_ext.", &rep->sched_state, &rep->sched_ops))
		return -1;
	arr = get_array(ps, scx, "transitions", "sched_ext.", INT_MAX, 400); /* bounded by the body size */
	cJSON_ArrayForEach(it, arr)
	{
		char path[64];

		snprintf(path, sizeof(path), "sched_ext.transitions[%d].", i++);
		if (!cJSON_IsObject(it))
			return fail(ps, 400, "sched_ext.transitions[%d] must be an object", i - 1);
		if (get_int(ps, it, "t_ms", path, true, INT64_MIN / 4, INT64_MAX / 4, &t, NULL) ||
		    check_scx_pair(ps, it, path, &s, &o))
			return -1;
	}
	return ps->status ? -1 : 0;
}

/* JSON text of item in plain malloc'd memory (the printer allocates from the arena). */
static char *print_json(const cJSON *item)
{
	char *tmp = cJSON_PrintUnformatted(item), *out = tmp ? strdup(tmp) : NULL;

	cJSON_free(tmp);
	return out;
}

/* host.l3_domains: each domain is {"cpus": [...], "size_kb"} (the agent) or
 * a bare [cpu, ...] (the API contract's form); stored as [[cpu, ...], ...]. */
static int parse_l3(struct parse *ps, const cJSON *host, struct report *rep)
{
	const cJSON *arr = get_arr(ps, host, "l3_domains", "host.", 4096), *dom, *cpu;
	cJSON *out;
	int i = 0;

	if (!arr)
		return ps->status ? -1 : 0;
	out = cJSON_CreateArray();
	if (!out)
		return fail(ps, 500, "out of memory");
	cJSON_ArrayForEach(dom, arr)
	{
		const cJSON *cpus = cJSON_IsObject(dom) ? member(dom, "cpus") : dom;
		cJSON *list = cJSON_CreateArray();
		char path[48];
		int64_t v;
		int k = 0;

		snprintf(path, sizeof(path), "host.l3_domains[%d].", i);
		cJSON_AddItemToArray(out, list);
		if (!cJSON_IsArray(cpus) || !list) {
			cJSON_Delete(out);
			return fail(ps, 400, "host.l3_domains[%d] must be {\"cpus\": [CPU, ...]} or [CPU, ...]", i);
		}
		if (cJSON_IsObject(dom) && check_count(ps, dom, "size_kb", path)) {
			cJSON_Delete(out);
			return -1;
		}
		cJSON_ArrayForEach(cpu, cpus)
		{
			if (!int_ok(cpu, 0, 1 << 20, &v)) {
				cJSON_Delete(out);
				return fail(ps, 400, "host.l3_domains[%d]%s[%d] must be a CPU number (0..%d)", i,
					    cJSON_IsObject(dom) ? ".cpus" : "", k, 1 << 20);
			}
			cJSON_AddItemToArray(list, cJSON_CreateNumber((double)v));
			k++;
		}
		i++;
	}
	rep->l3_json = print_json(out);
	cJSON_Delete(out);
	return rep->l3_json ? 0 : fail(ps, 500, "out of memory");
}

/* host.labels (issue 15): an object of string to string within common/labels.h's limits, kept as
 * canonical text; a bad label is refused naming it, not dropped, so what is stored is what was sent. */
static int parse_labels(struct parse *ps, const cJSON *host, struct report *rep)
{
	const cJSON *obj = get_obj(ps, host, "labels", "host.", false), *it;
	const char *keys[LABELS_MAX], *values[LABELS_MAX];
	char why[256];
	size_t n = 0;

	if (!obj)
		return ps->status ? -1 : 0;
	cJSON_ArrayForEach(it, obj)
	{
		const char *k = it->string ? it->string : "";

		if (n == LABELS_MAX)
			return fail(ps, 400, "host.labels has more than the limit of %d labels", LABELS_MAX);
		if (!label_key_ok(k, strlen(k), why, sizeof(why)))
			return fail(ps, 400, "host.labels: %s", why);
		if (!cJSON_IsString(it) || !it->valuestring)
			return fail(ps, 400, "host.labels.%s must be a string", k);
		if (!label_value_ok(k, it->valuestring, strlen(it->valuestring), why, sizeof(why)))
			return fail(ps, 400, "host.labels: %s", why);
		for (size_t i = 0; i < n; i++)
			if (strcmp(keys[i], k) == 0)
				return fail(ps, 400, "host.labels: label %s is given twice", k);
		keys[n] = k;
		values[n++] = it->valuestring;
	}
	if (n == 0)
		return 0;
	rep->labels = malloc(LABELS_TEXT_MAX + 1);
	if (!rep->labels)
		return fail(ps, 500, "out of memory");
	labels_canonical(keys, values, n, rep->labels);
	return 0;
}

/* ---- Issue 17: sched_ext health, work conservation per L3 domain, the agent's own cost ----
 *
 * Each new field is optional (older agents send none of them) and, when
 * present, checked as the contract says (notes: contract17) and copied into
 * one canonical JSON object, the report's health_json:
 *   {"enable_seq": N, "nr_rejected": N, "events": {NAME: N, ...},
 *    "schedulers": [{"ops", "enable_seq"?, "first_ms", "last_ms", "partial"?}],
 *    "l3": [{"cpus"?, "wait_ns", "waits", "idle_sibling_wait_ns", "idle_sibling_waits"}],
 *    "agent": {"cpu_ns"?, "rss_bytes"?, "bpf"?: {"sampled_ns"?, "programs": [{"name", "run_cnt", "run_time_ns"}]}}}
 * with only the keys the report had. sched_ext.exits go to exits_json (their own table).
 * Every refusal here is a 400 naming the field. */

const char *const report_exit_kinds[REPORT_EXIT_KINDS + 1] = { "done",    "unreg", "unreg_bpf", "unreg_kern",
							       "sysrq",   "error", "error_bpf", "error_stall",
							       "unknown", NULL };

int report_exit_kind_index(const char *kind)
{
	for (int i = 0; kind && report_exit_kinds[i]; i++)
		if (strcmp(kind, report_exit_kinds[i]) == 0)
			return i;
	return -1;
}

bool report_exit_is_ejection(const char *kind)
{
	return kind &&
	       (strcmp(kind, "error") == 0 || strcmp(kind, "error_bpf") == 0 || strcmp(kind, "error_stall") == 0 ||
		strcmp(kind, "sysrq") == 0 || strcmp(kind, "unreg_kern") == 0);
}

#define EVENT_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"
#define PROG_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_."

/* An array field of at most max entries, 400 past it (the health fields); NULL when absent or on error. */
static const cJSON *get_list(struct parse *ps, const cJSON *obj, const char *name, const char *path, int max)
{
	return get_array(ps, obj, name, path, max, 400);
}

/* A count (integer >= 0) copied into dst under the same name when present; *out is -1 when absent. */
static int copy_count(struct parse *ps, const cJSON *src, const char *name, const char *path, bool required, cJSON *dst,
		      int64_t *out)
{
	int64_t v = -1;
	bool has;

	if (get_int(ps, src, name, path, required, 0, INT64_MAX, &v, &has))
		return -1;
	if (has)
		cJSON_AddNumberToObject(dst, name, (double)v);
	if (out)
		*out = has ? v : -1;
	return 0;
}

static bool name_ok(const char *s, const char *chars)
{
	size_t n = strlen(s);

	return n >= 1 && n <= REPORT_MAX_EVENT_NAME && strspn(s, chars) == n;
}

/* An optional bool copied into dst when present. */
static int copy_bool(struct parse *ps, const cJSON *src, const char *name, const char *path, cJSON *dst)
{
	const cJSON *it = member(src, name);

	if (!it)
		return 0;
	if (not_null(ps, it, path, name))
		return -1;
	if (!cJSON_IsBool(it))
		return fail(ps, 400, "%s%s must be true or false", path, name);
	cJSON_AddBoolToObject(dst, name, cJSON_IsTrue(it));
	return 0;
}

/* sched_ext.events: lower-case kernel counter names to deltas. */
static int parse_scx_events(struct parse *ps, const cJSON *scx, cJSON *health)
{
	const cJSON *ev = get_obj(ps, scx, "events", "sched_ext.", false), *it;
	cJSON *out;

	if (!ev)
		return ps->status ? -1 : 0;
	if (cJSON_GetArraySize(ev) > REPORT_MAX_SCX_LIST)
		return fail(ps, 400, "sched_ext.events has more than the limit of %d names", REPORT_MAX_SCX_LIST);
	out = cJSON_AddObjectToObject(health, "events");
	if (!out)
		return fail(ps, 500, "out of memory");
	cJSON_ArrayForEach(it, ev)
	{
		int64_t v;

		if (!it->string || !name_ok(it->string, EVENT_NAME_CHARS))
			return fail(ps, 400,
				    "sched_ext.events names must be 1..%d characters of [a-z0-9_] (the kernel's name "
				    "without SCX_EV_, lower-cased), not '%.80s'",
				    REPORT_MAX_EVENT_NAME, it->string ? it->string : "");
		if (member(out, it->string))
			return fail(ps, 400, "sched_ext.events.%s is given twice", it->string);
		if (!int_ok(it, 0, INT64_MAX, &v))
			return fail(ps, 400, "sched_ext.events.%s must be an integer >= 0", it->string);
		cJSON_AddNumberToObject(out, it->string, (double)v);
	}
	return 0;
}

/* sched_ext.schedulers: each scheduler loaded at some moment of the interval. */
static int parse_scx_schedulers(struct parse *ps, const cJSON *scx, cJSON *health)
{
	const cJSON *arr = get_list(ps, scx, "schedulers", "sched_ext.", REPORT_MAX_SCX_LIST), *it;
	cJSON *out;
	int i = 0;

	if (!arr)
		return ps->status ? -1 : 0;
	out = cJSON_AddArrayToObject(health, "schedulers");
	cJSON_ArrayForEach(it, arr)
	{
		cJSON *o = cJSON_CreateObject();
		const char *ops;
		int64_t first, last;
		char path[64];

		snprintf(path, sizeof(path), "sched_ext.schedulers[%d].", i++);
		if (!o)
			return fail(ps, 500, "out of memory");
		cJSON_AddItemToArray(out, o);
		if (!cJSON_IsObject(it))
			return fail(ps, 400, "sched_ext.schedulers[%d] must be an object", i - 1);
		if (get_str(ps, it, "ops", path, true, REPORT_MAX_NAME, &ops))
			return -1;
		cJSON_AddStringToObject(o, "ops", ops);
		if (copy_count(ps, it, "enable_seq", path, false, o, NULL) ||
		    get_int(ps, it, "first_ms", path, true, 0, INT64_MAX / 4, &first, NULL) ||
		    get_int(ps, it, "last_ms", path, true, 0, INT64_MAX / 4, &last, NULL))
			return -1;
		if (last < first)
			return fail(ps, 400, "%slast_ms is before %sfirst_ms", path, path);
		cJSON_AddNumberToObject(o, "first_ms", (double)first);
		cJSON_AddNumberToObject(o, "last_ms", (double)last);
		if (copy_bool(ps, it, "partial", path, o))
			return -1;
	}
	return 0;
}

/* sched_ext.exits: each ejection or unload seen in the interval, into exits. */
static int parse_scx_exits(struct parse *ps, const cJSON *scx, cJSON *exits)
{
	const cJSON *arr = get_list(ps, scx, "exits", "sched_ext.", REPORT_MAX_SCX_LIST), *it;
	int i = 0;

	cJSON_ArrayForEach(it, arr)
	{
		cJSON *o = cJSON_CreateObject();
		const char *ops, *kind, *reason, *message;
		int64_t t;
		char path[64];

		snprintf(path, sizeof(path), "sched_ext.exits[%d].", i++);
		if (!o)
			return fail(ps, 500, "out of memory");
		cJSON_AddItemToArray(exits, o);
		if (!cJSON_IsObject(it))
			return fail(ps, 400, "sched_ext.exits[%d] must be an object", i - 1);
		if (get_str(ps, it, "ops", path, true, REPORT_MAX_NAME, &ops) ||
		    get_int(ps, it, "t_ms", path, true, 0, INT64_MAX / 4, &t, NULL) ||
		    get_str(ps, it, "kind", path, true, 64, &kind) ||
		    get_str(ps, it, "reason", path, false, REPORT_MAX_EXIT_REASON, &reason) ||
		    get_str(ps, it, "message", path, false, REPORT_MAX_EXIT_MESSAGE, &message))
			return -1;
		if (report_exit_kind_index(kind) < 0)
			return fail(ps, 400,
				    "%skind '%s' is not one of done, unreg, unreg_bpf, unreg_kern, sysrq, error, "
				    "error_bpf, error_stall, unknown",
				    path, kind);
		cJSON_AddStringToObject(o, "ops", ops);
		cJSON_AddNumberToObject(o, "t_ms", (double)t);
		cJSON_AddStringToObject(o, "kind", kind);
		cJSON_AddStringToObject(o, "reason", reason ? reason : "");
		cJSON_AddStringToObject(o, "message", message ? message : "");
	}
	return ps->status ? -1 : 0;
}

/* runqlat.l3_domains: runqueue wait per L3 domain and the part of it spent
 * while a sibling CPU of the domain was idle. */
static int parse_l3_waits(struct parse *ps, const cJSON *rq, cJSON *health)
{
	const cJSON *arr = get_list(ps, rq, "l3_domains", "runqlat.", REPORT_MAX_L3_DOMAINS), *it;
	cJSON *out;
	int i = 0;

	if (!arr)
		return ps->status ? -1 : 0;
	out = cJSON_AddArrayToObject(health, "l3");
	cJSON_ArrayForEach(it, arr)
	{
		cJSON *o = cJSON_CreateObject();
		const cJSON *cpus, *cpu;
		int64_t wait, waits, idle_wait, idle_waits;
		char path[64];

		snprintf(path, sizeof(path), "runqlat.l3_domains[%d].", i++);
		if (!o)
			return fail(ps, 500, "out of memory");
		cJSON_AddItemToArray(out, o);
		if (!cJSON_IsObject(it))
			return fail(ps, 400, "runqlat.l3_domains[%d] must be an object", i - 1);
		cpus = get_list(ps, it, "cpus", path, REPORT_MAX_SERIES);
		if (ps->status)
			return -1;
		if (cpus) {
			cJSON *list = cJSON_AddArrayToObject(o, "cpus");

			cJSON_ArrayForEach(cpu, cpus)
			{
				int64_t v;

				if (!int_ok(cpu, 0, 1 << 20, &v))
					return fail(ps, 400, "%scpus must hold CPU numbers (0..%d)", path, 1 << 20);
				cJSON_AddItemToArray(list, cJSON_CreateNumber((double)v));
			}
		}
		if (copy_count(ps, it, "wait_ns", path, true, o, &wait) ||
		    copy_count(ps, it, "waits", path, true, o, &waits) ||
		    copy_count(ps, it, "idle_sibling_wait_ns", path, true, o, &idle_wait) ||
		    copy_count(ps, it, "idle_sibling_waits", path, true, o, &idle_waits))
			return -1;
		if (idle_wait > wait)
			return fail(ps, 400, "%sidle_sibling_wait_ns (%lld) is more than wait_ns (%lld)", path,
				    (long long)idle_wait, (long long)wait);
		if (idle_waits > waits)
			return fail(ps, 400, "%sidle_sibling_waits (%lld) is more than waits (%lld)", path,
				    (long long)idle_waits, (long long)waits);
	}
	return 0;
}

/* agent.cpu_ns, agent.rss_bytes and agent.bpf: what watching cost. */
static int parse_agent_cost(struct parse *ps, const cJSON *agent, cJSON *health)
{
	const cJSON *bpf, *progs, *it;
	cJSON *out = cJSON_CreateObject(), *ob, *list;
	int i = 0;

	if (!out)
		return fail(ps, 500, "out of memory");
	cJSON_AddItemToObject(health, "agent", out);
	if (copy_count(ps, agent, "cpu_ns", "agent.", false, out, NULL) ||
	    copy_count(ps, agent, "rss_bytes", "agent.", false, out, NULL))
		return -1;
	bpf = get_obj(ps, agent, "bpf", "agent.", false);
	if (ps->status)
		return -1;
	if (bpf) {
		ob = cJSON_AddObjectToObject(out, "bpf");
		if (copy_count(ps, bpf, "sampled_ns", "agent.bpf.", false, ob, NULL))
			return -1;
		progs = get_list(ps, bpf, "programs", "agent.bpf.", REPORT_MAX_SCX_LIST);
		if (ps->status)
			return -1;
		list = cJSON_AddArrayToObject(ob, "programs");
		cJSON_ArrayForEach(it, progs)
		{
			cJSON *o = cJSON_CreateObject();
			const char *name;
			char path[64];

			snprintf(path, sizeof(path), "agent.bpf.programs[%d].", i++);
			if (!o)
				return fail(ps, 500, "out of memory");
			cJSON_AddItemToArray(list, o);
			if (!cJSON_IsObject(it))
				return fail(ps, 400, "agent.bpf.programs[%d] must be an object", i - 1);
			if (get_str(ps, it, "name", path, true, REPORT_MAX_EVENT_NAME, &name))
				return -1;
			if (!name_ok(name, PROG_NAME_CHARS))
				return fail(ps, 400, "%sname must be 1..%d characters of [A-Za-z0-9_.]", path,
					    REPORT_MAX_EVENT_NAME);
			cJSON_AddStringToObject(o, "name", name);
			if (copy_count(ps, it, "run_cnt", path, true, o, NULL) ||
			    copy_count(ps, it, "run_time_ns", path, true, o, NULL))
				return -1;
		}
	}
	if (!out->child)
		cJSON_DeleteItemFromObjectCaseSensitive(health, "agent");
	return 0;
}

/* All of the above, into rep->health_json and rep->exits_json. */
static int parse_health(struct parse *ps, struct report *rep, cJSON *health, cJSON *exits)
{
	const cJSON *scx = member(rep->doc, "sched_ext");
	const cJSON *rq = member(rep->doc, "runqlat");
	const cJSON *agent = member(rep->doc, "agent");

	/* The sections' types were checked by report_parse already. */
	if (cJSON_IsObject(scx) && (copy_count(ps, scx, "enable_seq", "sched_ext.", false, health, NULL) ||
				    copy_count(ps, scx, "nr_rejected", "sched_ext.", false, health, NULL) ||
				    parse_scx_events(ps, scx, health) || parse_scx_schedulers(ps, scx, health) ||
				    parse_scx_exits(ps, scx, exits)))
		return -1;
	if (cJSON_IsObject(rq) && parse_l3_waits(ps, rq, health))
		return -1;
	if (cJSON_IsObject(agent) && parse_agent_cost(ps, agent, health))
		return -1;
	if (health->child && !(rep->health_json = print_json(health)))
		return fail(ps, 500, "out of memory");
	if (exits->child && !(rep->exits_json = print_json(exits)))
		return fail(ps, 500, "out of memory");
	return 0;
}

/* agent.incarnation: optional, but when given exactly REPORT_INCARNATION_LEN lowercase hex
 * digits, since it is part of the key that decides whether a report is a duplicate. */
static int parse_incarnation(struct parse *ps, const cJSON *agent, struct report *rep)
{
	const char *v;

	if (get_str(ps, agent, "incarnation", "agent.", false, REPORT_INCARNATION_LEN, &v))
		return -1;
	if (!v)
		return 0;
	if (strlen(v) != REPORT_INCARNATION_LEN || strspn(v, "0123456789abcdef") != REPORT_INCARNATION_LEN)
		return fail(ps, 400, "agent.incarnation must be %d lowercase hex digits", REPORT_INCARNATION_LEN);
	memcpy(rep->incarnation, v, REPORT_INCARNATION_LEN + 1);
	return 0;
}

/* Copies the strings the report keeps out of the JSON tree (which lives in
 * the parse arena) into one buffer the report owns. */
static int own_strings(struct report *rep)
{
	const char **fields[] = { &rep->machine_id,    &rep->hostname,    &rep->kernel,   &rep->arch,
				  &rep->agent_version, &rep->sched_state, &rep->sched_ops };
	size_t total = 0;
	char *o;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		total += *fields[i] ? strlen(*fields[i]) + 1 : 0;
	rep->strings = o = malloc(total + 1);
	if (!o)
		return -1;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		size_t n;

		if (!*fields[i])
			continue;
		n = strlen(*fields[i]) + 1;
		memcpy(o, *fields[i], n);
		*fields[i] = o;
		o += n;
	}
	rep->sched_group = report_sched_group(rep->sched_state, rep->sched_ops, rep->kernel);
	return 0;
}

const char *report_sched_group(const char *state, const char *ops, const char *kernel)
{
	if (state && strcmp(state, "enabled") == 0 && ops && *ops)
		return ops;
	return fair_class_name(kernel);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The name obj's members share, or NULL. Small objects are compared
 * pairwise; large ones sorted, so no body makes this quadratic. *oom is set
 * when the sort's array cannot be had. */
static const char *duplicate_name(const cJSON *obj, bool *oom)
{
	const cJSON *a, *b;
	const char **names, *dup = NULL;
	int n = cJSON_GetArraySize(obj), i = 0;

	if (n <= 16) {
		for (a = obj->child; a; a = a->next)
			for (b = a->next; b; b = b->next)
				if (a->string[0] == b->string[0] && strcmp(a->string, b->string) == 0)
					return a->string;
		return NULL;
	}
	names = malloc((size_t)n * sizeof(*names));
	if (!names) {
		*oom = true;
		return NULL;
	}
	for (a = obj->child; a && i < n; a = a->next)
		names[i++] = a->string;
	qsort(names, (size_t)i, sizeof(*names), name_cmp);
	for (int k = 1; k < i && !dup; k++)
		if (strcmp(names[k - 1], names[k]) == 0)
			dup = names[k];
	free(names);
	return dup;
}

/* Refuses a document in which any object names a member twice, wherever it
 * is (known fields or not). RFC 8259 leaves such an object's meaning to the
 * reader: cJSON finds the first, most JSON Schema validators keep the last,
 * so the report the server stored could differ from the one a validator
 * passed (I-JSON, RFC 7493, forbids it for that reason). path is the
 * member's place, as in the other messages; depth is bounded by the parser. */
static int check_unique_names(struct parse *ps, const cJSON *node, const char *path)
{
	const cJSON *it;
	char sub[192];
	bool oom = false;
	int i = 0;

	if (cJSON_IsObject(node)) {
		const char *dup = duplicate_name(node, &oom);

		if (oom)
			return fail(ps, 500, "out of memory");
		if (dup)
			return fail(ps, 400, "%s%s is given twice (each name once in an object)", path, dup);
	} else if (!cJSON_IsArray(node)) {
		return 0;
	}
	cJSON_ArrayForEach(it, node)
	{
		if (!cJSON_IsObject(it) && !cJSON_IsArray(it)) {
			i++;
			continue;
		}
		if (cJSON_IsObject(node))
			snprintf(sub, sizeof(sub), "%s%s.", path, it->string);
		else
			snprintf(sub, sizeof(sub), "%.*s[%d].", (int)(*path ? strlen(path) - 1 : 0), path, i);
		if (check_unique_names(ps, it, sub))
			return -1;
		i++;
	}
	return 0;
}

/* True if any object in the tree under node names a member twice (or the check ran out of
 * memory). Raw text holding an object anywhere is parsed to be checked too. */
static bool has_duplicate_names(const cJSON *node)
{
	bool oom = false, dup;

	if (cJSON_IsObject(node) && (duplicate_name(node, &oom) || oom))
		return true;
	for (const cJSON *it = node->child; it; it = it->next) {
		if (cJSON_IsRaw(it) && !json_raw_pairs(it, NULL) && strchr(it->valuestring, '{')) {
			cJSON *tree = json_parse(it->valuestring, strlen(it->valuestring));

			dup = !tree || has_duplicate_names(tree);
			cJSON_Delete(tree);
			if (dup)
				return true;
		} else if ((it->type & (cJSON_Object | cJSON_Array)) && it->child && has_duplicate_names(it)) {
			return true;
		}
	}
	return false;
}

bool report_parse_raw_buckets = true;

int report_parse(const char *body, size_t len, struct report *rep, char *err, size_t errlen)
{
	struct parse ps = { .err = err, .errlen = errlen };
	const cJSON *host, *iv, *sec, *agent;
	const char *schema;
	struct iocost_set io = { 0 };
	cJSON *disks = NULL, *health = NULL, *exits = NULL;
	int64_t v;

	memset(rep, 0, sizeof(*rep));
	json_arena_begin();
	rep->doc = report_parse_raw_buckets ? json_parse_raw_member(body, len, "buckets") : json_parse(body, len);
	if (!rep->doc) {
		fail(&ps, 400, "body is not valid JSON (RFC 8259, strings in UTF-8)");
		goto out;
	}
	if (!cJSON_IsObject(rep->doc)) {
		fail(&ps, 400, "a report must be a JSON object");
		goto out;
	}
	if (get_str(&ps, rep->doc, "schema", "", true, 64, &schema))
		goto out;
	if (strcmp(schema, REPORT_SCHEMA_V1) != 0) {
		fail(&ps, 422, "unknown report schema '%s' (this server takes %s)", schema, REPORT_SCHEMA_V1);
		goto out;
	}
	if (get_int(&ps, rep->doc, "seq", "", true, 1, INT64_MAX, &v, NULL))
		goto out;
	rep->seq = (uint64_t)v;
	host = get_obj(&ps, rep->doc, "host", "", true);
	iv = get_obj(&ps, rep->doc, "interval", "", true);
	if (!host || !iv)
		goto out;
	if (get_str(&ps, host, "id", "host.", true, REPORT_MAX_ID, &rep->machine_id) ||
	    get_str(&ps, host, "hostname", "host.", true, REPORT_MAX_HOSTNAME, &rep->hostname) ||
	    get_str(&ps, host, "kernel", "host.", false, REPORT_MAX_NAME, &rep->kernel) ||
	    get_str(&ps, host, "arch", "host.", false, REPORT_MAX_NAME, &rep->arch) ||
	    get_int(&ps, host, "cpus", "host.", false, 1, 1 << 20, &rep->cpus, NULL) ||
	    get_int(&ps, iv, "start_ms", "interval.", true, 0, INT64_MAX / 4, &rep->start_ms, NULL) ||
	    get_int(&ps, iv, "end_ms", "interval.", true, 0, INT64_MAX / 4, &rep->end_ms, NULL) ||
	    parse_l3(&ps, host, rep) || parse_labels(&ps, host, rep))
		goto out;
	if (rep->end_ms < rep->start_ms) {
		fail(&ps, 400, "interval.end_ms is before interval.start_ms");
		goto out;
	}
	agent = get_obj(&ps, rep->doc, "agent", "", false);
	if ((agent && (get_str(&ps, agent, "version", "agent.", false, REPORT_MAX_NAME, &rep->agent_version) ||
		       parse_incarnation(&ps, agent, rep))) ||
	    ps.status)
		goto out;
	sec = get_obj(&ps, rep->doc, "delivery", "", false);
	if (ps.status || (sec && get_int(&ps, sec, "dropped", "delivery.", false, 0, INT64_MAX, &rep->dropped, NULL)))
		goto out;
	sec = get_obj(&ps, rep->doc, "sched_ext", "", false);
	if (ps.status || (sec && parse_scx_state(&ps, sec, rep)))
		goto out;
	rep->sched_group = report_sched_group(rep->sched_state, rep->sched_ops, rep->kernel);
	sec = get_obj(&ps, rep->doc, "runqlat", "", false);
	if (ps.status || (sec && parse_runqlat(&ps, sec, rep)))
		goto out;
	disks = cJSON_CreateArray();
	if (!disks) {
		fail(&ps, 500, "out of memory");
		goto out;
	}
	if (parse_disks(&ps, host, "host.", disks, &io))
		goto out;
	sec = get_obj(&ps, rep->doc, "iocost", "", false);
	if (ps.status || (sec && parse_iocost(&ps, sec, disks, &io)))
		goto out;
	health = cJSON_CreateObject();
	exits = cJSON_CreateArray();
	if (!health || !exits) {
		fail(&ps, 500, "out of memory");
		goto out;
	}
	if (parse_health(&ps, rep, health, exits))
		goto out;
	if (cJSON_GetArraySize(disks) > 0) {
		rep->disks_json = print_json(disks);
		if (!rep->disks_json) {
			fail(&ps, 500, "out of memory");
			goto out;
		}
	}
	if (sec || io.n) {
		iocost_set_encode(&io, &rep->iocost);
		if (rep->iocost.oom || blob_pack_kind(&rep->iocost, BLOB_DICT_IOCOST)) {
			fail(&ps, 500, "out of memory");
			goto out;
		}
		rep->has_iocost = true;
	}
	/* Last, so the sections' own checks (labels, events "given twice") name what they know.
	 * The walk that builds each member's path for the message runs only when the fast one found a duplicate. */
	if (has_duplicate_names(rep->doc)) {
		if (unraw(rep->doc))
			check_unique_names(&ps, rep->doc, "");
		else
			fail(&ps, 500, "out of memory");
	}
out:
	if (!ps.status && own_strings(rep))
		fail(&ps, 500, "out of memory");
	/* A tree wholly inside the arena goes with it; walking it to free nothing is wasted work. */
	if (!json_arena_end()) {
		cJSON_Delete(disks);
		cJSON_Delete(health);
		cJSON_Delete(exits);
		cJSON_Delete(rep->doc);
	}
	rep->doc = NULL;
	iocost_set_free(&io);
	return ps.status;
}

void report_free(struct report *rep)
{
	free(rep->strings);
	free(rep->l3_json);
	free(rep->disks_json);
	free(rep->health_json);
	free(rep->exits_json);
	free(rep->labels);
	blob_free(&rep->host_hist);
	blob_free(&rep->series);
	blob_free(&rep->iocost);
	memset(rep, 0, sizeof(*rep));
}
