/* main.c - schedio-agent's command line. The configuration is built in
 * layers: defaults, then agent.conf, then flags (every key is also a flag),
 * and the same function rebuilds it on SIGHUP, so a reload means exactly
 * what a restart would. --once collects one interval and prints or sends it
 * directly; otherwise the daemon loop (daemon.c) runs until SIGTERM/SIGINT,
 * closing every collector (and so detaching every BPF program) on the way out.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/report/collector.h"
#include "agent/config.h"
#include "agent/delivery/curl_lib.h"
#include "agent/daemon.h"
#include "agent/delivery/push.h"
#include "agent/report/report_build.h"
#include "agent/host/sched_ext.h"
#include "agent/host/sched_ext_watch.h"
#include "agent/delivery/seq.h"
#include "common/cli.h"
#include "common/cli_opts.h"
#include "common/fsutil.h"
#include "common/log.h"

static const char *prog = "schedio-agent";
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t hup_signal;

/* room for every key once and LABELS_MAX labels, with some set twice */
#define MAX_FLAG_KEYS 96

struct agent_args {
	const char *config_path;
	bool config_explicit;
	bool check_config;
	bool once;
	bool to_stdout;
	bool pretty;
	bool server_flag;
	uint64_t duration_s;
	/* key = value pairs from flags, applied over the file at start and at every reload */
	const char *keys[MAX_FLAG_KEYS];
	const char *values[MAX_FLAG_KEYS];
	int nkeys;
	/* argv with --label.K=V rewritten; values above point into it for the program's life */
	char **argv;
};

static struct agent_args args = {
	.config_path = CONFIG_DEFAULT_PATH,
	.duration_s = 10,
};

static void usage(void)
{
	printf(
	    "Usage: %s [OPTION]...\n"
	    "\n"
	    "Measures runqueue latency and IO cost vs weight on this host and reports them to a schedio server.\n"
	    "Runs as a daemon: a report every interval goes to an on-disk spool first and leaves it only once\n"
	    "the server has stored it.\n"
	    "\n"
	    "  --config FILE          configuration (default " CONFIG_DEFAULT_PATH ", optional when absent)\n"
	    "  --check-config         validate the file and these flags as a start or reload would, print the\n"
	    "                         configuration the agent would use and exit (1 when it would refuse it)\n"
	    "  --once                 collect one interval, report it, exit\n"
	    "  --duration SECONDS     length of the --once interval (default 10)\n"
	    "  --stdout               print reports as JSON instead of sending them\n"
	    "  --pretty               indent printed JSON\n"
	    "Every configuration key is also a flag (flags win over the file):\n"
	    "  --server URL           server to send reports to (e.g. https://schedio.example:8443)\n"
	    "  --token TOKEN          bearer token for the server\n"
	    "  --token-file FILE      file holding the token (better than --token: not in ps)\n"
	    "  --interval SECONDS     reporting interval (default 10)\n"
	    "  --state-dir DIR        where seq is kept (default " CONFIG_DEFAULT_STATE_DIR ")\n"
	    "  --spool-dir DIR        unsent reports (default STATE_DIR/spool)\n"
	    "  --spool-max-bytes N    spool cap, K/M/G suffixes allowed (default 64M); oldest dropped first\n"
	    "  --cgroup-depth N       deeper cgroups count in their ancestor at depth N (default 2)\n"
	    "  --ca-file FILE         PEM CA certificates to verify an https server with\n"
	    "  --backoff-max SECONDS  longest wait between delivery retries (default 60)\n"
	    "  --disable LIST         collectors to leave out, comma-separated (runqlat, iocost, sched_ext, topology,\n"
	    "                         agent_cost)\n"
	    "  --label.KEY=VALUE, --label KEY=VALUE\n"
	    "                         a host label (label.KEY = VALUE in the file), reported as host.labels; KEY is\n"
	    "                         a-z then a-z, 0-9, _ (63 bytes), VALUE 1..128 bytes of printable ASCII but\n"
	    "                         \" \\ , =; at most 32 labels\n"
	    "  -v, --verbose          log debug lines\n"
	    "  -h, --help             show this help and exit\n"
	    "  -V, --version          show the version and exit\n"
	    "Signals: SIGTERM/SIGINT spool the interval in progress and exit; SIGHUP reloads the configuration.\n",
	    prog);
}

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_signal = 1;
	else
		stop_signal = sig;
}

static void add_key(const char *key, const char *value)
{
	char err[512], flag[96];
	struct agent_config probe;

	/* Checked now so a bad flag is a usage error (exit 2), not a start-up failure. */
	config_defaults(&probe);
	snprintf(flag, sizeof(flag), "%s", key);
	for (char *p = flag; *p && strncmp(key, "label.", 6) != 0; p++)
		if (*p == '_')
			*p = '-';
	if (config_set(&probe, key, value, err, sizeof(err)) < 0)
		cli_usage_error(prog, "--%s: %s", flag, err);
	if (args.nkeys == MAX_FLAG_KEYS)
		cli_usage_error(prog, "too many options");
	args.keys[args.nkeys] = key;
	args.values[args.nkeys] = value;
	args.nkeys++;
}

/* --label K=V: the key "label.K" (kept for the program's life, as flags' values are). */
static void add_label(const char *kv)
{
	const char *eq = strchr(kv, '=');
	char *key;

	if (!eq)
		cli_usage_error(prog, "--label wants KEY=VALUE, not '%s'", kv);
	if (asprintf(&key, "label.%.*s", (int)(eq - kv), kv) < 0)
		cli_usage_error(prog, "out of memory");
	add_key(key, eq + 1);
}

/* getopt_long knows no option named after its argument, so --label.K=V and --label.K V are
 * rewritten to --label K=V first (up to a "--", which ends the options). */
static char **label_flags_rewritten(int argc, char **argv)
{

	char **out = calloc(2 * (size_t)argc + 1, sizeof(*out)); /* each --label.K=V becomes two */
	int o = 0;

	if (!out)
		cli_usage_error(prog, "out of memory");
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *k = a + 8;
		char *kv = NULL;

		if (strcmp(a, "--") == 0) {
			while (i < argc)
				out[o++] = argv[i++];
			break;
		}
		if (strncmp(a, "--label.", 8) != 0) {
			out[o++] = argv[i];
			continue;
		}
		if (strchr(k, '='))
			kv = strdup(k);
		else if (i + 1 < argc && asprintf(&kv, "%s=%s", k, argv[i + 1]) >= 0)
			i++;
		else
			cli_usage_error(prog, "%s wants a value (--label.KEY=VALUE)", a);
		if (!kv)
			cli_usage_error(prog, "out of memory");
		out[o++] = "--label";
		out[o++] = kv;
	}
	out[o] = NULL;
	return out;
}

static void parse_args(int argc, char **argv)
{
	enum { O_CONFIG = 256, O_CHECK, O_ONCE, O_DURATION, O_STDOUT, O_PRETTY, O_LABEL, O_KEY };
	/* Flags that set a configuration key carry O_KEY + the index into key_names. */
	static const char *const key_names[] = { "server",    "token",       "token_file",      "interval",
						 "state_dir", "spool_dir",   "spool_max_bytes", "cgroup_depth",
						 "ca_file",   "backoff_max", "disable" };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, O_CONFIG },
		{ "check-config", no_argument, NULL, O_CHECK },
		{ "once", no_argument, NULL, O_ONCE },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "stdout", no_argument, NULL, O_STDOUT },
		{ "pretty", no_argument, NULL, O_PRETTY },
		{ "label", required_argument, NULL, O_LABEL },
		{ "server", required_argument, NULL, O_KEY + 0 },
		{ "token", required_argument, NULL, O_KEY + 1 },
		{ "token-file", required_argument, NULL, O_KEY + 2 },
		{ "interval", required_argument, NULL, O_KEY + 3 },
		{ "state-dir", required_argument, NULL, O_KEY + 4 },
		{ "spool-dir", required_argument, NULL, O_KEY + 5 },
		{ "spool-max-bytes", required_argument, NULL, O_KEY + 6 },
		{ "cgroup-depth", required_argument, NULL, O_KEY + 7 },
		{ "ca-file", required_argument, NULL, O_KEY + 8 },
		{ "backoff-max", required_argument, NULL, O_KEY + 9 },
		{ "disable", required_argument, NULL, O_KEY + 10 },
		CLI_OPTS_COMMON,
	};
	int c;

	args.argv = argv = label_flags_rewritten(argc, argv);
	for (argc = 0; argv[argc]; argc++)
		;
	while ((c = getopt_long(argc, argv, "vhV", opts, NULL)) != -1) {
		if (c >= O_KEY && c < O_KEY + (int)(sizeof(key_names) / sizeof(key_names[0]))) {
			add_key(key_names[c - O_KEY], optarg);
			if (c == O_KEY)
				args.server_flag = true;
			continue;
		}
		switch (c) {
		case O_CONFIG:
			args.config_path = optarg;
			args.config_explicit = true;
			break;
		case O_CHECK:
			args.check_config = true;
			break;
		case O_ONCE:
			args.once = true;
			break;
		case O_DURATION:
			if (cli_parse_u64(optarg, 1, 86400, &args.duration_s))
				cli_usage_error(prog, "--duration wants seconds 1..86400, not '%s'", optarg);
			break;
		case O_STDOUT:
			args.to_stdout = true;
			break;
		case O_PRETTY:
			args.pretty = true;
			break;
		case O_LABEL:
			add_label(optarg);
			break;
		default:
			cli_opts_common(prog, c, argc, argv, usage);
		}
	}
	cli_opts_no_operands(prog, argc, argv);
	if (!args.once && args.to_stdout && args.server_flag)
		cli_usage_error(prog, "--stdout and --server exclude each other");
}

/* Defaults, then the file, then the flags: the whole configuration before validation. */
static int build_config(struct agent_config *cfg, bool *state_dir_set, char *err, size_t errlen)
{
	int rc;

	config_defaults(cfg);
	rc = config_load_file(cfg, args.config_path, args.config_explicit, err, errlen);
	if (rc < 0)
		return -1;
	/* The default state folder is only assumed by the daemon; --once keeps seq in memory unless told. */
	*state_dir_set = rc == 0 && strcmp(cfg->state_dir, CONFIG_DEFAULT_STATE_DIR) != 0;
	for (int i = 0; i < args.nkeys; i++) {
		if (config_set(cfg, args.keys[i], args.values[i], err, errlen) < 0)
			return -1;
		if (strcmp(args.keys[i], "state_dir") == 0)
			*state_dir_set = true;
	}
	return 0;
}

/* The daemon's whole validation, at start, on SIGHUP and for --check-config alike: what
 * --check-config (and so the unit's ExecReload) accepts is exactly what a reload accepts. */
static int reload_config(struct agent_config *cfg, char *err, size_t errlen)
{
	bool state_dir_set;

	if (build_config(cfg, &state_dir_set, err, errlen) < 0)
		return -1;
	return config_finish(cfg, err, errlen);
}

/* Sleeps until deadline_ms or a stop signal. */
static void sleep_until(uint64_t deadline_ms)
{
	while (!stop_signal) {
		uint64_t now = report_now_ms();

		if (now >= deadline_ms)
			return;
		poll(NULL, 0, (int)(deadline_ms - now > 1000 ? 1000 : deadline_ms - now));
	}
}

/* --once, or --stdout without --once: reports printed or sent straight, no spool (a --once run has
 * no later run to retry it; printed reports cannot fail to arrive). */
static int run_direct(const struct agent_config *cfg, const char *state_dir, void **states)
{
	uint64_t period = (args.once ? args.duration_s : cfg->interval_s) * 1000;
	uint64_t seq_mem = 0, seq, start_ms, end_ms;
	char incarnation[SEQ_INCARNATION_LEN + 1];
	struct push *push = NULL;
	char err[1024];
	int rc = 1, e;

	e = seq_incarnation_new(incarnation);
	if (e) {
		log_error("cannot make an incarnation id: %s", strerror(-e));
		return 1;
	}
	if (!args.to_stdout) {
		push = push_new(cfg->server, cfg->token, cfg->ca_file[0] ? cfg->ca_file : NULL, &stop_signal);
		if (!push) {
			log_error("cannot set up HTTP delivery");
			return 1;
		}
	}
	/* The first report holds exactly the samples of its interval, none from before it. */
	report_begin_collectors(states);
	start_ms = report_now_ms();
	log_info("first interval started at %llu ms: samples count from here", (unsigned long long)start_ms);
	do {
		char *text;
		cJSON *rep;
		long status;

		sleep_until(start_ms + period);
		if (stop_signal && args.once)
			goto out; /* an interrupted --once interval is not a full interval */
		end_ms = report_now_ms();
		e = seq_next(state_dir, &seq_mem, &seq);
		if (e) {
			log_error("cannot persist seq in %s: %s", state_dir, strerror(-e));
			goto out;
		}
		rep = report_build(states, incarnation, seq, start_ms, end_ms);
		if (rep && config_labels_to_json(cfg, rep) < 0) {
			cJSON_Delete(rep);
			rep = NULL;
		}
		text = rep ? (args.pretty ? cJSON_Print(rep) : cJSON_PrintUnformatted(rep)) : NULL;
		cJSON_Delete(rep);
		if (!text) {
			log_error("out of memory building a report");
			goto out;
		}
		if (args.to_stdout) {
			e = printf("%s\n", text) < 0 || fflush(stdout) != 0;
			if (e && args.once) {
				free(text);
				goto out;
			}
		} else {
			if (push_report(push, text, strlen(text), &status, err, sizeof(err)) != PUSH_OK)
				log_warn("report not delivered: %s", err);
			push_rest(push);
		}
		free(text);
		start_ms = end_ms;
	} while (!args.once && !stop_signal);
	rc = 0;
out:
	push_free(push);
	return rc;
}

/* True when this kernel has sched_ext and a collector that follows it is on. */
static bool sched_ext_wanted(const struct agent_options *opt)
{
	if (!sched_ext_state_supported(SCHED_EXT_STATE_ROOT))
		return false;
	return !collector_listed(opt->disable, "sched_ext") || !collector_listed(opt->disable, "runqlat");
}

int main(int argc, char **argv)
{
	struct agent_config cfg;
	struct agent_options opt;
	struct sigaction sa = { .sa_handler = on_signal };
	void *states[16] = { 0 };
	bool state_dir_set = false;
	char err[1024];
	int rc = 1, e;

	log_init(prog, LOG_INFO);
	parse_args(argc, argv);
	if (build_config(&cfg, &state_dir_set, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return 1;
	}
	if (!args.to_stdout && !cfg.server[0])
		cli_usage_error(prog, "say where reports go: --server URL (or server = URL in %s) or --stdout",
				args.config_path);
	if (args.check_config || (!args.once && !args.to_stdout)) {
		if (reload_config(&cfg, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return 1;
		}
		state_dir_set = true;
	} else if (cfg.token_file[0] && config_finish(&cfg, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return 1;
	}
	if (args.check_config) {
		/* Read now from the file and these flags: a running agent may hold an older one. */
		printf("# the configuration the agent would use at start or reload (%s%s, then flags);\n"
		       "# not necessarily the running agent's\n",
		       args.config_path, access(args.config_path, F_OK) == 0 ? "" : ": absent");
		config_print(&cfg, stdout);
		return 0;
	}
	/* No SA_RESTART: a signal must cut a sleep short so SIGTERM exits within 2 s. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (state_dir_set && (e = fs_mkdir_p(cfg.state_dir)) < 0) {
		log_error("cannot create state folder %s: %s", cfg.state_dir, strerror(-e));
		return 1;
	}
	opt.cgroup_depth = cfg.cgroup_depth;
	opt.disable = cfg.disable;
	opt.bpf_stats_sample_ms = cfg.bpf_stats_sample_ms;
	opt.bpf_stats_period_ms = cfg.bpf_stats_period_s * 1000;
	/* Large buffers (libbpf's copy of the kernel BTF) are mmap'd and unmapped
	 * on free rather than kept in the heap, so the collectors' BPF loads, one
	 * after another, do not stack up in the peak resident size. */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	opt.sched_watch = NULL;
	if (sched_ext_wanted(&opt) && (e = sched_ext_watch_sysfs(&opt.sched_watch, SCHED_EXT_STATE_ROOT)) < 0) {
		log_error("cannot follow the sched_ext state: %s", strerror(-e));
		goto out;
	}
	if (opt.sched_watch)
		log_info("sched_ext: followed %s", sched_ext_watch_on_uevents(opt.sched_watch)
						       ? "on kernel uevents (and polled every second)"
						       : "by polling every 100 ms");
	if (report_open_collectors(&opt, states) < 0)
		goto out;
	/* Loading BPF programs parses the kernel's BTF: several MiB of heap, freed
	 * after the load but kept by malloc. Hand those pages back so the daemon's
	 * resident size is what it goes on using (~10 MiB rather than ~21). */
	malloc_trim(0);
	if (args.once || args.to_stdout)
		rc = run_direct(&cfg, state_dir_set ? cfg.state_dir : NULL, states);
	else
		rc = daemon_run(&cfg, reload_config, states, &stop_signal, &hup_signal);
	report_close_collectors(states);
out:
	sched_ext_watch_stop(opt.sched_watch);
	curl_lib_release();
	return rc;
}
