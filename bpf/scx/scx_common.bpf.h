/* scx_common.bpf.h - the BPF side every schedio sched_ext scheduler shares:
 * the kfuncs, the stats and exit_info maps, and the ops.exit copy.
 *
 * The kfuncs are declared by hand with their 7.x names (scx_bpf_dsq_insert,
 * scx_bpf_dsq_move_to_local): the vmlinux.h that bpftool 7.1 writes has no
 * kfunc prototypes, and the kernel resolves __ksym by name at load, so a
 * kernel with the older names refuses the program instead of misbehaving.
 * Callbacks use SEC("struct_ops/...") because libbpf 1.1 knows no
 * "struct_ops.s"; the loader marks init sleepable itself.
 */
#ifndef SCHEDIO_SCX_COMMON_BPF_H
#define SCHEDIO_SCX_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "scx_shared.h"

extern void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags) __ksym;
extern bool scx_bpf_dsq_move_to_local(u64 dsq_id) __ksym;
extern s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym;
extern void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym;
extern s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
				  bool *is_idle) __ksym;
extern s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym;
extern s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym;

/* One struct_ops callback: SCX_OPS(enqueue, struct task_struct *p, u64 flags). */
#define SCX_OPS(name, args...) SEC("struct_ops/" #name) int BPF_PROG(name, ##args)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCHEDIO_SCX_STAT_NR);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct schedio_scx_exit);
} exit_info SEC(".maps");

static __always_inline void scx_stat_inc(u32 idx)
{
	u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		(*v)++; /* per-CPU slot: no other writer */
}

/* Copies the kernel's exit info for the loader; called from ops.exit. */
static __always_inline void scx_record_exit(struct scx_exit_info *ei)
{
	u32 zero = 0;
	struct schedio_scx_exit *out = bpf_map_lookup_elem(&exit_info, &zero);

	if (!out)
		return;
	out->kind = ei->kind;
	out->exit_code = ei->exit_code;
	bpf_probe_read_kernel_str(out->reason, sizeof(out->reason), ei->reason);
	bpf_probe_read_kernel_str(out->msg, sizeof(out->msg), ei->msg);
	out->recorded = 1;
}

#endif /* SCHEDIO_SCX_COMMON_BPF_H */
