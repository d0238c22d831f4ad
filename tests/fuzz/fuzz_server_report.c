/* fuzz_server_report.c - libFuzzer target for everything the server parses
 * out of an agent report: the JSON report itself (report_parse, with its
 * arena allocator), the blobs it encodes (decoded back and merged, as the
 * rollups and queries do, and the split by scheduler adding up to the whole
 * host), the issue-17 health and exits (valid JSON, counted into the
 * /metrics counters as ingest does, and so is the host histogram), host.labels (its canonical text reads
 * back as the valid labels it was made of), and the raw bytes as a stored blob (a
 * corrupt database row must decode to an error, never a crash; one that decodes,
 * in either blob version and any packing (with a dictionary too), must come back the same when
 * encoded again in the current one, as a rollup re-encodes what it merged).
 * Differential: the same body parsed with histogram buckets read from their
 * text (the default) and through the general tree gives the same answer,
 * byte for byte. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/labels.h"
#include "server/ingest/health_stats.h"
#include "server/ingest/runqlat_counters.h"
#include "server/series/blob_dict.h"
#include "server/series/iocost_set.h"
#include "server/ingest/report_parse.h"
#include "server/series/runqlat_set.h"

/* Every label of canonical text is valid and found again by its key; there are 1..LABELS_MAX. */
static void check_labels(const char *text)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *it;
	char why[256];
	size_t n = 0, len;

	if (!o || labels_to_json(text, o) < 0) {
		cJSON_Delete(o);
		return; /* out of memory */
	}
	cJSON_ArrayForEach(it, o)
	{
		const char *v = labels_find(text, it->string, &len);

		if (!label_key_ok(it->string, strlen(it->string), why, sizeof(why)) ||
		    !label_value_ok(it->string, it->valuestring, strlen(it->valuestring), why, sizeof(why)) || !v ||
		    len != strlen(it->valuestring) || memcmp(v, it->valuestring, len) != 0)
			abort();
		n++;
	}
	if (n == 0 || n > LABELS_MAX)
		abort();
	cJSON_Delete(o);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_blob(const struct blob *a, const struct blob *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/* Parses body through the general tree too and aborts unless both paths agree. */
static void check_tree_path(const char *body, size_t size, int status, const char *err, const struct report *a)
{
	struct report b;
	char err2[512];
	int status2;

	report_parse_raw_buckets = false;
	status2 = report_parse(body, size, &b, err2, sizeof(err2));
	report_parse_raw_buckets = true;
	if (status == 500 || status2 == 500) {
		report_free(&b);
		return; /* out of memory may strike either path alone */
	}
	if (status != status2 || (status && strcmp(err, err2) != 0))
		abort();
	if (!status && (!same_blob(&a->host_hist, &b.host_hist) || !same_blob(&a->series, &b.series) ||
			!same_blob(&a->iocost, &b.iocost) || !same_str(a->l3_json, b.l3_json) ||
			!same_str(a->disks_json, b.disks_json) || !same_str(a->health_json, b.health_json) ||
			!same_str(a->exits_json, b.exits_json) || !same_str(a->labels, b.labels) ||
			!same_str(a->machine_id, b.machine_id) || !same_str(a->sched_group, b.sched_group) ||
			a->has_runqlat != b.has_runqlat || a->has_iocost != b.has_iocost || a->seq != b.seq))
		abort();
	report_free(&b);
}

/* Sets whose keys are not distinct as C strings (a key with a NUL, kept up to the NUL) merge
 * rows when decoded again, so they are not compared; nor are very large ones (the check is
 * quadratic). */
#define REENCODE_MAX_ROWS 256

static bool runqlat_keys_distinct(const struct runqlat_set *s)
{
	if (s->n > REENCODE_MAX_ROWS)
		return false;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < i; j++)
			if (s->v[i]->kind == s->v[j]->kind && strcmp(s->v[i]->key, s->v[j]->key) == 0)
				return false;
	return true;
}

static bool iocost_keys_distinct(const struct iocost_set *s)
{
	if (s->n > REENCODE_MAX_ROWS)
		return false;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < i; j++)
			if (s->v[i]->kind == s->v[j]->kind && strcmp(s->v[i]->dev, s->v[j]->dev) == 0 &&
			    strcmp(s->v[i]->path, s->v[j]->path) == 0)
				return false;
	return true;
}

/* A decoded set encoded again (and packed) decodes to the same non-empty series. */
static void check_runqlat_reencodes(const struct runqlat_set *s)
{
	struct runqlat_set back = { 0 };
	struct blob b = { 0 };
	size_t k = 0;

	if (!runqlat_keys_distinct(s))
		return;

	runqlat_set_encode(s, &b);
	if (b.oom || blob_pack(&b) || runqlat_set_add_blob(&back, b.p, b.len, NULL, NULL))
		abort();
	for (size_t i = 0; i < s->n; i++) {
		const struct hist *a = &s->v[i]->hist, *c;

		if (a->count == 0 && hist_total(a->buckets) == 0)
			continue;
		if (k >= back.n || back.v[k]->kind != s->v[i]->kind || strcmp(back.v[k]->key, s->v[i]->key) != 0)
			abort();
		c = &back.v[k++]->hist;
		if (c->count != a->count || c->sum_ns != a->sum_ns || c->max_ns != a->max_ns ||
		    memcmp(c->buckets, a->buckets, sizeof(a->buckets)) != 0)
			abort();
	}
	if (k != back.n)
		abort();
	runqlat_set_free(&back);
	blob_free(&b);
}

/* The same for iocost rows: every row, every field's samples and sum. */
static void check_iocost_reencodes(const struct iocost_set *s)
{
	struct iocost_set back = { 0 };
	struct blob b = { 0 };

	if (!iocost_keys_distinct(s))
		return;
	iocost_set_encode(s, &b);
	if (b.oom || blob_pack(&b) || iocost_set_add_blob(&back, b.p, b.len) || back.n != s->n)
		abort();
	for (size_t i = 0; i < s->n; i++)
		if (back.v[i]->kind != s->v[i]->kind || strcmp(back.v[i]->dev, s->v[i]->dev) != 0 ||
		    strcmp(back.v[i]->path, s->v[i]->path) != 0 ||
		    memcmp(back.v[i]->sum, s->v[i]->sum, sizeof(s->v[i]->sum)) != 0 ||
		    memcmp(back.v[i]->n, s->v[i]->n, sizeof(s->v[i]->n)) != 0)
			abort();
	iocost_set_free(&back);
	blob_free(&b);
}

/* A dictionary (raw content: keys and field names reports carry) every report's blobs are packed with,
 * so the round trips above and the stored-blob decode run through zstd with a dictionary too. */
static const char fuzz_dict[] = "/system.slice//user.slice//workload.slice/init.scopenginx.servicepostgres.service"
				"253:0253:16259:0259:1eevdfscx_l3scx_fifo0123456789";

static void use_fuzz_dict(void)
{
	static bool done;
	uint32_t id = blob_dict_id(fuzz_dict, sizeof(fuzz_dict) - 1);

	if (done)
		return;
	done = true;
	blob_dict_configure(1, 0);
	if (blob_dict_add(id, BLOB_DICT_SERIES, fuzz_dict, sizeof(fuzz_dict) - 1) ||
	    blob_dict_add(id + 1, BLOB_DICT_IOCOST, fuzz_dict, sizeof(fuzz_dict) - 1) ||
	    blob_dict_use(BLOB_DICT_SERIES, id) || blob_dict_use(BLOB_DICT_IOCOST, id + 1))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int status;
	struct report rep;
	struct runqlat_set rs = { 0 }, split = { 0 };
	struct iocost_set io = { 0 };
	char err[512], *body = malloc(size + 1);

	use_fuzz_dict();
	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';
	status = report_parse(body, size, &rep, err, sizeof(err));
	check_tree_path(body, size, status, err, &rep);
	if (status == 0) {
		if (rep.has_runqlat && (runqlat_set_add_blob(&rs, rep.series.p, rep.series.len, NULL, NULL) ||
					runqlat_set_add_blob(&rs, rep.host_hist.p, rep.host_hist.len, NULL, NULL)))
			abort(); /* what we encode must decode */
		if (rep.has_runqlat) {
			struct runqlat_hist *whole = calloc(1, sizeof(*whole));
			uint64_t n = 0;

			if (!whole ||
			    runqlat_hist_add_blob(whole, rep.host_hist.p, rep.host_hist.len, runqlat_set_want_host,
						  NULL) ||
			    runqlat_set_add_sched(&split, rep.host_hist.p, rep.host_hist.len, rep.sched_group))
				abort();
			for (size_t i = 0; i < split.n; i++)
				n += split.v[i]->hist.count;
			if (n != whole->hist.count)
				abort(); /* the split adds up to the host */
			free(whole);
		}
		if (rep.has_iocost && iocost_set_add_blob(&io, rep.iocost.p, rep.iocost.len))
			abort();
		for (int k = 0; k < 2; k++) {
			const char *text = k ? rep.exits_json : rep.health_json;
			cJSON *doc = text ? cJSON_Parse(text) : NULL;

			if (text && !doc)
				abort(); /* what we store must be JSON the queries can read */
			cJSON_Delete(doc);
		}
		health_stats_add(rep.machine_id, rep.start_ms, rep.health_json, rep.exits_json);
		if (rep.has_runqlat && rep.host_hist.len &&
		    runqlat_counters_add(rep.machine_id, rep.hostname, rep.end_ms, rep.host_hist.p, rep.host_hist.len))
			abort(); /* what we encode, the /metrics counters must take */
		runqlat_counters_reset();
		if (rep.labels)
			check_labels(rep.labels);
		health_stats_reset();
	}
	report_free(&rep);
	if (runqlat_set_add_blob(&rs, data, size, NULL, NULL) == 0)
		check_runqlat_reencodes(&rs);
	runqlat_set_add_sched(&split, data, size, "fair");
	if (iocost_set_add_blob(&io, data, size) == 0)
		check_iocost_reencodes(&io);
	runqlat_set_free(&rs);
	runqlat_set_free(&split);
	iocost_set_free(&io);
	free(body);
	return 0;
}
