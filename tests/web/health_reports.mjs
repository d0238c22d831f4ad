// health_reports.mjs - synthetic agent reports carrying issue 17's fields
// (sched_ext events, schedulers, exits and nr_rejected; runqlat.l3_domains
// with idle-sibling wait; the agent's own cpu_ns, rss_bytes and BPF figures)
// for the dashboard's health test, with the truth the page must show: when
// each scheduler ran, each exit, the counters' totals, each L3 domain's
// idle-sibling share and the agent's cost.
import { fleetHost, report } from './reports.mjs';

export const STEP = 60e3;
export const REPORTS = 12;
// report k (0-based) of the "ejected" host: EEVDF in 0..2, scx_simple loaded
// 20 s into 3, unloaded 30 s into 6, then `broken` loaded 35 s into 6 and
// ejected by the watchdog 50 s into 6, EEVDF again after.
const LOAD_K = 3, SWITCH_K = 6;
export const STALL = { ops: 'broken', kind: 'error_stall', reason: 'runnable task stall', message: 'kworker/0:1[42] failed to run for 2.004s' };
export const UNLOAD = { ops: 'scx_simple', kind: 'unreg', reason: 'Scheduler unregistered from user space', message: '' };
export const PROGRAMS = ['schedio_rq_swtch', 'schedio_rq_wakeup', 'schedio_rq_wakeup_new'];
export const DOMAINS = [[0, 1], [2, 3]];

// The host: 4 CPUs in two L3 domains.
export function healthHost(i, id) {
  return { ...fleetHost(i, { cgroups: 1, cpus: 4 }), id, hostname: `${id}.example`, kernel: '6.15.2-amd64', sched: null, seed: 5000 + i };
}

// Host h's report k of REPORTS ending at end; ejected: whether it runs the
// scheduler story above (else EEVDF throughout). legacy: no issue 17 field.
export function healthReport(h, k, end, { ejected = false, legacy = false } = {}) {
  const start = end - STEP;
  const r = report(h, k + 1, start, end);
  r.host.l3_domains = DOMAINS;
  if (legacy) return r;
  const sx = { state: 'disabled', ops: null, enable_seq: 4, nr_rejected: 0, schedulers: [], exits: [] };
  if (ejected && k >= LOAD_K && k <= SWITCH_K) {
    const first = k === LOAD_K ? start + 20e3 : start + 1e3;
    const last = k === SWITCH_K ? start + 29e3 : end - 1e3;
    sx.schedulers.push({ ops: 'scx_simple', enable_seq: 5, first_ms: first, last_ms: last, partial: false });
    sx.enable_seq = 5;
    if (k === SWITCH_K) {
      sx.exits.push({ ...UNLOAD, t_ms: start + 30e3 });
      sx.schedulers.push({ ops: 'broken', enable_seq: 6, first_ms: start + 35e3, last_ms: start + 45e3, partial: true });
      sx.exits.push({ ...STALL, t_ms: start + 50e3 });
      sx.enable_seq = 6;
      sx.nr_rejected = 2;
    } else {
      sx.state = 'enabled';
      sx.ops = 'scx_simple';
    }
    // the kernel's counters while a scheduler ran (absent otherwise)
    sx.events = { select_cpu_fallback: 10 * (k + 1), dispatch_keep_last: 7, dispatch_local_dsq_offline: 0, enq_skip_exiting: k === SWITCH_K ? 3 : 0,
      // the kernel counts bypass time in ns: 250 ms when the watchdog threw `broken` out
      bypass_duration: k === SWITCH_K ? 250e6 : 0 };
  }
  r.sched_ext = { ...r.sched_ext, ...sx };
  // domain 1 leaves a CPU idle while tasks wait while a sched_ext scheduler runs
  const scx = ejected && k >= LOAD_K && k <= SWITCH_K;
  r.runqlat.l3_domains = DOMAINS.map((cpus, d) => {
    const wait = (1 + d) * 1e9 + k * 1e7;
    const share = d === 1 && scx ? 0.5 : 0.02 + 0.01 * d;
    const waits = 100000 + 1000 * k;
    return { cpus, wait_ns: wait, waits, idle_sibling_wait_ns: Math.round(wait * share), idle_sibling_waits: Math.round(waits * share) };
  });
  r.agent = {
    ...r.agent,
    cpu_ns: 6e6 + 1e5 * k, // ~0.01% of a core
    rss_bytes: 9e6 + 1000 * k,
    bpf: {
      sampled_ns: 6e9,
      programs: PROGRAMS.map((name, p) => ({ name, run_cnt: (p + 1) * 100000 + k, run_time_ns: (p + 1) * 3e7 + 1000 * k })),
    },
  };
  return r;
}

// The truth over a host's reports: what the page must show.
export function healthTruth(reps) {
  const events = new Map();
  const l3 = DOMAINS.map((cpus) => ({ key: cpus.join(','), wait: 0, idle: 0, waits: 0, idleWaits: 0 }));
  const progs = new Map();
  let cpuNs = 0, wallNs = 0, lastRss = null, bpfNs = 0;
  for (const r of reps) {
    const sx = r.sched_ext || {};
    for (const [n, v] of Object.entries(sx.events || {})) events.set(n, (events.get(n) || 0) + v);
    if (sx.nr_rejected !== undefined) events.set('nr_rejected', (events.get('nr_rejected') || 0) + sx.nr_rejected);
    (r.runqlat.l3_domains || []).forEach((d, i) => {
      l3[i].wait += d.wait_ns; l3[i].idle += d.idle_sibling_wait_ns; l3[i].waits += d.waits; l3[i].idleWaits += d.idle_sibling_waits;
    });
    if (r.agent && r.agent.cpu_ns !== undefined) {
      cpuNs += r.agent.cpu_ns;
      wallNs += (r.interval.end_ms - r.interval.start_ms) * 1e6;
      lastRss = r.agent.rss_bytes;
      for (const g of r.agent.bpf.programs) {
        const cur = progs.get(g.name) || { run_cnt: 0, run_time_ns: 0 };
        cur.run_cnt += g.run_cnt;
        cur.run_time_ns += g.run_time_ns;
        progs.set(g.name, cur);
        bpfNs += g.run_time_ns;
      }
    }
  }
  return { events, l3, progs, cpuShare: wallNs ? cpuNs / wallNs : null, bpfShare: wallNs ? bpfNs / wallNs : null, bpfNsPerSec: wallNs ? bpfNs / (wallNs / 1e9) : null, lastRss };
}

// When each scheduler of the "ejected" host ran, given report 0's end.
export function healthStory(end0) {
  const startOf = (k) => end0 + (k - 1) * STEP;
  return {
    scx_simple: [startOf(LOAD_K) + 20e3, startOf(SWITCH_K) + 30e3],
    broken: [startOf(SWITCH_K) + 35e3, startOf(SWITCH_K) + 50e3],
    covered: [startOf(0), startOf(REPORTS - 1) + STEP],
  };
}
