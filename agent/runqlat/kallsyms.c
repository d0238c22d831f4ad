/* kallsyms.c - see kallsyms.h.
 *
 * Lines are "ADDRESS TYPE NAME" with "\t[module]" after the name for module
 * symbols. The file is a few hundred thousand lines; each line is matched
 * by hand (no sscanf) so the scan stays in the tens of milliseconds. With
 * kptr_restrict in force the kernel prints every address as zero: that is
 * told apart from a symbol that is missing, and the cause is named, since
 * the fix differs: a capability for the process, or a sysctl for the host.
 */
#include "agent/runqlat/kallsyms.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Parses the hex address at the start of line; false if there is none. */
static bool parse_addr(const char *line, uint64_t *addr, const char **rest)
{
	uint64_t v = 0;
	const char *p = line;

	for (; *p && *p != ' '; p++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		if (p - line >= 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (p == line || *p != ' ')
		return false;
	*addr = v;
	*rest = p + 1;
	return true;
}

int kallsyms_find(FILE *f, const char *name, uint64_t *addr)
{
	size_t nlen = strlen(name), cap = 0;
	char *line = NULL;
	ssize_t len;
	int rc = -ENOENT;

	while ((len = getline(&line, &cap, f)) > 0) {
		const char *sym;
		uint64_t v;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* "TYPE NAME": the type is one character */
		if (!parse_addr(line, &v, &sym) || !sym[0] || sym[1] != ' ')
			continue;
		sym += 2;
		if (strncmp(sym, name, nlen) != 0 || sym[nlen] != '\0')
			continue; /* another symbol, or a module's (followed by "\t[module]") */
		*addr = v;
		rc = v ? 0 : -EPERM;
		break;
	}
	free(line);
	return rc;
}

int kallsyms_lookup(const char *path, const char *name, uint64_t *addr)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f)
		return -errno;
	rc = kallsyms_find(f, name, addr);
	fclose(f);
	return rc;
}

const char *kallsyms_hidden_reason(bool has_cap_syslog, int kptr_restrict)
{
	/* The kernel's kallsyms_show_value(): 2 hides from everyone, 1 shows to CAP_SYSLOG only, 0
	 * also shows to CAP_SYSLOG (and to anyone when perf_event_paranoid <= 1, not Debian's default). */
	if (kptr_restrict >= 2)
		return "kernel.kptr_restrict=2 hides them from everyone";
	if (!has_cap_syslog)
		return "CAP_SYSLOG is missing from this process (a systemd unit with ProtectKernelLogs= drops it)";
	if (kptr_restrict < 0)
		return "addresses hidden although this process has CAP_SYSLOG (kernel.kptr_restrict unreadable)";
	return "addresses hidden although this process has CAP_SYSLOG and kernel.kptr_restrict is below 2";
}

/* True when CAP_SYSLOG is in this process's effective set (capget, no libcap needed). */
static bool has_cap_syslog(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[CAP_TO_INDEX(CAP_SYSLOG)].effective & CAP_TO_MASK(CAP_SYSLOG);
}

const char *kallsyms_hidden_cause(void)
{
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "re");
	int kptr_restrict = -1;

	if (f) {
		if (fscanf(f, "%d", &kptr_restrict) != 1)
			kptr_restrict = -1;
		fclose(f);
	}
	return kallsyms_hidden_reason(has_cap_syslog(), kptr_restrict);
}
