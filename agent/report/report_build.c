/* report_build.c - one report per interval: the header fields the server needs to
 * store it exactly once (schema, seq, interval), then each collector's part.
 * A collector that fails for one interval is left out of that report and
 * logged; the report still goes out, so one broken source never silences a
 * host.
 */
#include "agent/report/report_build.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "agent/report/collector.h"
#include "common/log.h"
#include "version.h"

uint64_t report_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The state of a collector the configuration leaves out. */
static char report_disabled;

int report_open_collectors(const struct agent_options *opt, void **states)
{
	int err;

	for (int i = 0; collectors[i]; i++) {
		states[i] = NULL;
		if (collector_listed(opt->disable, collectors[i]->name)) {
			states[i] = &report_disabled;
			continue;
		}
		err = collectors[i]->open(opt, &states[i]);
		if (err) {
			for (int k = i - 1; k >= 0; k--)
				if (states[k] != &report_disabled)
					collectors[k]->close(states[k]);
			return err;
		}
	}
	return 0;
}

void report_close_collectors(void **states)
{
	for (int i = 0; collectors[i]; i++)
		if (states[i] != &report_disabled)
			collectors[i]->close(states[i]);
}

void report_begin_collectors(void **states)
{
	cJSON *scratch = cJSON_CreateObject();

	/* A collection whose result is thrown away: what a collector counted
	 * since it was opened (the BPF attach, the first io.stat read) belongs to
	 * no interval, and collect() is what starts the next one. */
	for (int i = 0; scratch && collectors[i]; i++)
		if (states[i] != &report_disabled)
			collectors[i]->collect(states[i], scratch);
	cJSON_Delete(scratch);
}

cJSON *report_build(void **states, const char *incarnation, uint64_t seq, uint64_t start_ms, uint64_t end_ms)
{
	cJSON *rep = cJSON_CreateObject(), *iv, *agent;

	if (!rep)
		return NULL;
	cJSON_AddStringToObject(rep, "schema", REPORT_SCHEMA);
	cJSON_AddNumberToObject(rep, "seq", (double)seq);
	agent = cJSON_AddObjectToObject(rep, "agent");
	iv = cJSON_AddObjectToObject(rep, "interval");
	if (!agent || !iv || !cJSON_AddObjectToObject(rep, "host")) {
		cJSON_Delete(rep);
		return NULL;
	}
	cJSON_AddStringToObject(agent, "version", SCHEDIO_VERSION);
	cJSON_AddStringToObject(agent, "incarnation", incarnation);
	cJSON_AddNumberToObject(iv, "start_ms", (double)start_ms);
	cJSON_AddNumberToObject(iv, "end_ms", (double)end_ms);
	for (int i = 0; collectors[i]; i++) {
		int err = states[i] == &report_disabled ? 0 : collectors[i]->collect(states[i], rep);

		if (err)
			log_warn("collector %s failed this interval: %s", collectors[i]->name, strerror(-err));
	}
	return rep;
}
