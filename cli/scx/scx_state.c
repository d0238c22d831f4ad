/* scx_state.c - what sysfs says about sched_ext, and whether we may load.
 *
 * /sys/kernel/sched_ext/state exists only on kernels built with
 * CONFIG_SCHED_CLASS_EXT; it reads "enabled" while a BPF scheduler runs (the
 * transient "enabling"/"disabling" too), and root/ops names it. Checked
 * before loading so the user gets one line instead of a verifier dump.
 */
#include "cli/scx/scx_state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"

int scx_state_read(const char *sysfs_root, char *state, size_t state_len, char *ops, size_t ops_len)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/kernel/sched_ext/state", sysfs_root);
	err = (int)fs_read_trimmed(path, state, state_len);
	if (err < 0)
		return err;
	snprintf(path, sizeof(path), "%s/kernel/sched_ext/root/ops", sysfs_root);
	if (fs_read_trimmed(path, ops, ops_len) < 0)
		ops[0] = '\0'; /* root/ exists only while a scheduler is loaded */
	return 0;
}

/* Whether the effective capabilities hold CAP_SYS_ADMIN (21) and CAP_BPF (39,
 * or CAP_SYS_ADMIN alone on kernels before 5.8), which registering needs. */
static int may_load_bpf(void)
{
	char line[256];
	unsigned long long eff = 0;
	int found = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = 1;
			break;
		}
	}
	fclose(f);
	if (!found)
		return geteuid() == 0;
	return (eff & (1ULL << 21)) && (eff & (1ULL << 39));
}

int scx_state_preflight(const char *sysfs_root, char *why, size_t why_len)
{
	char state[64], ops[160];
	int err = scx_state_read(sysfs_root, state, sizeof(state), ops, sizeof(ops));

	if (err == -ENOENT) {
		snprintf(why, why_len, "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT, Linux 6.12+)");
		return -1;
	}
	if (err) {
		snprintf(why, why_len, "cannot read %s/kernel/sched_ext/state: %s", sysfs_root, strerror(-err));
		return -1;
	}
	if (strcmp(state, "disabled") != 0) {
		snprintf(why, why_len, "another sched_ext scheduler is active: %s (state %s)", ops[0] ? ops : "unknown",
			 state);
		return -1;
	}
	if (!may_load_bpf()) {
		snprintf(why, why_len, "loading a scheduler needs root (CAP_BPF and CAP_SYS_ADMIN)");
		return -1;
	}
	return 0;
}
