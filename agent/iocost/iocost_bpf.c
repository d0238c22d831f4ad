/* iocost_bpf.c - loading bpf/iocost.bpf.c where the kernel allows it.
 *
 * Which iocost tracepoints exist differs by kernel (iocost_iocg_idle arrived
 * in 5.11, inuse_transfer replaced inuse_giveaway in 5.10), so each program
 * is loaded only if vmlinux BTF has its btf_trace_ typedef, and iocost is
 * only attempted at all where struct ioc_gq exists (CONFIG_BLK_CGROUP_IOCOST).
 * The map values carry integrals up to the last event; reading closes them
 * at "now", so a busy iocg that saw no event this interval still counts.
 */
#include "agent/iocost/iocost_bpf.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "bpf/iocost.h"
#include "iocost.skel.h"

struct iocost_bpf {
	struct iocost *skel;
	struct bpf_link *links[8];
	size_t nlinks;
	char attached[256];
};

static int libbpf_to_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("libbpf: %s", buf);
	return 0;
}

static const char *prog_tracepoint(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	return strncmp(sec, "tp_btf/", 7) ? sec : sec + 7;
}

int iocost_bpf_open(struct iocost_bpf **out, char *why, size_t cap)
{
	struct iocost_bpf *b = calloc(1, sizeof(*b));
	struct btf *vmlinux = NULL;
	struct bpf_program *prog;
	char tname[128];
	int err, wanted = 0;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	libbpf_set_print(libbpf_to_log);
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = -errno;
		snprintf(why, cap, "no kernel BTF (/sys/kernel/btf/vmlinux)");
		goto fail;
	}
	if (btf__find_by_name_kind(vmlinux, "ioc_gq", BTF_KIND_STRUCT) < 0) {
		err = -ENOTSUP;
		snprintf(why, cap, "kernel built without blk-iocost (no struct ioc_gq in BTF)");
		goto fail;
	}
	b->skel = iocost__open();
	if (!b->skel) {
		err = -errno;
		snprintf(why, cap, "opening the iocost BPF object failed");
		goto fail;
	}
	bpf_object__for_each_program(prog, b->skel->obj)
	{
		snprintf(tname, sizeof(tname), "btf_trace_%s", prog_tracepoint(prog));
		if (btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF) < 0)
			bpf_program__set_autoload(prog, false);
		else
			wanted++;
	}
	if (!wanted) {
		err = -ENOTSUP;
		snprintf(why, cap, "kernel has none of the iocost tracepoints");
		goto fail;
	}
	/* libbpf parses the kernel's BTF again to load: do not hold two copies
	 * (megabytes each) at once, it is the agent's peak memory. */
	btf__free(vmlinux);
	vmlinux = NULL;
	err = iocost__load(b->skel);
	if (err) {
		snprintf(why, cap, "loading the iocost BPF programs failed: %s", strerror(-err));
		goto fail;
	}
	bpf_object__for_each_program(prog, b->skel->obj)
	{
		struct bpf_link *l;

		if (!bpf_program__autoload(prog) || b->nlinks == sizeof(b->links) / sizeof(b->links[0]))
			continue;
		l = bpf_program__attach(prog);
		if (!l) {
			err = -errno;
			snprintf(why, cap, "attaching to %s failed: %s", prog_tracepoint(prog), strerror(-err));
			goto fail;
		}
		b->links[b->nlinks++] = l;
		snprintf(b->attached + strlen(b->attached), sizeof(b->attached) - strlen(b->attached), "%s%s",
			 b->attached[0] ? " " : "", prog_tracepoint(prog));
	}
	*out = b;
	return 0;
fail:
	btf__free(vmlinux);
	iocost_bpf_close(b);
	return err;
}

const char *iocost_bpf_attached(const struct iocost_bpf *b)
{
	return b->attached;
}

int iocost_bpf_read(struct iocost_bpf *b, uint64_t cgid, unsigned major, unsigned minor, uint64_t now_ns,
		    struct iocost_hw *out)
{
	struct iocost_key key = { .cgid = cgid, .major = major, .minor = minor };
	struct iocost_val v;

	if (bpf_map__lookup_elem(b->skel->maps.hweights, &key, sizeof(key), &v, sizeof(v), 0))
		return -ENOENT;
	out->hwa_us = v.hwa_us_sum;
	out->hwi_us = v.hwi_us_sum;
	out->active_us = v.active_us;
	out->updates = v.updates;
	out->active = v.active;
	/* close the open segment: the value holds until the next event */
	if (v.active && now_ns > v.last_ns) {
		uint64_t dt_us = (now_ns - v.last_ns) / 1000;

		out->hwa_us += (uint64_t)v.hwa * dt_us;
		out->hwi_us += (uint64_t)v.hwi * dt_us;
		out->active_us += dt_us;
	}
	return 0;
}

int iocost_bpf_vrate(struct iocost_bpf *b, unsigned major, unsigned minor, double *pct)
{
	uint32_t devt = major << 20 | minor;
	struct iocost_dev_val v;

	if (bpf_map__lookup_elem(b->skel->maps.vrates, &devt, sizeof(devt), &v, sizeof(v), 0))
		return -ENOENT;
	*pct = (double)v.vrate_pct100 / 100.0;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void iocost_bpf_prune(struct iocost_bpf *b, const uint64_t *live, size_t n)
{
	struct iocost_key key, next, dead[64];
	struct iocost_val v;
	size_t ndead = 0;
	int fd = bpf_map__fd(b->skel->maps.hweights);
	void *prev = NULL;

	/* collect first, delete after: deleting while iterating restarts the walk */
	while (ndead < sizeof(dead) / sizeof(dead[0]) && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) == 0 && !v.active &&
		    !bsearch(&key.cgid, live, n, sizeof(*live), cmp_u64))
			dead[ndead++] = key;
	}
	for (size_t i = 0; i < ndead; i++)
		bpf_map_delete_elem(fd, &dead[i]);
}

void iocost_bpf_close(struct iocost_bpf *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	iocost__destroy(b->skel);
	free(b);
}
