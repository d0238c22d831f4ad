/* main.c - schedio-agent's command line and its interval loop. With --once
 * it collects one interval and prints or sends the report; otherwise it
 * reports every --interval seconds until SIGINT/SIGTERM, closing every
 * collector (and so detaching every BPF program) on the way out.
 */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/collector.h"
#include "agent/push.h"
#include "agent/report.h"
#include "agent/seq.h"
#include "common/cli.h"
#include "common/fsutil.h"
#include "common/log.h"

static const char *prog = "schedio-agent";
static volatile sig_atomic_t stop_signal;

struct agent_args {
	struct agent_options opt;
	bool once;
	bool to_stdout;
	bool pretty;
	uint64_t duration_s;
	uint64_t interval_s;
	const char *server;
	const char *token;
	const char *state_dir;
};

static void usage(void)
{
	printf("Usage: %s [OPTION]...\n"
	       "\n"
	       "Measures runqueue latency and IO cost vs weight on this host and reports them to a schedio server.\n"
	       "\n"
	       "  --once                 collect one interval, report it, exit\n"
	       "  --duration SECONDS     length of the --once interval (default 10)\n"
	       "  --stdout               print reports as JSON instead of sending them\n"
	       "  --pretty               indent printed JSON\n"
	       "  --server URL           server to send reports to (e.g. http://127.0.0.1:8080)\n"
	       "  --token TOKEN          bearer token for the server\n"
	       "  --interval SECONDS     reporting interval (default 10)\n"
	       "  --state-dir DIR        where seq is kept across restarts\n"
	       "  --cgroup-depth N       deeper cgroups count in their ancestor at depth N (default 2)\n"
	       "  -v, --verbose          log debug lines\n"
	       "  -h, --help             show this help and exit\n"
	       "  -V, --version          show the version and exit\n",
	       prog);
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void parse_args(struct agent_args *a, int argc, char **argv)
{
	enum { O_ONCE = 256, O_DURATION, O_STDOUT, O_PRETTY, O_SERVER, O_TOKEN, O_INTERVAL, O_STATE, O_DEPTH };
	static const struct option opts[] = {
		{ "once", no_argument, NULL, O_ONCE },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "stdout", no_argument, NULL, O_STDOUT },
		{ "pretty", no_argument, NULL, O_PRETTY },
		{ "server", required_argument, NULL, O_SERVER },
		{ "token", required_argument, NULL, O_TOKEN },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "state-dir", required_argument, NULL, O_STATE },
		{ "cgroup-depth", required_argument, NULL, O_DEPTH },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "vhV", opts, NULL)) != -1) {
		switch (c) {
		case O_ONCE:
			a->once = true;
			break;
		case O_DURATION:
			if (cli_parse_u64(optarg, 1, 86400, &a->duration_s))
				cli_usage_error(prog, "--duration wants seconds 1..86400, not '%s'", optarg);
			break;
		case O_STDOUT:
			a->to_stdout = true;
			break;
		case O_PRETTY:
			a->pretty = true;
			break;
		case O_SERVER:
			if (strncmp(optarg, "http://", 7) && strncmp(optarg, "https://", 8))
				cli_usage_error(prog, "--server wants an http:// or https:// URL, not '%s'", optarg);
			a->server = optarg;
			break;
		case O_TOKEN:
			a->token = optarg;
			break;
		case O_INTERVAL:
			if (cli_parse_u64(optarg, 1, 3600, &a->interval_s))
				cli_usage_error(prog, "--interval wants seconds 1..3600, not '%s'", optarg);
			break;
		case O_STATE:
			a->state_dir = optarg;
			break;
		case O_DEPTH:
			if (cli_parse_u64(optarg, 0, 16, &v))
				cli_usage_error(prog, "--cgroup-depth wants 0..16, not '%s'", optarg);
			a->opt.cgroup_depth = (unsigned)v;
			break;
		case 'v':
			log_init(prog, LOG_DEBUG);
			break;
		case 'h':
			usage();
			exit(0);
		case 'V':
			cli_print_version(prog);
			exit(0);
		default:
			cli_bad_option(prog, argc, argv);
		}
	}
	if (optind < argc)
		cli_usage_error(prog, "unexpected argument '%s'", argv[optind]);
	if (!a->to_stdout && !a->server)
		cli_usage_error(prog, "say where reports go: --server URL or --stdout");
	if (!a->once && a->to_stdout && a->server)
		cli_usage_error(prog, "--stdout and --server exclude each other");
}

/* Sleeps until deadline_ms or a stop signal; returns false if stopped early. */
static bool sleep_until(uint64_t deadline_ms)
{
	while (!stop_signal) {
		uint64_t now = report_now_ms();

		if (now >= deadline_ms)
			return true;
		poll(NULL, 0, (int)(deadline_ms - now > 1000 ? 1000 : deadline_ms - now));
	}
	return false;
}

static int emit(const struct agent_args *a, struct push *push, cJSON *rep)
{
	char *text = a->pretty ? cJSON_Print(rep) : cJSON_PrintUnformatted(rep);
	char err[512];
	long status;
	int rc = 0;

	if (!text)
		return -ENOMEM;
	if (a->to_stdout) {
		if (printf("%s\n", text) < 0 || fflush(stdout) != 0)
			rc = -EIO;
	} else {
		status = push_report(push, text, strlen(text), err, sizeof(err));
		if (status < 0)
			log_warn("report not delivered: %s", err);
		else if (status < 200 || status > 299)
			log_warn("report not accepted: server answered %ld", status);
		rc = status >= 200 && status <= 299 ? 0 : -EAGAIN;
	}
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	struct agent_args a = {
		.opt = { .cgroup_depth = 2 },
		.duration_s = 10,
		.interval_s = 10,
	};
	void *states[16] = { 0 };
	struct push *push = NULL;
	uint64_t seq_mem = 0, start_ms;
	int rc = 1, err;

	log_init(prog, LOG_INFO);
	parse_args(&a, argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (a.state_dir && (err = fs_mkdir_p(a.state_dir)) < 0) {
		fprintf(stderr, "%s: cannot create state folder %s: %s\n", prog, a.state_dir, strerror(-err));
		return 1;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (a.server) {
		push = push_new(a.server, a.token);
		if (!push) {
			fprintf(stderr, "%s: cannot set up HTTP delivery\n", prog);
			goto out;
		}
	}
	if (report_open_collectors(&a.opt, states) < 0)
		goto out;
	start_ms = report_now_ms();
	do {
		uint64_t period = (a.once ? a.duration_s : a.interval_s) * 1000, end_ms, seq;
		cJSON *rep;

		sleep_until(start_ms + period);
		if (stop_signal && a.once)
			break; /* an interrupted --once interval is not a full interval */
		end_ms = report_now_ms();
		err = seq_next(a.state_dir, &seq_mem, &seq);
		if (err) {
			log_error("cannot persist seq in %s: %s", a.state_dir, strerror(-err));
			goto out_close;
		}
		rep = report_build(states, seq, start_ms, end_ms);
		if (!rep) {
			log_error("out of memory building a report");
			goto out_close;
		}
		err = emit(&a, push, rep);
		cJSON_Delete(rep);
		if (err && a.once && a.to_stdout)
			goto out_close;
		start_ms = end_ms;
	} while (!a.once && !stop_signal);
	rc = stop_signal && a.once ? 1 : 0;
out_close:
	report_close_collectors(states);
out:
	push_free(push);
	curl_global_cleanup();
	return rc;
}
