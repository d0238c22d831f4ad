// fleet.js - the fleet at a glance: where is runqueue latency bad and under
// which scheduler. Fleet p50/p99/p99.9 over time, the same split by sched_ext
// scheduler or kernel side by side on one scale (the scheduler experiment
// view), and every host in a sortable, filterable table with its iocost
// status per disk. Filter and sort live in the URL like the time range.
// Above the table, the hosts whose sched_ext scheduler was ejected in the
// range, and under it what the agents themselves cost (issue 17,
// fleet_health.js). Each scheduler (or kernel) of the split links to the
// Experiments page with it as arm A (issue 15). A host's labels (issue 15)
// show beside its name as key=value, and the filter matches them.
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill, loading, empty, failure, section, chartBox } from '../dom.js';
import { dataTable } from '../table.js';
import { timeSeriesConfig, pointsOf } from '../charts/timeseries.js';
import { fleetHealth } from './fleet_health.js';
import { exitKind } from '../health.js';

const PCTS = [['p50_ns', 'p50', '#10b981'], ['p99_ns', 'p99', '#f59e0b'], ['p999_ns', 'p99.9', '#ef4444']];

// An agent that lost its state folder (reinstall, re-imaged disk) starts its
// seq over: its reports are all kept, and the seam shows as a restart for a
// day, so a gap before it reads as a restart rather than as a silent host.
const RESTART_SHOWN_MS = 86400e3;
function restartBadge(r, now = Date.now()) {
  if (!r.agent_restarted_ms || now - r.agent_restarted_ms > RESTART_SHOWN_MS) return null;
  return [' ', h('span', { class: 'badge restart', title: fmt.dateTime(r.agent_restarted_ms) }, `agent restarted ${fmt.ago(r.agent_restarted_ms, now)}`)];
}

// "key=value" of each of a host's labels (none for a host without labels).
function labelsOf(host) {
  return Object.entries(host.labels || {}).map(([k, v]) => `${k}=${v}`);
}
const labelBadges = (r) => labelsOf(r).map((l) => [' ', h('span', { class: 'badge muted host-label' }, l)]);

export function schedulerOf(host) {
  const s = host.sched_ext;
  if (s && s.state === 'enabled' && s.ops) return s.ops;
  return 'fair';
}

// [badge class, short text, full text]
const RECOMMENDATION = {
  in_use: ['ok', 'recommended', 'the recommended io.cost config is in use'],
  differs: ['warn', 'differs', 'the io.cost config in force differs from the recommended one'],
  no_data: ['muted', 'no data', 'the SSD database has no result for this model'],
};

function diskBadges(host) {
  if (!host.disks || !host.disks.length) return h('span', { class: 'muted' }, 'no disks');
  return h('ul', { class: 'disks' }, host.disks.map((d) => {
    const rec = RECOMMENDATION[d.recommendation];
    return h('li', {},
      h('span', { class: 'disk-name', title: [d.model, d.fwrev].filter(Boolean).join(' · ') }, d.name || d.dev),
      ' ',
      h('span', { class: `badge ${d.iocost_enabled ? 'on' : 'off'}` }, d.iocost_enabled ? 'iocost on' : 'iocost off'),
      rec ? [' ', h('span', { class: `badge ${rec[0]}`, title: rec[2] }, rec[1], h('span', { class: 'sr-only' }, `: ${rec[2]}`))] : null);
  }));
}

function medianOf(values) {
  const v = values.filter((x) => x > 0).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export function mount(ctx) {
  ctx.setTitle('Fleet');
  const p = ctx.params;
  let groupBy = p.get('group_by') === 'kernel' ? 'kernel' : 'sched_ext';

  const summary = h('p', { class: 'summary', role: 'status' });
  const fleet = section('Fleet runqueue latency');
  const fleetChart = chartBox('Fleet runqueue latency p50, p99 and p99.9 over time', 260);

  const groupSel = h('select', { id: 'group-by', 'aria-label': 'Split by' },
    h('option', { value: 'sched_ext', selected: groupBy === 'sched_ext' }, 'sched_ext scheduler'),
    h('option', { value: 'kernel', selected: groupBy === 'kernel' }, 'kernel'));
  const split = section('Scheduler experiment', h('label', {}, 'Split by ', groupSel));

  const filter = h('input', { type: 'search', id: 'host-filter', placeholder: 'Filter by hostname, kernel, scheduler, label, disk…', 'aria-label': 'Filter hosts', value: p.get('q') || '' });
  const hostsSec = section('Hosts', filter);
  const health = fleetHealth(ctx);
  // a host whose scheduler was ejected in the range says so next to its scheduler
  const ejectedBadge = (r) => {
    const n = health.ejections(r.id);
    if (!n) return null;
    const e = health.lastExit(r.id);
    const why = e ? `${e.ops}: ${exitKind(e.kind).text} (${e.reason || 'no reason given'})` : '';
    return [' ', h('span', { class: 'badge err', title: why }, `ejected ×${n}`, h('span', { class: 'sr-only' }, why ? ` — ${why}` : ''))];
  };
  const table = dataTable([
    { key: 'hostname', label: 'Host', render: (r) => h('span', {}, h('a', { href: `/host?id=${encodeURIComponent(r.id)}` }, r.hostname || r.id), labelBadges(r)) },
    { key: 'kernel', label: 'Kernel' },
    { key: 'sched', label: 'Scheduler', value: (r) => schedulerOf(r), render: (r) => h('span', {}, schedulerOf(r), ejectedBadge(r)) },
    { key: 'p50', label: 'p50 (5 min)', num: true, value: (r) => r.runqlat && r.runqlat.p50_ns, render: (r) => fmt.ns(r.runqlat && r.runqlat.p50_ns) },
    { key: 'p99', label: 'p99 (5 min)', num: true, value: (r) => r.runqlat && r.runqlat.p99_ns, render: (r) => fmt.ns(r.runqlat && r.runqlat.p99_ns) },
    { key: 'disks', label: 'Disks and iocost', value: (r) => (r.disks || []).map((d) => d.recommendation || '').join(), render: diskBadges },
    { key: 'seen', label: 'Last seen', num: true, value: (r) => r.last_seen_ms, render: (r) => h('span', {}, fmt.ago(r.last_seen_ms), r.stale ? [' ', h('span', { class: 'badge warn' }, 'stale')] : null, restartBadge(r)) },
  ], {
    caption: 'Hosts of the fleet: runqueue latency p50/p99 over the last 5 minutes; per disk whether iocost is on and whether the SSD database\'s recommended config is in use, differs, or the model has no data',
    sort: p.get('sort') || 'p99', dir: p.get('dir') || 'desc',
    text: (r) => [r.hostname, r.id, r.kernel, schedulerOf(r), ...labelsOf(r), ...(r.disks || []).map((d) => `${d.name} ${d.model}`)].join(' '),
    onSort: (sort, dir) => ctx.setParams({ sort, dir }),
    rowClass: (r) => (r.stale ? 'stale' : ''),
    emptyText: 'No host has reported yet. Point an agent at this server: schedio-agent --server URL',
  });
  table.setFilter(filter.value);
  filter.addEventListener('input', () => {
    table.setFilter(filter.value);
    ctx.setParams({ q: filter.value });
  });

  // the ejections come before the hosts table, the agents' cost (a table too) after it
  fill(ctx.root, h('h1', {}, 'Fleet'), summary, fleet.el, split.el, health.ejectSec.el, hostsSec.el, health.costSec.el);
  fill(health.ejectSec.body, loading('ejections'));
  fill(health.costSec.body, loading('agent cost'));
  fill(fleet.body, loading('fleet latency'));
  fill(split.body, loading('the split'));
  fill(hostsSec.body, loading('hosts'));

  // the hosts table waits for the health answer (its ejection badges), which fails on its own
  async function loadHosts(signal, healthDone) {
    try {
      const [{ hosts }] = await Promise.all([api.hosts(signal), healthDone]);
      const stale = hosts.filter((x) => x.stale).length;
      const scheds = new Set(hosts.map(schedulerOf));
      summary.textContent = `${hosts.length} hosts, ${stale} stale, ${scheds.size} scheduler${scheds.size === 1 ? '' : 's'} in use.`;
      if (!hostsSec.body.contains(table.el)) fill(hostsSec.body, table.el);
      table.setRows(hosts);
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      fill(hostsSec.body, failure('hosts', err));
    }
  }

  async function loadFleet(signal) {
    const r = ctx.range();
    try {
      const resp = await api.fleetRunqlat({ from: Math.round(r.from), to: Math.round(r.to), group_by: 'none' }, signal);
      const series = (resp.groups[0] || {}).series || [];
      if (!series.some((x) => x.count > 0)) return fill(fleet.body, empty('No runqueue latency reported in this time range.'));
      fill(fleet.body, fleetChart.box);
      ctx.charts.put('fleet', fleetChart.canvas, timeSeriesConfig(
        PCTS.map(([f, label, color]) => ({ label, color, points: pointsOf(series, f) })),
        { from: resp.from, to: resp.to, format: fmt.ns, log: true, yTitle: 'runqueue latency' }));
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      fill(fleet.body, failure('fleet latency', err));
    }
  }

  // each group of the split opens the Experiments page with it as arm A
  const experimentLink = (key) => h('a', {
    class: 'experiment-link', href: `/experiments?${new URLSearchParams({ a: `${groupBy === 'kernel' ? 'kernel' : 'sched'}=${key}` })}`,
    'aria-label': `Compare ${key} with another ${groupBy === 'kernel' ? 'kernel' : 'scheduler'}`,
  }, 'compare…');

  async function loadSplit(signal) {
    const r = ctx.range();
    try {
      const resp = await api.fleetRunqlat({ from: Math.round(r.from), to: Math.round(r.to), group_by: groupBy }, signal);
      const groups = resp.groups.filter((g) => g.series.some((x) => x.count > 0));
      for (const key of [...ctx.charts.slots.keys()]) if (key.startsWith('split:')) ctx.charts.drop(key);
      if (!groups.length) return fill(split.body, empty('No runqueue latency reported in this time range.'));
      // one scale for all panels, or the comparison would mislead
      let lo = Infinity, hi = 0;
      for (const g of groups) for (const x of g.series) {
        if (x.p50_ns > 0) lo = Math.min(lo, x.p50_ns);
        if (x.p999_ns > 0) hi = Math.max(hi, x.p999_ns);
      }
      const rows = groups.map((g) => ({
        key: g.key, hosts: g.hosts,
        p50: medianOf(g.series.map((x) => x.p50_ns)),
        p99: medianOf(g.series.map((x) => x.p99_ns)),
        p999: medianOf(g.series.map((x) => x.p999_ns)),
      }));
      const compare = h('table', { class: 'data compact' },
        h('caption', {}, 'Median over the range of each interval\'s percentile'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, groupBy === 'kernel' ? 'Kernel' : 'Scheduler'),
          h('th', { scope: 'col', class: 'num' }, 'Hosts'), h('th', { scope: 'col', class: 'num' }, 'p50'),
          h('th', { scope: 'col', class: 'num' }, 'p99'), h('th', { scope: 'col', class: 'num' }, 'p99.9'))),
        h('tbody', {}, rows.map((x) => h('tr', {}, h('th', { scope: 'row' }, x.key, ' ', experimentLink(x.key)), h('td', { class: 'num' }, fmt.count(x.hosts)),
          h('td', { class: 'num' }, fmt.ns(x.p50)), h('td', { class: 'num' }, fmt.ns(x.p99)), h('td', { class: 'num' }, fmt.ns(x.p999))))));
      const panels = groups.map((g) => {
        const box = chartBox(`Runqueue latency for ${g.key}`, 220);
        return { g, box, el: h('figure', { class: 'panel' }, h('figcaption', {}, `${g.key} · ${fmt.count(g.hosts)} host${g.hosts === 1 ? '' : 's'}`), box.box) };
      });
      fill(split.body, compare, h('div', { class: 'panels' }, panels.map((x) => x.el)));
      for (const { g, box } of panels)
        ctx.charts.put(`split:${g.key}`, box.canvas, timeSeriesConfig(
          PCTS.map(([f, label, color]) => ({ label, color, points: pointsOf(g.series, f) })),
          { from: resp.from, to: resp.to, format: fmt.ns, log: true, min: lo * 0.8, max: hi * 1.25 }));
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      fill(split.body, failure('the split', err));
    }
  }

  let lastSignal = null;
  groupSel.addEventListener('change', () => {
    groupBy = groupSel.value;
    ctx.setParams({ group_by: groupBy === 'sched_ext' ? null : groupBy });
    fill(split.body, loading('the split'));
    loadSplit(lastSignal).catch(() => {});
  });

  return {
    refresh(signal) {
      lastSignal = signal;
      const healthDone = health.load(signal);
      return Promise.all([loadHosts(signal, healthDone), loadFleet(signal), loadSplit(signal), healthDone]);
    },
    destroy() {},
  };
}
