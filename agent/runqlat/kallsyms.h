/* kallsyms.h - a kernel symbol's address from /proc/kallsyms, for BPF
 * programs that need to recognise a kernel object by its address. */
#ifndef SCHEDIO_AGENT_RUNQLAT_KALLSYMS_H
#define SCHEDIO_AGENT_RUNQLAT_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Address of the built-in (not module) symbol name in a kallsyms listing;
 * 0 and *addr set, -ENOENT when absent, -EPERM when addresses are hidden (all zero). */
int kallsyms_find(FILE *f, const char *name, uint64_t *addr);
/* kallsyms_find on the file at path (normally /proc/kallsyms); -errno when it cannot be opened. */
int kallsyms_lookup(const char *path, const char *name, uint64_t *addr);
/* Why addresses read as zero, given CAP_SYSLOG in the effective set and kernel.kptr_restrict (-1: unknown). */
const char *kallsyms_hidden_reason(bool has_cap_syslog, int kptr_restrict);
/* kallsyms_hidden_reason for this process: its capabilities and /proc/sys/kernel/kptr_restrict. */
const char *kallsyms_hidden_cause(void);

#endif /* SCHEDIO_AGENT_RUNQLAT_KALLSYMS_H */
