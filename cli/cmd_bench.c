/* cmd_bench.c - `schedio bench TARGET`: measures the io.cost.model of the
 * disk behind TARGET in minutes (cli/bench/ does the work: target.c the
 * safety checks, engine.c the IO, phase.c the saturation search and steady
 * state, analysis.c the warnings, result.c the JSON and the model line,
 * progress.c the terminal line), prints the model line, saves or prints the
 * schedio.ssdbench.v1 result and posts it with --submit.
 *
 * SIGINT and SIGTERM stop at once: the IOs in flight are waited for (the
 * kernel owns their buffers), the test file is removed, and the exit status
 * is 128 + the signal's number.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>

#include "cli/bench/device.h"
#include "cli/bench/engine.h"
#include "cli/bench/options.h"
#include "cli/bench/phase.h"
#include "cli/bench/progress.h"
#include "cli/bench/result.h"
#include "cli/bench/target.h"
#include "cli/command.h"
#include "cli/http_client.h"
#include "cli/ssd_client.h"
#include "common/cli.h"
#include "common/fsutil.h"

#define PROG "schedio bench"
#define FILL_DEPTH 16

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal; /* no SA_RESTART: a wait in io_uring returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Writes the new test file once, sequentially: reads of never-written blocks cost a
 * filesystem nothing, and the fill warms the disk up for the write phases. */
static int fill(struct bench_engine *e, uint64_t size, struct bench_progress *pg)
{
	uint64_t t = bench_now_ns();
	int err;

	bench_engine_job(e, 1, 0, 1u << 20, size >> 20);
	bench_engine_set_depth(e, FILL_DEPTH);
	do {
		t += 500000000u;
		err = bench_engine_run(e, t, &stop_signal);
		bench_progress_fill(pg, e->bytes, size);
	} while (!err && e->bytes < size);
	if (pg->tty)
		fprintf(stderr, "\r\033[K");
	if (bench_engine_drain(e) && !err)
		err = e->error;
	return err;
}

static int submit(const struct bench_options *o, const char *body)
{
	struct http_result res;
	char msg[600];
	int rc = 1;

	if (http_client_request(o->client.server, "POST", "/api/v1/ssd/results", o->client.token, body, strlen(body),
				"application/json", &res) < 0 ||
	    (res.status != 200 && res.status != 201)) {
		fprintf(stderr, "%s: submit failed: %s\n", PROG, ssd_client_error(&res, msg, sizeof(msg)));
	} else {
		cJSON *doc = cJSON_Parse(res.body);
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "id");

		fprintf(stderr, "%s: submitted: %s %s\n", PROG, cJSON_IsString(id) ? id->valuestring : "?",
			res.status == 201 ? "new" : "duplicate");
		cJSON_Delete(doc);
		rc = 0;
	}
	http_client_result_free(&res);
	return rc;
}

/* Prints and saves the result; returns the exit status. */
static int report(const struct bench_options *o, const struct bench_result *r)
{
	cJSON *doc = bench_result_json(r), *warnings;
	char line[512], *text = NULL;
	int rc = 0, err;

	if (!doc)
		return 1;
	text = cJSON_Print(doc);
	if (!text) {
		rc = 1;
		goto out;
	}
	warnings = cJSON_GetObjectItemCaseSensitive(doc, "warnings");
	for (int i = 0; i < cJSON_GetArraySize(warnings); i++) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(warnings, i), "message");

		fprintf(stderr, "%s: warning: %s\n", PROG, m->valuestring);
	}
	if (!r->disk.model[0])
		fprintf(stderr,
			"%s: note: %s reports no model (virtio, device-mapper?): the result cannot be filed in "
			"the SSD database\n",
			PROG, r->disk.name);
	if (o->phases != 0x3f)
		fprintf(stderr, "%s: note: not all six parameters measured: the kernel keeps its own for the others\n",
			PROG);
	if (o->output) {
		err = fs_write_atomic(o->output, text, strlen(text));
		if (err) {
			fprintf(stderr, "%s: cannot write %s: %s\n", PROG, o->output, strerror(-err));
			rc = 1;
		}
	}
	if (o->json) {
		printf("%s\n", text);
	} else {
		bench_result_model_line(r, line, sizeof(line));
		printf("%s\n", line);
	}
	fflush(stdout);
	if (o->submit) {
		if (!r->disk.model[0]) {
			fprintf(stderr, "%s: not submitted: the disk has no model name to file it under\n", PROG);
			rc = 1;
		} else if (submit(o, text)) {
			rc = 1;
		}
	}
out:
	free(text);
	cJSON_Delete(doc);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_safety_env env = { "/sys", "/proc/self/mountinfo", "/proc/swaps" };
	struct bench_phase_result *phases = NULL;
	struct bench_result result = { 0 };
	struct bench_options o;
	struct bench_target t = { .fd = -1 };
	struct bench_engine e = { 0 };
	struct bench_phase_params pp;
	struct bench_progress pg;
	struct timespec wall;
	struct utsname un;
	struct stat st;
	char why[1024];
	uint64_t t0;
	int rc = 1, err = 0, engine_open = 0;
	unsigned count = 0;

	if (bench_options_parse(argc, argv, &o, why, sizeof(why)))
		cli_usage_error(PROG, "%s", why);
	if (o.help) {
		bench_options_usage();
		return 0;
	}
	env.sysfs_root = o.sysfs_root;
	catch_signals();
	clock_gettime(CLOCK_REALTIME, &wall);
	result.started_ms = (uint64_t)wall.tv_sec * 1000 + (uint64_t)wall.tv_nsec / 1000000;
	t0 = bench_now_ns();

	/* the disk first: a target with no disk behind it is refused before anything is made */
	if (stat(o.target, &st)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, o.target, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: " BENCH_TARGET_KIND_MSG "\n", PROG, o.target);
		return CLI_EXIT_USAGE;
	}
	if (bench_device_identify(env.sysfs_root, S_ISBLK(st.st_mode) ? major(st.st_rdev) : major(st.st_dev),
				  S_ISBLK(st.st_mode) ? minor(st.st_rdev) : minor(st.st_dev), &result.disk)) {
		fprintf(stderr, "%s: %s: no block device behind it (tmpfs, overlay, a network filesystem?)\n", PROG,
			o.target);
		return CLI_EXIT_USAGE;
	}
	err = bench_target_open(&t, o.target, bench_options_writes(o.phases), o.destructive, o.force, o.size, &env, why,
				sizeof(why));
	if (err) {
		if (err > 0)
			fprintf(stderr, "%s: %s\n", PROG, why);
		else
			fprintf(stderr, "%s: %s: %s\n", PROG, o.target, strerror(-err));
		return err > 0 ? CLI_EXIT_USAGE : 1;
	}
	result.target = t.kind == BENCH_TARGET_BLOCK ? "block" : "file";
	uname(&un);
	snprintf(result.kernel, sizeof(result.kernel), "%s", un.release);
	phases = calloc(6, sizeof(*phases));
	if (!phases) {
		err = -ENOMEM;
		goto out;
	}
	err = bench_engine_open(&e, t.fd, t.size);
	if (err) {
		fprintf(stderr, "%s: io_uring: %s\n", PROG, strerror(-err));
		goto out;
	}
	engine_open = 1;
	for (unsigned i = 0; i < 6; i++)
		count += (o.phases >> i) & 1;
	bench_progress_init(&pg, count);
	if (t.need_fill) {
		err = fill(&e, t.size, &pg);
		if (err)
			goto out;
	}
	bench_phase_defaults(&pp, o.min_phase, o.max_phase, o.max_depth);
	pp.fixed_depth = o.depth;
	pp.stop = &stop_signal;
	pp.progress = bench_progress_step;
	pp.ctx = &pg;
	for (unsigned i = 0; i < 6 && !err; i++) {
		if (!((o.phases >> i) & 1))
			continue;
		pg.index++;
		err = bench_phase_run(&e, &bench_phase_specs[i], &pp, &phases[i]);
		if (!err) {
			bench_progress_phase_done(&pg, &phases[i]);
			result.phases[result.nphases++] = &phases[i];
		}
	}
out:
	if (engine_open) {
		bench_engine_drain(&e);
		bench_engine_close(&e);
	}
	bench_target_close(&t); /* removes the test file, also when interrupted */
	if (pg.tty && err)
		fprintf(stderr, "\n");
	if (stop_signal) {
		fprintf(stderr, "%s: interrupted by signal %d; the test file (if any) is removed\n", PROG,
			(int)stop_signal);
		rc = 128 + stop_signal;
	} else if (err) {
		fprintf(stderr, "%s: %s: IO failed: %s\n", PROG, o.target, strerror(-err));
		rc = 1;
	} else {
		result.duration_s = (double)(bench_now_ns() - t0) / 1e9;
		rc = report(&o, &result);
	}
	free(phases);
	return rc;
}
