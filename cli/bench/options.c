/* options.c - see options.h. */
#include "cli/bench/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench/phase.h"
#include "common/cli.h"

enum {
	OPT_DESTRUCTIVE = 2000,
	OPT_FORCE,
	OPT_READ_ONLY,
	OPT_PHASES,
	OPT_SIZE,
	OPT_MIN_PHASE,
	OPT_MAX_PHASE,
	OPT_MAX_DEPTH,
	OPT_OUTPUT,
	OPT_JSON,
	OPT_SUBMIT,
	OPT_SYSFS_ROOT,
	OPT_DEPTH,
};

void bench_options_usage(void)
{
	printf("Usage: schedio bench [OPTION]... TARGET\n"
	       "\n"
	       "Measures the io.cost.model of the disk behind TARGET (rbps, rseqiops, rrandiops,\n"
	       "wbps, wseqiops, wrandiops) with direct IO through io_uring, and prints the line\n"
	       "to write to /sys/fs/cgroup/io.cost.model. TARGET is a block device, an existing\n"
	       "file (read phases; writes with --destructive) or a directory (a test file is made\n"
	       "there, filled, and removed afterwards).\n"
	       "\n"
	       "  --read-only          read phases only (rbps, rseqiops, rrandiops)\n"
	       "  --phases LIST        only these phases, comma-separated\n"
	       "  --destructive        allow writes to a block device or an existing file\n"
	       "  --force              write to a block device even if it is mounted, a RAID/LVM\n"
	       "                       member or partitioned (with --destructive)\n"
	       "  --size SIZE          test file size in a directory (K/M/G/T suffixes; default\n"
	       "                       16G, at most half the free space), or the part of a device\n"
	       "                       or file used; at least 64M\n"
	       "  --min-phase SECONDS  measure each phase at least this long (default 10)\n"
	       "  --max-phase SECONDS  end a phase that is not steady after this long, probes\n"
	       "                       included (default 30, at most 300)\n"
	       "  --max-depth N        deepest queue the saturation search tries (default 256)\n"
	       "  --depth N            no saturation search: measure every phase at depth N\n"
	       "  --output FILE        write the result (schedio.ssdbench.v1 JSON) to FILE\n"
	       "  --json               print the result JSON on stdout instead of the model line\n"
	       "  --submit             post the result to the server (--server, --token)\n"
	       "  --server URL         default $SCHEDIO_SERVER or http://127.0.0.1:8080\n"
	       "  --token TOKEN        a submit token (default $SCHEDIO_TOKEN)\n"
	       "  --sysfs-root DIR     read the disk's identity and holders from DIR, not /sys\n"
	       "\n"
	       "Exit status: 0 done, 1 failed, 2 refused or bad usage, 130/143 interrupted.\n");
}

int bench_options_phases(const char *list, unsigned *mask, char *err, size_t cap)
{
	char buf[256], *save = NULL, *tok;

	*mask = 0;
	if (strlen(list) >= sizeof(buf)) {
		snprintf(err, cap, "--phases: list too long");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned i;

		for (i = 0; i < 6 && strcmp(tok, bench_phase_specs[i].param); i++)
			;
		if (i == 6) {
			snprintf(
			    err, cap,
			    "--phases: unknown phase '%.40s' (rbps, rseqiops, rrandiops, wbps, wseqiops, wrandiops)",
			    tok);
			return -1;
		}
		*mask |= 1u << i;
	}
	if (!*mask) {
		snprintf(err, cap, "--phases: empty list");
		return -1;
	}
	return 0;
}

int bench_options_writes(unsigned mask)
{
	return (mask & 0x38) != 0;
}

int bench_options_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'K':
	case 'k':
		shift = 10;
		end++;
		break;
	case 'M':
	case 'm':
		shift = 20;
		end++;
		break;
	case 'G':
	case 'g':
		shift = 30;
		end++;
		break;
	case 'T':
	case 't':
		shift = 40;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B' && shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_seconds(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int bench_options_parse(int argc, char **argv, struct bench_options *o, char *err, size_t cap)
{
	static const struct option opts[] = {
		{ "destructive", no_argument, NULL, OPT_DESTRUCTIVE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "read-only", no_argument, NULL, OPT_READ_ONLY },
		{ "phases", required_argument, NULL, OPT_PHASES },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "min-phase", required_argument, NULL, OPT_MIN_PHASE },
		{ "max-phase", required_argument, NULL, OPT_MAX_PHASE },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "submit", no_argument, NULL, OPT_SUBMIT },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		SSD_CLIENT_OPTIONS,
		{ 0 },
	};
	int opt, phases_given = 0;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->phases = 0x3f;
	o->min_phase = BENCH_DEFAULT_MIN_PHASE;
	o->max_phase = BENCH_DEFAULT_MAX_PHASE;
	o->max_depth = BENCH_DEFAULT_MAX_DEPTH;
	o->sysfs_root = "/sys";
	ssd_client_init(&o->client);
	optind = 0; /* glibc: start afresh (tests parse several command lines) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ssd_client_option(&o->client, opt, optarg))
			continue;
		switch (opt) {
		case 'h':
			o->help = 1;
			return 0;
		case OPT_DESTRUCTIVE:
			o->destructive = 1;
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		case OPT_READ_ONLY:
			o->read_only = 1;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_SUBMIT:
			o->submit = 1;
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_SYSFS_ROOT:
			o->sysfs_root = optarg;
			break;
		case OPT_DEPTH:
			if (cli_parse_u64(optarg, 1, BENCH_ENGINE_DEPTH_MAX, &v)) {
				snprintf(err, cap, "--depth: '%.40s' is not a depth from 1 to %u", optarg,
					 BENCH_ENGINE_DEPTH_MAX);
				return -1;
			}
			o->depth = (unsigned)v;
			break;
		case OPT_PHASES:
			if (bench_options_phases(optarg, &o->phases, err, cap))
				return -1;
			phases_given = 1;
			break;
		case OPT_SIZE:
			if (bench_options_size(optarg, &o->size) || o->size == 0) {
				snprintf(err, cap, "--size: '%.40s' is not a size (like 512M or 4G)", optarg);
				return -1;
			}
			break;
		case OPT_MIN_PHASE:
			if (parse_seconds(optarg, 1, 300, &o->min_phase)) {
				snprintf(err, cap, "--min-phase: '%.40s' is not a number of seconds from 1 to 300",
					 optarg);
				return -1;
			}
			break;
		case OPT_MAX_PHASE:
			if (parse_seconds(optarg, 2, 300, &o->max_phase)) {
				snprintf(err, cap, "--max-phase: '%.40s' is not a number of seconds from 2 to 300",
					 optarg);
				return -1;
			}
			break;
		case OPT_MAX_DEPTH:
			if (cli_parse_u64(optarg, 1, BENCH_ENGINE_DEPTH_MAX, &v)) {
				snprintf(err, cap, "--max-depth: '%.40s' is not a depth from 1 to %u", optarg,
					 BENCH_ENGINE_DEPTH_MAX);
				return -1;
			}
			o->max_depth = (unsigned)v;
			break;
		default:
			snprintf(err, cap, "unknown option or missing argument '%.60s'",
				 optind > 0 && optind <= argc ? argv[optind - 1] : "?");
			return -1;
		}
	}
	if (optind >= argc) {
		snprintf(err, cap, "no TARGET given (a block device, a file or a directory)");
		return -1;
	}
	if (optind + 1 < argc) {
		snprintf(err, cap, "one TARGET only ('%.60s' is extra)", argv[optind + 1]);
		return -1;
	}
	o->target = argv[optind];
	if (o->read_only) {
		if (phases_given && bench_options_writes(o->phases)) {
			snprintf(err, cap, "--read-only and write phases in --phases contradict each other");
			return -1;
		}
		o->phases &= 0x07;
	}
	if (o->min_phase > o->max_phase) {
		snprintf(err, cap, "--min-phase (%g s) is longer than --max-phase (%g s)", o->min_phase, o->max_phase);
		return -1;
	}
	if (o->submit && o->phases != 0x3f) {
		snprintf(err, cap, "--submit needs all six phases (a read-only or partial run is not submittable)");
		return -1;
	}
	return 0;
}
