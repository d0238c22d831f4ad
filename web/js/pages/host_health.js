// host_health.js - the host page's "sched_ext health" section (issue 17):
// which scheduler ran when with every exit listed under the timeline (kind
// and the kernel's reason and message), the kernel's sched_ext event counters
// as rates per point, work conservation per L3 domain (the share of the
// runqueue wait spent while a sibling CPU sat idle) next to that domain's
// runqueue latency, and the agent's own CPU, memory and BPF cost. A part with
// nothing in the range says so instead of drawing an empty chart.
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill, empty, section, chartBox, guard, scrollRegion } from '../dom.js';
import { dataTable } from '../table.js';
import { timeSeriesConfig, pointsOf } from '../charts/timeseries.js';
import { timelineConfig } from '../charts/timeline.js';
import { timeline, exitKind, eventSeries, l3Series, agentSeries, FAIR, pct3, perSec } from '../health.js';

// Lines drawn at most per chart; the tables list everything.
const MAX_EVENT_LINES = 8;
const MAX_L3_PANELS = 8;

const part = (id, title) => {
  const body = h('div', { class: 'health-body' });
  return { el: h('div', { class: 'health-part', id }, h('h3', {}, title), body), body };
};

// The timeline and, under it, every exit with its kind, reason and message.
function drawSchedulers(ctx, p, resp, range) {
  const segs = timeline(resp, range.from, range.to);
  const exits = resp.exits || [];
  if (!segs.length && !exits.length) {
    ctx.charts.drop('health:timeline');
    return fill(p.body, empty('No report in this time range, so nothing is known about the scheduler.'));
  }
  const scx = segs.filter((s) => s.scx);
  const names = [...new Set(scx.map((s) => s.name))];
  const ejected = exits.filter((e) => exitKind(e.kind).ejected);
  const summary = h('p', { class: 'muted', role: 'status' }, scx.length
    ? `${names.join(', ')} ran in this range (${scx.length} load${scx.length === 1 ? '' : 's'}); ${FAIR} between them. ` +
      `${ejected.length ? `${ejected.length} ejection${ejected.length === 1 ? '' : 's'}` : 'No ejection'}, ${exits.length - ejected.length} orderly unload${exits.length - ejected.length === 1 ? '' : 's'}.`
    : `No sched_ext scheduler ran in this range: ${FAIR} throughout what the reports cover.`);
  const box = chartBox(`Scheduler timeline: ${names.length ? names.join(', ') + ' and ' : ''}${FAIR} over time, ${exits.length} exit(s) marked`, 110);
  const rows = exits.map((e) => {
    const k = exitKind(e.kind);
    return h('tr', { class: k.ejected ? 'ejected' : null, dataset: { kind: e.kind || '' } },
      h('td', {}, fmt.dateTime(e.t_ms)),
      h('td', {}, e.ops || '–'),
      h('td', {}, h('span', { class: `badge ${k.ejected ? 'err' : 'muted'}` }, k.ejected ? 'ejected' : 'unloaded'), ' ', k.text, ' ', h('code', {}, e.kind || 'unknown')),
      h('td', { class: 'wrap exit-reason' }, e.reason || '–'),
      h('td', { class: 'wrap exit-message' }, e.message ? h('code', {}, e.message) : '–'));
  });
  const list = exits.length
    ? scrollRegion('sched_ext exits', h('table', { class: 'data', id: 'health-exits' },
      h('caption', {}, 'Every exit of a sched_ext scheduler in the range, oldest first: the kernel\'s exit kind, reason and message'),
      h('thead', {}, h('tr', {}, ['Time', 'Scheduler', 'Exit', 'Reason', 'Message'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)))
    : h('p', { class: 'muted', id: 'health-exits-none' }, 'No sched_ext scheduler exited or was ejected in this range.');
  fill(p.body, summary, segs.length ? box.box : null, list);
  if (segs.length) ctx.charts.put('health:timeline', box.canvas, timelineConfig(segs, exits, range));
  else ctx.charts.drop('health:timeline');
}

// The event counters: the busiest as rates over time, all of them in a table.
function drawEvents(ctx, p, resp, range) {
  const series = eventSeries(resp.points);
  // nr_rejected alone, at zero, is what a host without a scheduler reports
  const counters = (resp.points || []).some((x) => x.events && Object.keys(x.events).length);
  if (!series.length || (!counters && series.every((s) => s.total === 0))) {
    ctx.charts.drop('health:events');
    return fill(p.body, empty('No sched_ext event counters in this range: no scheduler ran, or the kernel has no events file.'));
  }
  const busy = series.filter((s) => s.total > 0 && !s.duration).slice(0, MAX_EVENT_LINES);
  const times = series.filter((s) => s.total > 0 && s.duration);
  const drawn = [...busy, ...times];
  const box = chartBox(`sched_ext event counters per second over time: ${busy.map((s) => s.name).join(', ')}${times.length ? `; time per second (right axis): ${times.map((s) => s.name).join(', ')}` : ''}`, 220);
  const nsPerSec = (v) => `${fmt.ns(v)}/s`;
  const table = scrollRegion('sched_ext event counters', h('table', { class: 'data compact', id: 'health-events-table' },
    h('caption', {}, 'sched_ext event counters over the range (the kernel\'s counts, and time for a *_duration counter; nr_rejected: tasks the scheduler refused)'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Counter'), h('th', { scope: 'col', class: 'num' }, 'Total'),
      h('th', { scope: 'col', class: 'num' }, 'Peak rate'))),
    h('tbody', {}, series.map((s) => h('tr', { dataset: { event: s.name } }, h('td', { class: 'mono' }, s.name),
      h('td', { class: 'num' }, s.duration ? fmt.ns(s.total) : fmt.count(s.total)),
      h('td', { class: 'num' }, (s.duration ? nsPerSec : perSec)(Math.max(...s.points.map((x) => x.y)))))))));
  fill(p.body, drawn.length ? box.box : h('p', { class: 'muted', role: 'status' }, `All ${series.length} counters stayed at zero in this range.`), table);
  if (drawn.length)
    ctx.charts.put('health:events', box.canvas, timeSeriesConfig([
      ...busy.map((s) => ({ label: s.name, points: s.points })),
      ...times.map((s, i) => ({ label: `${s.name} (time)`, points: s.points, axis: 'y2', dash: [4, 3], color: ['#64748b', '#84cc16'][i % 2] })),
    ], { ...range, format: perSec, min: 0, yTitle: 'events per second', y2: times.length ? { format: nsPerSec } : undefined }));
  else ctx.charts.drop('health:events');
}

// Work conservation: per L3 domain its idle-sibling share over time with its
// runqueue latency (p50/p99 on the right axis), the most affected first.
async function drawL3(ctx, p, resp, range, id, signal) {
  for (const key of [...ctx.charts.slots.keys()]) if (key.startsWith('health:l3:')) ctx.charts.drop(key);
  const domains = l3Series(resp.points);
  if (!domains.some((d) => d.points.length))
    return fill(p.body, empty('No work-conservation figures in this range (the agent did not report idle-sibling wait per L3 domain).'));
  const shown = [...domains].sort((a, b) => (b.share ?? -1) - (a.share ?? -1)).slice(0, MAX_L3_PANELS);
  const lat = await Promise.all(shown.map((d) => api.hostRunqlat(id, { from: range.from, to: range.to, cpu: d.key }, signal)
    .then((r) => r.series || [], (err) => {
      if (err.name === 'AbortError') throw err;
      return Object.assign([], { error: err.message || String(err) }); // the share is still drawn, the caption says why the latency is not
    })));
  const table = dataTable([
    { key: 'key', label: 'L3 domain (CPUs)', value: (r) => r.cpus[0], render: (r) => r.key },
    { key: 'share', label: 'Idle-sibling share', num: true, render: (r) => pct3(r.share) },
    { key: 'idle_ns', label: 'Idle-sibling wait', num: true, render: (r) => fmt.ns(r.idle_ns) },
    { key: 'wait_ns', label: 'Runqueue wait', num: true, render: (r) => fmt.ns(r.wait_ns) },
    { key: 'idle_waits', label: 'Idle-sibling waits', num: true, render: (r) => fmt.count(r.idle_waits) },
    { key: 'waits', label: 'Waits', num: true, render: (r) => fmt.count(r.waits) },
  ], { caption: 'Work conservation per L3 domain over the range: the part of the runqueue wait of its CPUs during which another CPU of the domain was idle', sort: 'share', dir: 'desc', text: (r) => r.key });
  const panels = shown.map((d, i) => {
    const box = chartBox(`L3 domain CPUs ${d.key}: idle-sibling share of runqueue wait and runqueue latency p50, p99 over time`, 220);
    // a domain whose CPUs never waited has neither a share nor a latency to draw
    const blank = !d.points.some((x) => x.y !== null) && !lat[i].some((x) => x.count > 0);
    return { d, box: blank ? null : box, lat: lat[i], el: h('figure', { class: 'panel', dataset: { l3: d.key } }, h('figcaption', {}, `CPUs ${d.key} · idle-sibling share ${pct3(d.share)}`,
        lat[i].error ? h('span', { class: 'state-error', role: 'alert' }, ` (runqueue latency could not be loaded: ${lat[i].error})`) : null),
      blank ? empty('No runqueue wait on these CPUs in this range.') : box.box) };
  });
  fill(p.body, h('div', { class: 'panels' }, panels.map((x) => x.el)),
    domains.length > shown.length ? h('p', { class: 'muted' }, `The ${shown.length} domains with the largest share are drawn; the table lists all ${domains.length}.`) : null,
    h('div', { id: 'health-l3-table' }, table.el));
  table.setRows(domains);
  for (const { d, box, lat: series } of panels.filter((x) => x.box))
    ctx.charts.put(`health:l3:${d.key}`, box.canvas, timeSeriesConfig([
      { label: 'idle-sibling share of wait', points: d.points.filter((x) => x.y !== null), color: '#8b5cf6' },
      { label: 'runqueue p50', points: pointsOf(series, 'p50_ns'), color: '#10b981', axis: 'y2', dash: [4, 3] },
      { label: 'runqueue p99', points: pointsOf(series, 'p99_ns'), color: '#ef4444', axis: 'y2', dash: [4, 3] },
    ], { ...range, format: pct3, min: 0, yTitle: 'share of runqueue wait', y2: { format: fmt.ns } }));
}

// The agent's own cost: CPU, memory and BPF over time, and per BPF program.
function drawAgent(ctx, p, resp, range) {
  const a = agentSeries(resp.points);
  if (!a) {
    for (const k of ['cpu', 'rss', 'bpf']) ctx.charts.drop(`health:agent:${k}`);
    return fill(p.body, empty('The agent reported no figures of its own cost in this range (an agent older than this dashboard, or no report).'));
  }
  const progs = resp.bpf_programs || [];
  const boxes = {
    cpu: chartBox('Agent CPU as a share of one core over time', 200),
    rss: chartBox('Agent resident memory over time', 200),
    bpf: chartBox('Agent BPF programs: run time per second and runs per second over time', 200),
  };
  const fig = (k, title, have) => (have ? h('figure', { class: 'panel' }, h('figcaption', {}, title), boxes[k].box) : null);
  const perSecOf = (ns) => (a.bpfWallS ? ns / a.bpfWallS : null);
  const table = progs.length
    ? scrollRegion('Agent BPF programs', h('table', { class: 'data compact', id: 'health-bpf-table' },
      h('caption', {}, 'The agent\'s BPF programs over the range (counted while run-time statistics were on, scaled to the whole interval)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Program'), h('th', { scope: 'col', class: 'num' }, 'Runs'),
        h('th', { scope: 'col', class: 'num' }, 'Run time'), h('th', { scope: 'col', class: 'num' }, 'Per run'),
        h('th', { scope: 'col', class: 'num' }, 'Per second'))),
      h('tbody', {}, [...progs].sort((x, y) => y.run_time_ns - x.run_time_ns).map((g) => h('tr', { dataset: { prog: g.name } },
        h('td', { class: 'mono' }, g.name), h('td', { class: 'num' }, fmt.count(g.run_cnt)), h('td', { class: 'num' }, fmt.ns(g.run_time_ns)),
        h('td', { class: 'num' }, g.run_cnt ? fmt.ns(g.run_time_ns / g.run_cnt) : '–'),
        h('td', { class: 'num' }, perSecOf(g.run_time_ns) === null ? '–' : `${fmt.ns(perSecOf(g.run_time_ns))}/s`))))))
    : h('p', { class: 'muted' }, 'No per-program BPF figures in this range.');
  fill(p.body,
    h('dl', { class: 'facts', id: 'health-agent-facts' },
      h('dt', {}, 'CPU (mean)'), h('dd', {}, `${pct3(a.mean.cpu)} of a core`),
      h('dt', {}, 'Resident memory (latest)'), h('dd', {}, fmt.bytes(a.lastRss)),
      h('dt', {}, 'BPF run time (mean)'), h('dd', {}, a.mean.bpfNs === null ? '–' : `${fmt.ns(a.mean.bpfNs)}/s (${pct3(a.mean.bpfNs / 1e7)} of a core)`)),
    h('div', { class: 'panels' }, fig('cpu', 'CPU', a.cpu.length), fig('rss', 'Memory', a.rss.length), fig('bpf', 'BPF', a.bpfNs.length)),
    table);
  const put = (k, have, config) => (have ? ctx.charts.put(`health:agent:${k}`, boxes[k].canvas, config) : ctx.charts.drop(`health:agent:${k}`));
  put('cpu', a.cpu.length, timeSeriesConfig([{ label: 'agent CPU', points: a.cpu, color: '#3b82f6' }], { ...range, format: pct3, min: 0, yTitle: 'share of one core' }));
  put('rss', a.rss.length, timeSeriesConfig([{ label: 'resident memory', points: a.rss, color: '#f59e0b' }], { ...range, format: (v) => (v === 0 ? '0' : fmt.bytes(v)), min: 0 }));
  put('bpf', a.bpfNs.length, timeSeriesConfig([
    { label: 'BPF run time per second', points: a.bpfNs, color: '#ef4444' },
    { label: 'BPF runs per second', points: a.bpfRuns, color: '#64748b', axis: 'y2', dash: [4, 3] },
  ], { ...range, format: (v) => `${fmt.ns(v)}/s`, min: 0, y2: { format: perSec } }));
}

// The section; load(signal) asks the server and draws every part.
export function healthSection(pg) {
  const sec = section('sched_ext health');
  sec.el.id = 'health';
  const parts = {
    sched: part('health-timeline', 'Scheduler timeline'),
    events: part('health-events', 'Event counters'),
    l3: part('health-l3', 'Work conservation per L3 domain'),
    agent: part('health-agent', 'The agent\'s own cost'),
  };
  const load = (signal) => guard(sec.body, 'sched_ext health', async () => {
    const { ctx } = pg;
    const r = ctx.range();
    const resp = await api.hostHealth(pg.id, { from: Math.round(r.from), to: Math.round(r.to) }, signal);
    const range = { from: resp.from ?? Math.round(r.from), to: resp.to ?? Math.round(r.to) };
    if (!sec.body.contains(parts.sched.el)) fill(sec.body, Object.values(parts).map((x) => x.el));
    drawSchedulers(ctx, parts.sched, resp, range);
    drawEvents(ctx, parts.events, resp, range);
    drawAgent(ctx, parts.agent, resp, range);
    await guard(parts.l3.body, 'work conservation', () => drawL3(ctx, parts.l3, resp, range, pg.id, signal));
  });
  return { sec, load };
}
