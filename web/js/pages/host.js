// host.js - one host: runqueue latency as a heatmap with its percentiles
// (whole host, one cgroup, one L3 domain or one CPU, chosen in the URL),
// a per-cgroup table, per-CPU and per-L3 bars, and per disk whether IO
// weights are honoured (weight share against usage share per cgroup, and
// over time with wait/debt/delay) next to the io.cost config in force and the
// recommended one; and its sched_ext health, work conservation per L3 domain
// and the agent's own cost (issue 17, host_health.js). For a host that ran
// more than one scheduler (issue 9) the whole host's view picks one of them
// (?sched=, the server's split of each interval) or, showing all, compares
// each one's p50/p99 under the chart; cgroup and CPU series are not split by
// scheduler, so the choice is off there.
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill, loading, empty, failure, section, chartBox, guard } from '../dom.js';
import { dataTable } from '../table.js';
import { copyBlock } from '../copy.js';
import { heatmapConfig } from '../charts/heatmap.js';
import { barsConfig } from '../charts/bars.js';
import { timeSeriesConfig, pointsOf } from '../charts/timeseries.js';
import { modelLine, qosLine, sameConfig } from '../iocost.js';
import { mergePoints } from '../hist.js';
import { schedulerOf } from './fleet.js';
import { healthSection } from './host_health.js';

const MAX_CPU_QUERIES = 64;

function scopeParams(scope, host) {
  const [kind, ...rest] = scope.split(':');
  const arg = rest.join(':');
  if (kind === 'cg') return { cgroup: arg };
  if (kind === 'cpu') return { cpu: arg };
  if (kind === 'l3' && host.l3_domains && host.l3_domains[Number(arg)]) return { cpu: host.l3_domains[Number(arg)].join(',') };
  return {};
}

function rangeParams(ctx, extra) {
  const r = ctx.range();
  return { from: Math.round(r.from), to: Math.round(r.to), ...extra };
}

// A summary of the whole range in one point: one step as wide as the range.
function wholeRange(ctx, extra) {
  const r = ctx.range();
  return rangeParams(ctx, { step: Math.max(1000, Math.round(r.to - r.from)), ...extra });
}

// The whole range as one point. The server aligns steps to multiples of
// the step, so even a step as wide as the range may come back as two
// points: they are merged by their buckets, which is exact.
function merged(resp) {
  return resp.series && resp.series.length ? mergePoints(resp.series, resp.layout) : null;
}

function mean(series, field) {
  let s = 0, n = 0;
  for (const p of series) if (Number.isFinite(p[field])) { s += p[field]; n++; }
  return n ? s / n : null;
}

// The page's state, shared by its sections: the host (once its details are
// in), the scope and scheduler chosen, and the signal of the last refresh.
function pageState(ctx) {
  const pg = {
    ctx, id: ctx.params.get('id'), host: null, signal: null,
    scope: ctx.params.get('scope') || 'host',
    // '' is every scheduler; kept in the URL while another scope is shown, for the way back
    sched: ctx.params.get('sched') || '',
    schedulers: () => (pg.host && pg.host.schedulers) || [],
    // The scheduler the heatmap is for: '' for all of them, and always for a
    // host with one scheduler or a view that is not the whole host.
    schedShown: () => (pg.scope === 'host' && pg.schedulers().length > 1 ? pg.sched : ''),
    choose: () => {}, chooseSched: () => {}, // set by the latency section
  };
  return pg;
}

// The host's facts: kernel, CPUs, scheduler, agent, last seen, id.
function hostHead(pg) {
  const el = h('div', { class: 'host-head' });
  function draw() {
    const { ctx, host } = pg;
    ctx.setTitle(host.hostname || host.id);
    const ext = host.sched_ext;
    fill(el, h('h1', {}, host.hostname || host.id),
      h('dl', { class: 'facts' },
        h('dt', {}, 'Kernel'), h('dd', {}, `${host.kernel || '–'} (${host.arch || '?'})`),
        h('dt', {}, 'CPUs'), h('dd', {}, `${host.cpus ?? '–'} in ${(host.l3_domains || []).length || '?'} L3 domain(s)`),
        h('dt', {}, 'Scheduler'), h('dd', {}, schedulerOf(host), ext ? h('span', { class: 'muted' }, ` (sched_ext ${ext.state})`) : null),
        h('dt', {}, 'Agent'), h('dd', {}, host.agent_version || '–',
          // a new agent incarnation whose seq went back: its state folder was lost or restored (reinstall, new disk, backup)
          host.agent_restarted_ms ? [' ', h('span', { class: 'badge restart', title: fmt.dateTime(host.agent_restarted_ms) }, `restarted ${fmt.ago(host.agent_restarted_ms)}`)] : null),
        h('dt', {}, 'Last seen'), h('dd', {}, `${fmt.ago(host.last_seen_ms)} (${fmt.dateTime(host.last_seen_ms)})`),
        h('dt', {}, 'Host id'), h('dd', { class: 'mono' }, host.id)));
  }
  return { el, draw };
}

// The scope choice (whole host, cgroup, L3 domain, CPU) and, for a host that
// ran more than one scheduler, the scheduler choice with its hint.
function latencyChoice(pg) {
  const scopeSel = h('select', { id: 'scope', 'aria-label': 'Show latency for' });
  const schedSel = h('select', { id: 'sched', 'aria-describedby': 'sched-hint' });
  const schedHint = h('span', { id: 'sched-hint', class: 'hint muted' }, 'Only the whole host is split by scheduler: cgroup, CPU and L3 series are not.');
  const schedPick = h('span', { class: 'sched-pick', hidden: true }, h('label', {}, 'Scheduler ', schedSel), schedHint);
  scopeSel.addEventListener('change', () => pg.choose(scopeSel.value));
  schedSel.addEventListener('change', () => pg.chooseSched(schedSel.value));
  function drawPick() {
    schedPick.hidden = pg.schedulers().length < 2;
    schedSel.disabled = pg.scope !== 'host';
    schedHint.hidden = pg.scope === 'host';
  }
  function drawScopes() {
    const host = pg.host;
    const opts = [h('option', { value: 'host' }, 'Whole host (all CPUs)')];
    if ((host.cgroups || []).length) opts.push(h('optgroup', { label: 'Cgroup' }, host.cgroups.map((c) => h('option', { value: `cg:${c}` }, c))));
    if ((host.l3_domains || []).length) opts.push(h('optgroup', { label: 'L3 domain' }, host.l3_domains.map((d, i) => h('option', { value: `l3:${i}` }, `L3 #${i} (CPU ${d.join(', ')})`))));
    if (host.cpus) opts.push(h('optgroup', { label: 'CPU' }, Array.from({ length: Math.min(host.cpus, 1024) }, (_, i) => h('option', { value: `cpu:${i}` }, `CPU ${i}`))));
    fill(scopeSel, opts);
    scopeSel.value = pg.scope;
    if (scopeSel.value !== pg.scope) { pg.scope = 'host'; scopeSel.value = 'host'; }
  }
  function draw() {
    drawScopes();
    // a scheduler the host did not run lately (or a host with one) shows all
    const names = pg.schedulers();
    if (pg.sched && (names.length < 2 || !names.includes(pg.sched))) {
      pg.sched = '';
      pg.ctx.setParams({ sched: null });
    }
    fill(schedSel, h('option', { value: '' }, 'All'), names.map((n) => h('option', { value: n }, n)));
    schedSel.value = pg.sched;
    drawPick();
  }
  return { scopeSel, schedSel, schedPick, draw, drawPick };
}

// The runqueue latency heatmap of the chosen scope (and scheduler).
function heatmap(pg, body) {
  const heat = chartBox('Runqueue latency heatmap over time with p50, p90 and p99', 320);
  const params = () => {
    const s = pg.schedShown();
    return rangeParams(pg.ctx, { ...scopeParams(pg.scope, pg.host), ...(s ? { sched: s } : {}) });
  };
  // early: a request already sent (before the host's details came back)
  return (signal, early) => guard(body, 'latency', async () => {
    const s = pg.schedShown();
    const resp = await (early || api.hostRunqlat(pg.id, params(), signal));
    const config = heatmapConfig(resp);
    if (!config) {
      pg.ctx.charts.drop('heatmap');
      return fill(body, empty(`No runqueue latency reported for this selection${s ? ` under ${s}` : ''} in this time range.`));
    }
    heat.canvas.setAttribute('aria-label', `Runqueue latency heatmap over time with p50, p90 and p99${s ? `, samples run by ${s} only` : ''}`);
    fill(body, heat.box);
    pg.ctx.charts.put('heatmap', heat.canvas, config);
  });
}

// Each scheduler side by side under the chart while all are shown: one
// request per scheduler, one step as wide as the range.
function schedulerComparison(pg) {
  const box = h('div', { class: 'sched-compare', hidden: true });
  const cell = (v, cls) => h('td', { class: cls }, v);
  const row = (r) => h('tr', { dataset: { sched: r.name } },
    h('td', {}, h('button', { type: 'button', class: 'linkish', 'aria-label': `Show only ${r.name}`, onclick: () => pg.chooseSched(r.name) }, r.name)),
    cell(fmt.count(r.count), 'num'), cell(fmt.ns(r.p50_ns), 'num'), cell(fmt.ns(r.p99_ns), 'num'));
  const load = (signal) => guard(box, 'each scheduler\'s latency', async () => {
    const names = pg.schedulers();
    box.hidden = pg.scope !== 'host' || names.length < 2 || !!pg.sched;
    if (box.hidden) return fill(box);
    fill(box, loading('each scheduler\'s latency'));
    const rows = await Promise.all(names.map(async (name) => {
      const p = merged(await api.hostRunqlat(pg.id, wholeRange(pg.ctx, { sched: name }), signal)) || {};
      return { name, count: p.count || 0, p50_ns: p.p50_ns, p99_ns: p.p99_ns };
    }));
    fill(box, h('div', { class: 'table-wrap' }, h('table', { class: 'data compact', id: 'sched-table' },
      h('caption', {}, 'Runqueue latency per scheduler over the range (choose one to see only its samples)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Scheduler'), h('th', { scope: 'col', class: 'num' }, 'Samples'),
        h('th', { scope: 'col', class: 'num' }, 'p50'), h('th', { scope: 'col', class: 'num' }, 'p99'))),
      h('tbody', {}, rows.map(row)))));
  });
  return { box, load };
}

// The runqueue latency section: the choices, the heatmap and, under All,
// each scheduler compared; choosing a scope or scheduler redraws it.
function latencySection(pg) {
  const pick = latencyChoice(pg);
  const sec = section('Runqueue latency', h('label', {}, 'Show ', pick.scopeSel), pick.schedPick);
  const loadHeatmap = heatmap(pg, sec.body);
  const cmp = schedulerComparison(pg);
  sec.el.append(cmp.box);
  const redraw = () => {
    fill(sec.body, loading('latency'));
    loadHeatmap(pg.signal).catch(() => {});
    cmp.load(pg.signal).catch(() => {});
  };
  pg.choose = (s) => {
    pg.scope = s;
    pick.scopeSel.value = s;
    pg.ctx.setParams({ scope: s === 'host' ? null : s });
    pick.drawPick();
    redraw();
    sec.el.scrollIntoView({ block: 'nearest' });
  };
  pg.chooseSched = (s) => {
    pg.sched = s;
    pick.schedSel.value = s;
    pg.ctx.setParams({ sched: s || null });
    redraw();
  };
  return { sec, drawChoices: pick.draw, loadHeatmap, loadSchedulers: cmp.load };
}

// Runqueue latency per cgroup over the range, as a table; a cgroup's name
// shows its heatmap.
function cgroupSection(pg) {
  const sec = section('Per cgroup');
  const table = dataTable([
    { key: 'path', label: 'Cgroup', render: (r) => h('button', { type: 'button', class: 'linkish', onclick: () => pg.choose(`cg:${r.path}`) }, r.path) },
    { key: 'count', label: 'Samples', num: true, render: (r) => fmt.count(r.count) },
    { key: 'p50_ns', label: 'p50', num: true, render: (r) => fmt.ns(r.p50_ns) },
    { key: 'p99_ns', label: 'p99', num: true, render: (r) => fmt.ns(r.p99_ns) },
    { key: 'p999_ns', label: 'p99.9', num: true, render: (r) => fmt.ns(r.p999_ns) },
    { key: 'max_ns', label: 'max', num: true, render: (r) => fmt.ns(r.max_ns) },
  ], { caption: 'Runqueue latency per cgroup over the range', sort: 'p99_ns', dir: 'desc', text: (r) => r.path, emptyText: 'No cgroup reported runqueue latency in this range.' });
  const load = (signal) => guard(sec.body, 'cgroups', async () => {
    const paths = pg.host.cgroups || [];
    if (!paths.length) return fill(sec.body, empty('No cgroup reported runqueue latency in the last 24 hours.'));
    const rows = await Promise.all(paths.map(async (path) => {
      const resp = await api.hostRunqlat(pg.id, wholeRange(pg.ctx, { cgroup: path }), signal);
      const p = merged(resp) || {};
      return { path, count: p.count || 0, p50_ns: p.p50_ns, p99_ns: p.p99_ns, p999_ns: p.p999_ns, max_ns: p.max_ns };
    }));
    if (!sec.body.contains(table.el)) fill(sec.body, table.el);
    table.setRows(rows.filter((r) => r.count > 0));
  });
  return { sec, load };
}

// p50 and p99 bars of one point per CPU or L3 domain.
function percentileBars(pts) {
  return [
    { label: 'p50', values: pts.map((p) => p.p50_ns ?? null), color: '#10b981' },
    { label: 'p99', values: pts.map((p) => p.p99_ns ?? null), color: '#ef4444' },
  ];
}

// Runqueue latency p50/p99 per CPU (the first MAX_CPU_QUERIES) and per L3 domain.
function cpuSection(pg) {
  const sec = section('Per CPU and L3 domain');
  // wholeHost: the whole host's runqlat response when it is being fetched
  // anyway (for the heatmap); an L3 domain of every CPU is the whole host.
  const load = (signal, wholeHost) => guard(sec.body, 'CPUs', async () => {
    const { ctx, host } = pg;
    const n = Math.min(host.cpus || 0, MAX_CPU_QUERIES);
    const domains = host.l3_domains || [];
    if (!n) return fill(sec.body, empty('This host did not report its CPUs.'));
    const one = async (cpu) => merged(await api.hostRunqlat(pg.id, wholeRange(ctx, { cpu }), signal)) || {};
    const domain = async (d) => (wholeHost && d.length === host.cpus ? merged(await wholeHost) || {} : one(d.join(',')));
    const [cpus, l3] = await Promise.all([
      Promise.all(Array.from({ length: n }, (_, i) => one(String(i)))),
      Promise.all(domains.map(domain)),
    ]);
    if (!cpus.some((p) => p.count) && !l3.some((p) => p.count)) {
      ctx.charts.drop('cpus'); ctx.charts.drop('l3');
      return fill(sec.body, empty('No per-CPU runqueue latency in this time range.'));
    }
    const cpuBox = chartBox('Runqueue latency p50 and p99 per CPU', 220);
    const l3Box = chartBox('Runqueue latency p50 and p99 per L3 domain', 220);
    fill(sec.body, h('div', { class: 'panels' },
      h('figure', { class: 'panel wide' }, h('figcaption', {}, `Per CPU${host.cpus > n ? ` (first ${n} of ${host.cpus})` : ''}`), cpuBox.box),
      domains.length ? h('figure', { class: 'panel' }, h('figcaption', {}, 'Per L3 domain'), l3Box.box) : null));
    ctx.charts.put('cpus', cpuBox.canvas, barsConfig(cpus.map((_, i) => `CPU ${i}`), percentileBars(cpus), { format: fmt.ns }));
    if (domains.length)
      ctx.charts.put('l3', l3Box.canvas, barsConfig(domains.map((d, i) => `L3 #${i}`), percentileBars(l3), { format: fmt.ns }));
  });
  return { sec, load };
}

// The recommended config for a disk. The server says per disk whether one
// exists and whether it is in use (issue 7's fleet link); where it does not
// say, the model list is asked and the lines are compared here.
async function recommended(disk, signal) {
  let rec = disk.recommendation;
  const modelId = api.ssdModelId(disk.model);
  const link = h('a', { href: `/ssd?model=${encodeURIComponent(modelId)}` }, 'the SSD database');
  if (!disk.model) return h('p', { class: 'muted' }, 'The disk did not report its model.');
  if (!rec) {
    // the id itself matches, so it is within the first 1,000 matches of its own search
    const list = await api.ssdModels({ q: modelId, limit: 1000 }, signal);
    const known = (Array.isArray(list) ? list : list.models || []).some((x) => x.id === modelId);
    rec = known ? null : 'no_data';
  }
  if (rec === 'no_data')
    return h('p', { class: 'muted' }, 'No recommendation: ', link, ' has no result for this model yet.');
  const { text, headers } = await api.ssdConfig(modelId, { dev: disk.dev }, signal);
  let solution = null, basis = null;
  for (const [k, v] of headers) if (/solution/i.test(k)) solution = v; else if (/basis/i.test(k)) basis = v;
  if (!rec) {
    const io = disk.iocost || {};
    const inForce = io.enabled ? [modelLine(disk.dev, io.model), qosLine(disk.dev, io.qos)].join('\n') : '';
    rec = sameConfig(inForce, text) ? 'in_use' : 'differs';
  }
  return h('div', {},
    h('p', {}, rec === 'in_use' ? h('span', { class: 'badge ok' }, 'recommended config in use') : h('span', { class: 'badge warn' }, 'differs from the recommended config'),
      ' from ', link, basis === 'quick' ? ' (quick benches: the io.cost model line only, no QoS measured)' : solution ? ` (solution ${solution})` : ''),
    copyBlock(text.trim(), 'Copy recommended config'));
}

// A disk's facts, the io.cost config in force and the recommended one (rec:
// its promise, shown when it settles); pending settles with it.
function diskFacts(disk, rec) {
  const inForce = disk.iocost && disk.iocost.enabled
    ? [modelLine(disk.dev, disk.iocost.model), qosLine(disk.dev, disk.iocost.qos)].filter(Boolean).join('\n')
    : null;
  const recBox = h('div', {}, loading('the recommendation'));
  const card = h('article', { class: 'disk' },
    h('h3', {}, `${disk.name || disk.dev} `, h('span', { class: 'muted' }, disk.dev)),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Model'), h('dd', {}, disk.model || '–'),
      h('dt', {}, 'Firmware'), h('dd', {}, disk.fwrev || '–'),
      h('dt', {}, 'Size'), h('dd', {}, `${fmt.bytes(disk.size_bytes)}${disk.rotational ? ', rotational' : ''}`)),
    h('h4', {}, 'io.cost config in force'),
    inForce ? copyBlock(inForce, 'Copy config in force') : h('p', { class: 'muted' }, 'iocost is not enabled on this disk.'),
    h('h4', {}, 'Recommended io.cost config'), recBox);
  const pending = rec.then((el) => fill(recBox, el), (err) => {
    if (err.name === 'AbortError') throw err;
    fill(recBox, failure('the recommendation', err));
  });
  return { card, pending };
}

// One cgroup's weight and usage share (with the device's vrate) and its
// wait/debt/delay over time on a disk, drawn into shareBox and waitBox.
function drawDiskTime(ctx, key, io, c, shareBox, waitBox) {
  const r = { from: io.from, to: io.to };
  ctx.charts.put(`${key}:share`, shareBox.canvas, timeSeriesConfig([
    { label: 'hweight active', points: pointsOf(c.series, 'hweight_active_pct'), color: '#3b82f6' },
    { label: 'hweight inuse', points: pointsOf(c.series, 'hweight_inuse_pct'), color: '#8b5cf6', dash: [4, 3] },
    { label: 'usage', points: pointsOf(c.series, 'usage_pct'), color: '#f59e0b' },
    { label: 'device vrate', points: (io.vrate || []).map((p) => ({ x: p.t, y: p.v })), color: '#64748b', axis: 'y2' },
  ], { ...r, format: (v) => fmt.pct(v), min: 0, yTitle: 'share of the device', y2: { format: (v) => fmt.pct(v, 0) } }));
  ctx.charts.put(`${key}:wait`, waitBox.canvas, timeSeriesConfig([
    { label: 'wait', points: pointsOf(c.series, 'wait_us'), color: '#ef4444' },
    { label: 'debt', points: pointsOf(c.series, 'indebt_us'), color: '#f59e0b' },
    { label: 'delay', points: pointsOf(c.series, 'indelay_us'), color: '#8b5cf6' },
  ], { ...r, format: fmt.us, min: 0, yTitle: 'time per interval' }));
}

// One disk: its facts and configs, then per cgroup the weight share against
// the usage share (mean over the range) and, for the chosen cgroup, over time.
function diskCard(ctx, disk, io, rec) {
  const { card, pending } = diskFacts(disk, rec);
  const cgs = (io && io.cgroups || []).filter((c) => c.series && c.series.length);
  if (!cgs.length) {
    card.append(h('h4', {}, 'Weight against usage'), empty('No per-cgroup IO cost data for this disk in this time range.'));
    return { card, pending, draw() {} };
  }
  const shares = cgs.map((c) => ({ path: c.path, c, weight: mean(c.series, 'hweight_active_pct'), usage: mean(c.series, 'usage_pct') }))
    .sort((a, b) => (b.usage ?? 0) - (a.usage ?? 0)).slice(0, 20);
  const barBox = chartBox(`Weight share against usage share per cgroup on ${disk.name || disk.dev}`, Math.max(160, 28 * shares.length + 60));
  const cgSel = h('select', { 'aria-label': `Cgroup on ${disk.name || disk.dev}` }, shares.map((s) => h('option', { value: s.path }, s.path)));
  const shareBox = chartBox(`Weight and usage share over time on ${disk.name || disk.dev}`, 220);
  const waitBox = chartBox(`Wait, debt and delay over time on ${disk.name || disk.dev}`, 200);
  card.append(
    h('h4', {}, 'Weight share (hweight) against usage share, mean over the range'), barBox.box,
    h('h4', {}, 'Over time for ', cgSel), shareBox.box, waitBox.box);
  const key = `io:${disk.dev}`;
  const drawTime = () => drawDiskTime(ctx, key, io, cgs.find((x) => x.path === cgSel.value) || cgs[0], shareBox, waitBox);
  cgSel.addEventListener('change', drawTime);
  return {
    card, pending,
    draw() {
      ctx.charts.put(`${key}:bars`, barBox.canvas, barsConfig(shares.map((s) => s.path), [
        { label: 'weight share (hweight active)', values: shares.map((s) => s.weight), color: '#3b82f6' },
        { label: 'usage share', values: shares.map((s) => s.usage), color: '#f59e0b' },
      ], { format: (v) => fmt.pct(v), horizontal: true, title: 'share of the device' }));
      drawTime();
    },
  };
}

// IO cost against weight: one card per disk of the host.
function ioSection(pg) {
  const sec = section('IO cost vs weight');
  const load = (signal, early) => guard(sec.body, 'IO cost', async () => {
    const { ctx } = pg;
    const disks = pg.host.disks || [];
    if (!disks.length) return fill(sec.body, empty('This host reported no disks.'));
    // the recommendations do not depend on the time range: ask in parallel
    const recs = new Map(disks.map((d) => [d.dev, recommended(d, signal)]));
    recs.forEach((p) => p.catch(() => {}));
    const resp = await (early || api.hostIocost(pg.id, rangeParams(ctx), signal));
    for (const key of [...ctx.charts.slots.keys()]) if (key.startsWith('io:')) ctx.charts.drop(key);
    const byDev = new Map((resp.disks || []).map((d) => [d.dev, d]));
    const cards = disks.map((d) => {
      const io = byDev.get(d.dev);
      return diskCard(ctx, d, io ? { from: resp.from, to: resp.to, cgroups: io.cgroups, vrate: io.vrate_pct } : null, recs.get(d.dev));
    });
    fill(sec.body, h('div', { class: 'disks-grid' }, cards.map((c) => c.card)));
    for (const c of cards) c.draw();
    await Promise.all(cards.map((c) => c.pending));
  });
  return { sec, load };
}

// What does not depend on the host's details is asked at once, in parallel
// with them: the heatmap (unless it is for an L3 domain, which needs the CPU
// list) and the IO cost series. sched: the scheduler the heatmap was asked for.
function askEarly(pg, signal) {
  const { ctx, id, scope } = pg;
  const host = api.host(id, signal);
  // the scheduler in the URL is assumed valid; if the host says otherwise, the answer is dropped
  const sched = scope === 'host' ? pg.sched : '';
  const heat = scope.startsWith('l3:') ? null
    : api.hostRunqlat(id, rangeParams(ctx, { ...scopeParams(scope, {}), ...(sched ? { sched } : {}) }), signal);
  const io = api.hostIocost(id, rangeParams(ctx), signal);
  for (const p of [heat, io]) if (p) p.catch(() => {}); // awaited below, or moot if the host is unknown
  return { host, sched, heat, io };
}

export function mount(ctx) {
  const pg = pageState(ctx);
  const head = hostHead(pg), lat = latencySection(pg), cg = cgroupSection(pg), cpu = cpuSection(pg), io = ioSection(pg);
  const health = healthSection(pg);
  const sections = [lat.sec, cg.sec, cpu.sec, health.sec, io.sec];
  fill(ctx.root, head.el, sections.map((s) => s.el));
  fill(head.el, loading('the host'));

  return {
    async refresh(signal) {
      pg.signal = signal;
      if (!pg.id) return fill(ctx.root, failure('the host', new Error('no host id in the address (?id=...)')));
      const early = askEarly(pg, signal);
      try {
        pg.host = await early.host;
      } catch (err) {
        if (err.name === 'AbortError') throw err;
        fill(head.el, failure('the host', err));
        for (const s of sections) s.el.hidden = true;
        return;
      }
      for (const s of sections) s.el.hidden = false;
      head.draw();
      lat.drawChoices();
      const heatEarly = pg.schedShown() === early.sched ? early.heat : null;
      // the whole host's answer stands in for an L3 domain of every CPU, not one scheduler's part
      const wholeHost = pg.scope === 'host' && !early.sched ? early.heat : null;
      // the many small per-cgroup queries go last, so they do not queue the charts
      await Promise.all([lat.loadHeatmap(signal, heatEarly), lat.loadSchedulers(signal), io.load(signal, early.io), cpu.load(signal, wholeHost), health.load(signal), cg.load(signal)]);
    },
    destroy() {},
  };
}
