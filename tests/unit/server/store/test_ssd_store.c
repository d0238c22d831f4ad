/* test_ssd_store.c - the SQLite SSD store through its ops: put, duplicate
 * detection, read back, the original file, the model list with its merged
 * firmware and solution sets, the search (LIKE wildcards taken literally) and
 * the pages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "server/store/ssd_store.h"
#include "tests/unit/server/test_store_helpers.h"

static struct ssd_result result(const char *id, const char *model, const char *fwrev, const char *sol)
{
	struct ssd_result r;

	memset(&r, 0, sizeof(r));
	snprintf(r.id, sizeof(r.id), "%s", id);
	snprintf(r.model, sizeof(r.model), "%s", model);
	ssd_model_id(r.model, r.model_id);
	snprintf(r.fwrev, sizeof(r.fwrev), "%s", fwrev);
	snprintf(r.bench_version, sizeof(r.bench_version), "2.1.2");
	r.bench_major = 2;
	r.bench_minor = 1;
	r.nsolutions = 1;
	snprintf(r.solutions[0].name, sizeof(r.solutions[0].name), "%s", sol);
	r.solutions[0].model[SSD_RBPS] = 42;
	return r;
}

/* How many models one page of list_models brings. */
static size_t list_n(struct ssd_store *st, const char *q, size_t limit, size_t offset, size_t *total)
{
	struct ssd_model_query mq = { .q = q, .limit = limit, .offset = offset };
	struct ssd_model_summary *models = NULL;
	size_t n = 0;

	assert_int_equal(st->ops->list_models(st, &mq, &models, &n, total), 0);
	ssd_store_free_models(models, n);
	return n;
}

static void test_like_pattern_escapes_wildcards(void **state)
{
	char *p = ssd_store_like_pattern("A%b_C\\d");

	(void)state;
	assert_string_equal(p, "%a\\%b\\_c\\\\d%");
	free(p);
	assert_null(ssd_store_like_pattern(""));
	assert_null(ssd_store_like_pattern(NULL));
}

static void test_store_round_trip(void **state)
{
	char err[256];
	struct ssd_result a = result("0000000000000000000000000000000a", "Disk One", "FW2", "naive");
	struct ssd_result b = result("0000000000000000000000000000000b", "Disk One", "FW1", "bandwidth");
	struct ssd_result c = result("0000000000000000000000000000000c", "Other", "", "naive");
	struct ssd_result *back = malloc(sizeof(*back)), *list;
	struct ssd_model_query all = { 0 }, one = { 0 };
	struct ssd_model_summary *models;
	struct ssd_store *st;
	size_t n, len, total;
	void *gz;
	struct test_db t;
	bool dup;

	test_db_create(&t, "/tmp/schedio-test-ssd-store-XXXXXX");
	st = ssd_store_sqlite_open(t.file, err, sizeof(err));
	assert_non_null(st);
	assert_int_equal(st->ops->put(st, &a, "AAAA", 4, &dup, err, sizeof(err)), 0);
	assert_false(dup);
	assert_int_equal(st->ops->put(st, &a, "ZZZZ", 4, &dup, err, sizeof(err)), 0);
	assert_true(dup);
	assert_int_equal(st->ops->put(st, &b, "BB", 2, &dup, err, sizeof(err)), 0);
	assert_int_equal(st->ops->put(st, &c, "C", 1, &dup, err, sizeof(err)), 0);

	assert_int_equal(st->ops->get(st, a.id, back), 0);
	assert_string_equal(back->model, "Disk One");
	assert_true(back->solutions[0].model[SSD_RBPS] == 42);
	assert_int_equal(st->ops->get(st, "ffffffffffffffffffffffffffffffff", back), -ENOENT);
	assert_int_equal(st->ops->get_file(st, a.id, &gz, &len), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(gz, "AAAA", 4); /* the first submission's file, not the duplicate's */
	free(gz);
	assert_int_equal(st->ops->get_file(st, "nope", &gz, &len), -ENOENT);

	assert_int_equal(st->ops->list_models(st, &all, &models, &n, &total), 0);
	assert_int_equal(n, 2);
	assert_int_equal(total, 2);
	assert_string_equal(models[0].id, "Disk_One");
	assert_int_equal(models[0].submissions, 2);
	assert_string_equal(models[0].fwrevs, "FW1\nFW2");
	assert_string_equal(models[0].solutions, "bandwidth naive");
	assert_string_equal(models[1].fwrevs, "");
	ssd_store_free_models(models, n);
	assert_int_equal(list_n(st, "disk_O", 0, 0, &total), 1);
	assert_int_equal(list_n(st, "%", 0, 0, &total), 0); /* no LIKE wildcards */
	assert_int_equal(total, 0);
	assert_int_equal(list_n(st, "k_", 0, 0, &total), 1);    /* the id Disk_One */
	assert_int_equal(list_n(st, "ot_er", 0, 0, &total), 0); /* '_' is no wildcard */
	assert_int_equal(list_n(st, "\\", 0, 0, &total), 0);
	assert_int_equal(list_n(st, "fw1", 0, 0, &total), 1); /* a firmware matches too */
	/* pages: limit and offset over the sorted matches, total whatever the page */
	assert_int_equal(list_n(st, NULL, 1, 0, &total), 1);
	assert_int_equal(total, 2);
	assert_int_equal(list_n(st, NULL, 1, 1, &total), 1);
	assert_int_equal(list_n(st, NULL, 5, 2, &total), 0);
	assert_int_equal(total, 2);
	one.limit = 1;
	one.offset = 1;
	assert_int_equal(st->ops->list_models(st, &one, &models, &n, &total), 0);
	assert_string_equal(models[0].id, "Other");
	ssd_store_free_models(models, n);

	assert_int_equal(st->ops->model_results(st, "Disk_One", &list, &n), 0);
	assert_int_equal(n, 2);
	free(list);
	assert_int_equal(st->ops->model_results(st, "Nope", &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);

	st->ops->close(st);
	test_db_remove(&t);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_round_trip),
		cmocka_unit_test(test_like_pattern_escapes_wildcards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
