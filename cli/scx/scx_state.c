/* scx_state.c - whether we may load a sched_ext scheduler now: the kernel
 * has sched_ext (common/sched_ext_state.c reads it), none is active, and we
 * hold the privileges. Checked before loading so the user gets one line
 * instead of a verifier dump.
 */
#include "cli/scx/scx_state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/sched_ext_state.h"

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
	struct sched_ext_state st;

	sched_ext_state_read_sysfs(sysfs_root, &st);
	if (strcmp(st.state, "unsupported") == 0) {
		snprintf(why, why_len, "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT, Linux 6.12+)");
		return -1;
	}
	if (strcmp(st.state, "unknown") == 0) {
		snprintf(why, why_len, "cannot read the sched_ext state in %s/kernel", sysfs_root);
		return -1;
	}
	if (strcmp(st.state, "disabled") != 0) {
		snprintf(why, why_len, "another sched_ext scheduler is active: %s (state %s)",
			 st.ops[0] ? st.ops : "unknown", st.state);
		return -1;
	}
	if (!may_load_bpf()) {
		snprintf(why, why_len, "loading a scheduler needs root (CAP_BPF and CAP_SYS_ADMIN)");
		return -1;
	}
	return 0;
}
