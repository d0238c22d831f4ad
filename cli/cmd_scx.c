/* cmd_scx.c - `schedio scx run`: load a sched_ext scheduler, show what it
 * does, unload it.
 *
 * The article's loop: a scheduling policy is a BPF program loaded at run
 * time, measured, and replaced. This command loads one of the two built-in
 * policies (scx_fifo, scx_llc) or any object built the same way (--object),
 * prints its counters every few seconds and unregisters it on SIGINT/SIGTERM
 * or after --duration; the kernel then falls back to the fair class. If the
 * kernel throws the scheduler out first (the watchdog, or an error in it),
 * the kernel's exit reason is printed and the status is 3.
 *
 * A signal before the kernel is asked to register the scheduler ends the
 * process at once (status 128 + the signal): nothing it loaded outlives its
 * file descriptors, so an interrupted load never leaves a scheduler
 * attached, even briefly. From the registering call on, SIGINT and SIGTERM
 * are held until the kernel answers and then detach.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cli/command.h"
#include "cli/scx/scx_libbpf.h"
#include "cli/scx/scx_sched.h"
#include "cli/scx/scx_state.h"
#include "cli/scx/scx_topology.h"
#include "common/cli.h"
#include "common/sched_ext_state.h"

#ifdef SCHEDIO_HAVE_SCX
#include "scx_fifo.skel.h"
#include "scx_llc.skel.h"
#endif

#define PROG "schedio scx"
#define EXIT_EJECTED 3
#define MAX_SETTINGS 64
#define INTERRUPTED_MSG PROG ": interrupted before the scheduler was attached; nothing was registered\n"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t attaching; /* set once registering begins */

static void on_signal(int sig)
{
	static const char msg[] = INTERRUPTED_MSG;
	ssize_t n;

	if (!attaching) {
		n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)n;
		_exit(128 + sig);
	}
	stop_requested = sig;
}

struct scx_run_opts {
	const char *which; /* "fifo", "llc", or NULL with object */
	const char *object;
	const char *domains;
	uint32_t timeout_ms;
	uint64_t steal_after_ns;
	uint64_t duration_s; /* 0: until a signal */
	uint64_t interval_s;
	bool partial;                        /* only SCHED_EXT tasks (SCX_OPS_SWITCH_PARTIAL) */
	const char *sets[MAX_SETTINGS];      /* --set NAME=VALUE, as given */
	const char *map_sizes[MAX_SETTINGS]; /* --map-size MAP=N, N checked */
	int nr_sets, nr_map_sizes;
};

static void usage(void)
{
	printf("Usage: schedio scx run fifo|llc [OPTION]...\n"
	       "       schedio scx run --object FILE.bpf.o [OPTION]...\n"
	       "       schedio scx version   the libbpf that loads the schedulers\n"
	       "\n"
	       "Loads a sched_ext scheduler, prints its counters every few seconds and\n"
	       "unloads it on Ctrl-C/SIGTERM (the kernel falls back to the fair class).\n"
	       "  fifo               one global FIFO queue (scx_fifo)\n"
	       "  llc                one queue per L3 cache domain, stealing when empty (scx_llc)\n"
	       "  --object FILE      any scheduler object with one sched_ext_ops in SEC(\".struct_ops\")\n"
	       "                     or SEC(\".struct_ops.link\");\n"
	       "                     its own name, flags and other data are kept; its\n"
	       "                     __SCX_* globals get the kernel's values, nr_cpu_ids and\n"
	       "                     the like the CPU count\n"
	       "  --set NAME=VALUE   --object: set a const volatile (rodata) integer or bool\n"
	       "  --map-size MAP=N   --object: give map MAP N entries (max_entries)\n"
	       "  --timeout-ms N     watchdog: the kernel ejects the scheduler if a task waits\n"
	       "                     this long (default: the object's own, else the kernel's, 30000)\n"
	       "  --steal always|after:N|never   llc: steal from other domains at once (default),\n"
	       "                     only after the own domain has been empty N microseconds,\n"
	       "                     or never (a CPU idles while another domain's tasks wait)\n"
	       "  --domains SPEC     llc: domains by hand, e.g. 0-1/2-3 (default: L3 from sysfs)\n"
	       "  --partial          schedule only tasks whose policy is SCHED_EXT (7); the rest\n"
	       "                     stay with the kernel's classes (default: every normal task)\n"
	       "  --duration S       unload after S seconds (default: run until a signal)\n"
	       "  --interval S       seconds between counter lines (default 2)\n"
	       "\n"
	       "Exit status: 0 unloaded by us, 1 error, 2 usage, 3 the kernel ejected the scheduler.\n");
}

static void parse_steal(const char *arg, struct scx_run_opts *o)
{
	uint64_t us;

	if (strcmp(arg, "always") == 0) {
		o->steal_after_ns = 0;
		return;
	}
	if (strcmp(arg, "never") == 0) {
		o->steal_after_ns = SCHEDIO_SCX_STEAL_NEVER;
		return;
	}
	if (strncmp(arg, "after:", 6) == 0 && cli_parse_u64(arg + 6, 1, 10 * 1000 * 1000, &us) == 0) {
		o->steal_after_ns = us * 1000;
		return;
	}
	cli_usage_error(PROG, "--steal takes always, never or after:MICROSECONDS (1..10000000), not '%s'", arg);
}

static void parse_args(int argc, char **argv, struct scx_run_opts *o)
{
	static const struct option opts[] = {
		{ "object", required_argument, NULL, 'o' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "steal", required_argument, NULL, 's' },
		{ "domains", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, 'D' },
		{ "interval", required_argument, NULL, 'i' },
		{ "partial", no_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 'S' },
		{ "map-size", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;
	bool steal_set = false;

	memset(o, 0, sizeof(*o));
	o->interval_s = 2;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->object = optarg;
			break;
		case 't':
			if (cli_parse_u64(optarg, 1, 30000, &v))
				cli_usage_error(PROG, "--timeout-ms takes 1..30000 (the kernel's maximum)");
			o->timeout_ms = (uint32_t)v;
			break;
		case 's':
			parse_steal(optarg, o);
			steal_set = true;
			break;
		case 'd':
			o->domains = optarg;
			break;
		case 'D':
			if (cli_parse_u64(optarg, 1, 365ULL * 86400, &o->duration_s))
				cli_usage_error(PROG, "--duration takes whole seconds >= 1");
			break;
		case 'i':
			if (cli_parse_u64(optarg, 1, 3600, &o->interval_s))
				cli_usage_error(PROG, "--interval takes 1..3600 seconds");
			break;
		case 'p':
			o->partial = true;
			break;
		case 'S':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				cli_usage_error(PROG, "--set takes NAME=VALUE, not '%s'", optarg);
			if (o->nr_sets == MAX_SETTINGS)
				cli_usage_error(PROG, "at most %d --set", MAX_SETTINGS);
			o->sets[o->nr_sets++] = optarg;
			break;
		case 'M': {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || cli_parse_u64(eq + 1, 1, UINT32_MAX, &v))
				cli_usage_error(PROG, "--map-size takes MAP=N with N 1..%u, not '%s'", UINT32_MAX,
						optarg);
			if (o->nr_map_sizes == MAX_SETTINGS)
				cli_usage_error(PROG, "at most %d --map-size", MAX_SETTINGS);
			o->map_sizes[o->nr_map_sizes++] = optarg;
			break;
		}
		case 'h':
			usage();
			exit(0);
		default:
			cli_bad_option(PROG, argc, argv);
		}
	}
	if (optind < argc)
		o->which = argv[optind++];
	if (optind < argc)
		cli_usage_error(PROG, "unexpected argument '%s'", argv[optind]);
	if (!o->which == !o->object)
		cli_usage_error(PROG, "name one scheduler: fifo, llc or --object FILE");
	if (o->which && strcmp(o->which, "fifo") != 0 && strcmp(o->which, "llc") != 0)
		cli_usage_error(PROG, "unknown scheduler '%s' (fifo or llc)", o->which);
	if ((steal_set || o->domains) && !(o->which && strcmp(o->which, "llc") == 0))
		cli_usage_error(PROG, "--steal and --domains are options of llc");
	if ((o->nr_sets || o->nr_map_sizes) && !o->object)
		cli_usage_error(PROG, "--set and --map-size are options of --object");
}

/* What an --object scheduler's own loader would do before load: the
 * kernel's scx enum values and the CPU count into its rodata, then the
 * user's --set and --map-size. Returns 0, 1 (error) or 2 (a name or value
 * the object refuses: a usage error). */
static int prepare_object(struct scx_sched *s, const struct scx_run_opts *o)
{
	struct btf *kern = btf__load_vmlinux_btf();
	int ncpu = libbpf_num_possible_cpus(), enums = 0, cpus = 0, arrays = 0, rc = 1;
	char name[128];

	/* No kernel BTF: the load fails anyway and says why. */
	if (scx_sched_fill_rodata(s, kern, ncpu > 0 ? (uint32_t)ncpu : 0, &enums, &cpus))
		goto fail;
	if (scx_sched_resize_arrays(s, ncpu > 0 ? (uint32_t)ncpu : 0, &arrays))
		goto fail;
	if (enums || cpus || arrays) {
		printf("%s: %s: %d sched_ext constant(s) from the kernel's BTF, CPU count %d in %d variable(s)", PROG,
		       s->name, enums, ncpu, cpus);
		if (arrays)
			printf(", %d per-CPU array(s) sized", arrays);
		printf("\n");
		fflush(stdout);
	}
	rc = 2;
	for (int i = 0; i < o->nr_sets; i++) {
		const char *eq = strchr(o->sets[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
		if (scx_sched_set_rodata(s, name, eq + 1))
			goto fail;
	}
	for (int i = 0; i < o->nr_map_sizes; i++) {
		const char *eq = strchr(o->map_sizes[i], '=');
		uint64_t n = strtoull(eq + 1, NULL, 10); /* checked by parse_args */

		snprintf(name, sizeof(name), "%.*s", (int)(eq - o->map_sizes[i]), o->map_sizes[i]);
		if (scx_sched_set_map_size(s, name, (uint32_t)n))
			goto fail;
	}
	btf__free(kern);
	return 0;
fail:
	fprintf(stderr, "%s: %s\n", PROG, s->err);
	btf__free(kern);
	return rc;
}

/* Describes the L3 domains and the steal policy to scx_llc (between load and attach). */
static int configure_llc(struct scx_sched *s, const struct scx_run_opts *o)
{
	static struct scx_topology topo;
	struct schedio_scx_llc_config cfg = { 0 };
	int ncpu = libbpf_num_possible_cpus();
	char why[256];
	int rc = o->domains ? scx_topology_parse(o->domains, ncpu > 0 ? (uint32_t)ncpu : 0, &topo, why, sizeof(why))
			    : scx_topology_from_sysfs("/sys", ncpu > 0 ? (uint32_t)ncpu : 0, &topo, why, sizeof(why));

	if (rc) {
		fprintf(stderr, "%s: %s%s\n", PROG, o->domains ? "--domains: " : "", why);
		return -1;
	}
	for (uint32_t c = 0; c < topo.nr_cpus; c++) {
		if (scx_sched_map_set(s, "cpu_domain", c, &topo.domain[c]))
			goto fail;
	}
	cfg.nr_domains = topo.nr_domains;
	cfg.nr_cpus = topo.nr_cpus;
	cfg.steal_after_ns = o->steal_after_ns;
	if (scx_sched_map_set(s, "llc_config", 0, &cfg))
		goto fail;
	printf("%s: scx_llc: %u CPUs in %u L3 domain(s), steal %s", PROG, topo.nr_cpus, topo.nr_domains,
	       o->steal_after_ns == SCHEDIO_SCX_STEAL_NEVER ? "never"
	       : o->steal_after_ns                          ? "after "
							    : "always");
	if (o->steal_after_ns && o->steal_after_ns != SCHEDIO_SCX_STEAL_NEVER)
		printf("%llu us", (unsigned long long)(o->steal_after_ns / 1000));
	printf("\n");
	return 0;
fail:
	fprintf(stderr, "%s: %s\n", PROG, s->err);
	return -1;
}

static void print_stats(struct scx_sched *s, uint64_t prev[SCHEDIO_SCX_STAT_NR], double secs)
{
	uint64_t now[SCHEDIO_SCX_STAT_NR];

	if (scx_sched_stats(s, now))
		return;
	printf("%s: enqueued %llu dispatched %llu (%.0f/s) stolen %llu idle_picks %llu\n", s->name,
	       (unsigned long long)now[SCHEDIO_SCX_STAT_ENQUEUED], (unsigned long long)now[SCHEDIO_SCX_STAT_DISPATCHED],
	       secs > 0 ? (double)(now[SCHEDIO_SCX_STAT_DISPATCHED] - prev[SCHEDIO_SCX_STAT_DISPATCHED]) / secs : 0.0,
	       (unsigned long long)now[SCHEDIO_SCX_STAT_STOLEN], (unsigned long long)now[SCHEDIO_SCX_STAT_IDLE_PICKS]);
	fflush(stdout);
	memcpy(prev, now, sizeof(now));
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_exit(const struct scx_sched *s, const struct schedio_scx_exit *ex, const char *how, double secs)
{
	printf("%s: %s %s after %.2f s: %s (kind %d)%s%s%s%s\n", PROG, s->name, how, secs,
	       scx_sched_exit_kind_name(ex->kind), ex->kind, ex->reason[0] ? ": " : "", ex->reason,
	       ex->msg[0] ? ": " : "", ex->msg);
	fflush(stdout);
}

/* Runs until a signal, the duration, or the kernel ejecting the scheduler. */
/* start: when registering began (a broken scheduler may starve this very
 * process right after, so the clock cannot be read later) */
static int run_attached(struct scx_sched *s, const struct scx_run_opts *o, double start)
{
	uint64_t prev[SCHEDIO_SCX_STAT_NR] = { 0 };
	struct schedio_scx_exit ex;
	double last = start;
	struct sched_ext_state st;
	bool disabled;

	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };
		double now;

		if (!stop_requested) /* one that came while registering detaches at once */
			nanosleep(&tick, NULL);
		now = mono_s();
		/* The state first: the kernel records the exit info before it says disabled, so a scheduler
		 * ejected between the two reads is still found by the second. */
		disabled = sched_ext_state_read(SCHED_EXT_STATE_ROOT, &st) == 0 && strcmp(st.state, "disabled") == 0;
		if (scx_sched_exit_info(s, &ex) == 1) {
			print_stats(s, prev, now - last);
			print_exit(s, &ex, "was ejected by the kernel", now - start);
			return EXIT_EJECTED;
		}
		if (disabled) {
			/* Disabled without ops.exit having run: say so rather than wait. */
			printf("%s: %s is no longer loaded (state disabled) and left no exit info\n", PROG, s->name);
			return EXIT_EJECTED;
		}
		if (now - last >= (double)o->interval_s) {
			print_stats(s, prev, now - last);
			last = now;
		}
		if (stop_requested || (o->duration_s && now - start >= (double)o->duration_s))
			break;
	}
	print_stats(s, prev, mono_s() - last);
	scx_sched_detach(s);
	if (scx_sched_exit_info(s, &ex) == 1)
		print_exit(s, &ex, "detached", mono_s() - start);
	else
		printf("%s: %s detached\n", PROG, s->name);
	return 0;
}

/* Registers the scheduler with SIGINT and SIGTERM held: one that came
 * before this ends the process (on_signal), one pending now stops here, and
 * one during the call is taken after it and detaches. *start: when
 * registering began. Returns scx_sched_attach's result, or -EINTR with the
 * pending signal's number in *sig. */
static int attach_held(struct scx_sched *s, const struct scx_run_opts *o, double *start, int *sig)
{
	sigset_t hold, old, pending;
	int err;

	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigprocmask(SIG_BLOCK, &hold, &old);
	attaching = 1;
	if (sigpending(&pending) == 0 && (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM))) {
		*sig = sigismember(&pending, SIGTERM) ? SIGTERM : SIGINT;
		return -EINTR; /* still held: the process ends before it is taken */
	}
	*start = mono_s();
	err = scx_sched_attach(s, o->timeout_ms, o->partial);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

static int scx_run(int argc, char **argv)
{
	struct scx_run_opts o;
	struct scx_sched s = { .link_fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	const void *elf = NULL;
	size_t len = 0;
	char why[256];
	double start;
	uint32_t watchdog;
	int err, sig = 0, rc = 1;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	parse_args(argc, argv, &o);
#ifdef SCHEDIO_HAVE_SCX
	if (o.which)
		elf = strcmp(o.which, "fifo") == 0 ? scx_fifo__elf_bytes(&len) : scx_llc__elf_bytes(&len);
#else
	if (o.which) {
		fprintf(stderr, "%s: built without the sched_ext schedulers: %s\n", PROG, SCHEDIO_SCX_SKIP_REASON);
		return 1;
	}
#endif
	if (scx_state_preflight("/sys", why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", PROG, why);
		return 1;
	}
	if (scx_sched_open(&s, elf, len, o.object)) {
		fprintf(stderr, "%s: %s\n", PROG, s.err);
		goto out;
	}
	if (o.object && (rc = prepare_object(&s, &o)) != 0)
		goto out;
	if (o.object && scx_sched_user_half(&s)) {
		fprintf(stderr, "%s: %s\n", PROG, s.err);
		rc = 2;
		goto out;
	}
	rc = 1;
	if (scx_sched_load(&s)) {
		fprintf(stderr, "%s: %s\n", PROG, s.err);
		goto out;
	}
	if (o.which && strcmp(o.which, "llc") == 0 && configure_llc(&s, &o))
		goto out;
	err = attach_held(&s, &o, &start, &sig);
	if (err == -EINTR && sig) {
		fputs(INTERRUPTED_MSG, stderr);
		rc = 128 + sig;
		goto out;
	}
	if (err == -EBUSY || err == -EEXIST) {
		fprintf(stderr, "%s: another sched_ext scheduler is active\n", PROG);
		goto out;
	} else if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "%s: registering needs root (CAP_BPF and CAP_SYS_ADMIN)\n", PROG);
		goto out;
	} else if (err) {
		fprintf(stderr, "%s: %s\n", PROG, s.err);
		goto out;
	}
	watchdog = o.timeout_ms ? o.timeout_ms : s.timeout_ms;
	printf("%s: %s attached (watchdog %s%u ms%s); SIGINT/SIGTERM detaches\n", PROG, s.name,
	       watchdog ? "" : "kernel default, ", watchdog ? watchdog : 30000,
	       o.partial ? ", SCHED_EXT tasks only" : "");
	fflush(stdout);
	rc = run_attached(&s, &o, start);
out:
	scx_sched_close(&s);
	return rc;
}

/* `schedio scx version`: the libbpf this binary loads schedulers with. */
static int scx_version(int argc, char **argv)
{
	char line[128];

	if (argc != 1)
		cli_usage_error(PROG, "version takes no arguments");
	scx_libbpf_describe(line, sizeof(line));
	printf("%s: %s\n", PROG, line);
	return scx_libbpf_at_least_min(libbpf_major_version(), libbpf_minor_version()) ? 0 : 1;
}

int cmd_scx(int argc, char **argv)
{
	if (argc < 2)
		cli_usage_error(PROG, "missing subcommand (run, version)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage();
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return scx_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0)
		return scx_version(argc - 1, argv + 1);
	cli_usage_error(PROG, "unknown subcommand '%s' (run, version)", argv[1]);
}
