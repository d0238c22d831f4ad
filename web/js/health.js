// health.js - the sched_ext health answers of the API (issue 17) turned into
// what the pages draw: which scheduler ran when (sched_ext schedulers and
// EEVDF/fair between them), what each exit kind means, the kernel's event
// counters as rates per point, each L3 domain's idle-sibling share of its
// runqueue wait, and the agent's own cost; and the two formats they need
// (tiny percentages, rates). No DOM here: the browser tests import it to
// compute what the page should show.

// Three significant digits of a percentage, however small (agent CPU is ~0.01%).
export function pct3(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0%';
  return `${Number(v.toPrecision(3))}%`;
}

export function perSec(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${v >= 100 ? Math.round(v).toLocaleString('en-US') : Number(v.toPrecision(3))}/s`;
}

// What each sched_ext exit kind (the kernel's enum scx_exit_kind) means.
// `ejected`: the kernel threw the scheduler out (an error, the watchdog, the
// SysRq-S key, the kernel itself), as opposed to an orderly unload; the same
// kinds the server counts as ejections on the fleet view.
export const EXIT_KINDS = {
  done: { text: 'exited (done)', ejected: false },
  unreg: { text: 'unloaded from user space', ejected: false },
  unreg_bpf: { text: 'unregistered by the BPF scheduler', ejected: false },
  unreg_kern: { text: 'unregistered by the kernel', ejected: true },
  sysrq: { text: 'ejected by SysRq-S', ejected: true },
  error: { text: 'ejected: error', ejected: true },
  error_bpf: { text: 'ejected: the BPF scheduler raised an error', ejected: true },
  error_stall: { text: 'ejected by the watchdog', ejected: true },
  unknown: { text: 'exit of unknown kind', ejected: false },
};

export function exitKind(kind) {
  return EXIT_KINDS[kind] || { text: `exit kind ${kind || 'unknown'}`, ejected: false };
}

// The name the dashboard gives the kernel's own scheduler between sched_ext ones.
export const FAIR = 'EEVDF (fair)';

// Reports closer than this are one stretch of coverage (agent timer jitter).
const JOIN_MS = 2000;

function clip(a, b, from, to) {
  const s = Math.max(a, from), e = Math.min(b, to);
  return e > s ? [s, e] : null;
}

// The stretches of [from, to) that reports cover, merged: [[start, end], ...].
export function coverage(points, from, to) {
  const spans = (points || []).map((p) => clip(p.start_ms, p.end_ms, from, to)).filter(Boolean).sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [s, e] of spans) {
    const last = out[out.length - 1];
    if (last && s <= last[1] + JOIN_MS) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

// One stretch per scheduler load. Entries with the same ops and enable_seq
// are one load (the kernel numbers every enable), so the scheduler ran from
// the first one's first_ms to the last one's last_ms; an exit of that
// scheduler after its last sighting (and before the next load) ends it there.
// Without enable_seq (older kernels) an entry continues the previous one of
// the same ops unless an exit of it came in between: no reload without one.
export function schedulerLoads(schedulers, exits) {
  const byLoad = new Map();
  const open = new Map(); // ops -> [key, last_ms] of its latest load without enable_seq
  (schedulers || []).forEach((s, i) => {
    let key;
    if (s.enable_seq !== undefined && s.enable_seq !== null) key = `${s.ops}\u0000${s.enable_seq}`;
    else {
      const prev = open.get(s.ops);
      const exited = prev && (exits || []).some((e) => e.ops === s.ops && e.t_ms >= prev[1] && e.t_ms <= s.first_ms);
      key = prev && !exited ? prev[0] : `#${i}`;
      open.set(s.ops, [key, Math.max(s.last_ms, prev && !exited ? prev[1] : 0)]);
    }
    const cur = byLoad.get(key);
    if (cur) {
      cur.start = Math.min(cur.start, s.first_ms);
      cur.end = Math.max(cur.end, s.last_ms);
      cur.partial = cur.partial || !!s.partial;
    } else {
      byLoad.set(key, { name: s.ops || 'sched_ext', enable_seq: s.enable_seq ?? null, start: s.first_ms, end: s.last_ms, partial: !!s.partial });
    }
  });
  const loads = [...byLoad.values()].sort((a, b) => a.start - b.start);
  const used = new Set();
  loads.forEach((l, i) => {
    const next = loads[i + 1] ? loads[i + 1].start : Infinity;
    const x = (exits || []).findIndex((e, k) => !used.has(k) && e.ops === l.name && e.t_ms >= l.end && e.t_ms <= next);
    if (x >= 0) {
      used.add(x);
      l.end = exits[x].t_ms;
      l.exit = exits[x];
    }
  });
  return loads;
}

// The timeline of [from, to): sched_ext loads where they ran and FAIR over
// the rest of what reports cover; the parts no report covers are left out.
// Returns [{name, start, end, scx, enable_seq, partial}] sorted by start.
export function timeline(resp, from, to) {
  const covered = coverage(resp.points, from, to);
  const loads = schedulerLoads(resp.schedulers, resp.exits)
    .map((l) => ({ ...l, scx: true, span: clip(l.start, Math.max(l.end, l.start + 1), from, to) }))
    .filter((l) => l.span)
    .map(({ span, ...l }) => ({ ...l, start: span[0], end: span[1] }));
  const out = [...loads];
  // fair: each covered stretch minus the sched_ext loads
  for (const [cs, ce] of covered) {
    let at = cs;
    for (const l of loads) {
      if (l.end <= at || l.start >= ce) continue;
      if (l.start > at) out.push({ name: FAIR, start: at, end: l.start, scx: false });
      at = Math.max(at, l.end);
    }
    if (at < ce) out.push({ name: FAIR, start: at, end: ce, scx: false });
  }
  return out.sort((a, b) => a.start - b.start);
}

// A point of the API is one step of reports (GET .../health?step): its
// counts are summed over them and start_ms/end_ms are their earliest start
// and latest end, so a rate is a sum over this span (a lost report inside a
// point lowers it; coverage() likewise sees a point as one stretch), and its
// rss_bytes is the latest report's.
const secs = (p) => Math.max(0.001, (p.end_ms - p.start_ms) / 1000);

// Counters the kernel keeps in ns rather than as a number of events
// (SCX_EV_BYPASS_DURATION): shown as time, on their own axis.
export const isDuration = (name) => name.endsWith('_duration');

// The event counters: per name its rate per point (per second, at the
// point's end) and its total over the range; nr_rejected as one more.
// Returns [{name, points: [{x, y}], total, duration}] with the busiest first.
export function eventSeries(points) {
  const byName = new Map();
  const add = (name, p, v) => {
    if (!Number.isFinite(v)) return;
    let s = byName.get(name);
    if (!s) byName.set(name, (s = { name, points: [], total: 0, duration: isDuration(name) }));
    s.points.push({ x: p.end_ms, y: v / secs(p) });
    s.total += v;
  };
  for (const p of points || []) {
    for (const [name, v] of Object.entries(p.events || {})) add(name, p, v);
    if (p.nr_rejected !== undefined && p.nr_rejected !== null) add('nr_rejected', p, p.nr_rejected);
  }
  // counts before durations (ns would outrank every count), then the busiest first
  return [...byName.values()].sort((a, b) => a.duration - b.duration || b.total - a.total || a.name.localeCompare(b.name));
}

// Work conservation per L3 domain: per point the share (%) of the
// domain's runqueue wait during which another CPU of the domain sat idle,
// and the sums over the range. Domains are told apart by their CPU list.
// Returns [{cpus, key, points: [{x, y}], wait_ns, idle_ns, waits, idle_waits, share}].
export function l3Series(points) {
  const byKey = new Map();
  for (const p of points || []) {
    for (const d of p.l3 || []) {
      const key = (d.cpus || []).join(',');
      let s = byKey.get(key);
      if (!s) byKey.set(key, (s = { cpus: d.cpus || [], key, points: [], wait_ns: 0, idle_ns: 0, waits: 0, idle_waits: 0 }));
      const wait = d.wait_ns || 0, idle = d.idle_sibling_wait_ns || 0;
      s.wait_ns += wait;
      s.idle_ns += idle;
      s.waits += d.waits || 0;
      s.idle_waits += d.idle_sibling_waits || 0;
      s.points.push({ x: p.end_ms, y: wait > 0 ? (100 * idle) / wait : null });
    }
  }
  const out = [...byKey.values()];
  for (const s of out) s.share = s.wait_ns > 0 ? (100 * s.idle_ns) / s.wait_ns : null;
  return out;
}

// The agent's own cost per point: CPU as a share of one core (%), RSS,
// BPF run time per second of wall time and BPF program runs per second.
// Returns {cpu, rss, bpfNs, bpfRuns: [{x, y}], mean: {cpu, bpfNs}, lastRss}
// or null when no report carried the figures.
export function agentSeries(points) {
  const cpu = [], rss = [], bpfNs = [], bpfRuns = [];
  let cpuNs = 0, cpuWall = 0, bpfTime = 0, bpfWall = 0, lastRss = null;
  for (const p of points || []) {
    const a = p.agent;
    if (!a) continue;
    const s = secs(p);
    if (Number.isFinite(a.cpu_ns)) {
      cpu.push({ x: p.end_ms, y: (100 * a.cpu_ns) / (s * 1e9) });
      cpuNs += a.cpu_ns;
      cpuWall += s;
    }
    if (Number.isFinite(a.rss_bytes)) {
      rss.push({ x: p.end_ms, y: a.rss_bytes });
      lastRss = a.rss_bytes;
    }
    if (Number.isFinite(a.bpf_run_time_ns)) {
      bpfNs.push({ x: p.end_ms, y: a.bpf_run_time_ns / s });
      bpfTime += a.bpf_run_time_ns;
      bpfWall += s;
    }
    if (Number.isFinite(a.bpf_run_cnt)) bpfRuns.push({ x: p.end_ms, y: a.bpf_run_cnt / s });
  }
  if (!cpu.length && !rss.length && !bpfNs.length) return null;
  return {
    cpu, rss, bpfNs, bpfRuns, lastRss,
    mean: { cpu: cpuWall ? (100 * cpuNs) / (cpuWall * 1e9) : null, bpfNs: bpfWall ? bpfTime / bpfWall : null },
    // the wall time the BPF figures cover, for the per-program table's rates
    bpfWallS: bpfWall,
  };
}
