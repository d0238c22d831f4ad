/* cpu_list.h - the kernel's CPU list format ("0-3,8,10-11"), as sysfs writes
 * it (cache shared_cpu_list, online, possible) and as users type it, and the
 * list of CPUs sharing a CPU's L3 cache.
 */
#ifndef SCHEDIO_COMMON_CPU_LIST_H
#define SCHEDIO_COMMON_CPU_LIST_H

#include <stddef.h>
#include <stdint.h>

/* Largest CPU count a list may name when the caller knows no better bound. */
#define CPU_LIST_MAX_CPUS 65536

/* Sets cpus[c] = 1 for each CPU c in list (entries in any order, overlaps
 * allowed, trailing whitespace ignored, "" is the empty set); every c must be
 * below nr_cpus. Returns 0, or -EINVAL with the reason in why. */
int cpu_list_parse(const char *list, uint32_t nr_cpus, uint8_t *cpus, char *why, size_t why_len);
/* Parses list as cpu_list_parse does (CPUs below CPU_LIST_MAX_CPUS) into a new
 * ascending array of distinct CPUs; 0, -EINVAL or -ENOMEM. */
int cpu_list_parse_array(const char *list, unsigned **cpus, size_t *n);

/* Reads the level-3 cache of CPU cpu under cpu_root (/sys/devices/system/cpu
 * outside tests): its shared_cpu_list into list (unparsed) and its size in
 * KiB into *size_kb (0 when unsaid). Returns 0, or -ENOENT when the CPU shows
 * no L3 (many VMs). */
int cpu_list_read_l3(const char *cpu_root, unsigned cpu, char *list, size_t len, uint64_t *size_kb);

#endif /* SCHEDIO_COMMON_CPU_LIST_H */
