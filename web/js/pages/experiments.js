// experiments.js - is scheduler A better than B on this fleet (issue 15)?
// A comparison is built from the schedulers and labels the fleet has (the
// hosts list and the fleet's split by sched_ext), over one window for both
// arms (the time range picker) or a window each (before/after), with a
// metric and a no-difference threshold; GET /api/v1/compare answers it.
// The page shows the verdict in words (the answer's summary), the ratio with
// its 95% interval against the threshold band, each host's value per arm, and
// both arms' latency percentiles over time.
//
// The curves: the fleet runqlat API cannot filter by selector, so each arm's
// curves are drawn from the per-host runqlat of that arm's own hosts (the
// answer's per_host), with sched=NAME when the arm selects a scheduler (only
// the samples that scheduler ran) or cgroup=PATH when the comparison is for a
// cgroup, merged step by step by their buckets (exact) and read as pooled
// percentiles. At most CURVE_HOSTS hosts per arm (those with the most
// samples) are asked, and the caption says so; the verdict itself is the
// server's, over all the arm's hosts (median over hosts, not pooled).
//
// Everything that defines the comparison lives in the URL (a, b, metric,
// threshold, cgroup, win=split with a_from/a_to/b_from/b_to, else the range
// picker's range or from/to), so a link reproduces it. It can be saved under
// a name (POST /api/v1/experiments, an admin token) and the saved ones are
// listed with their verdicts computed now; each can be deleted (DELETE, an
// admin token) after a confirmation that names it, and the list is then read
// anew, so one deleted meanwhile by someone else leaves the list too.
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill, loading, empty, failure, section, chartBox } from '../dom.js';
import { dataTable } from '../table.js';
import { color } from '../charts/base.js';
import { timeSeriesConfig, pointsOf } from '../charts/timeseries.js';
import { intervalConfig } from '../charts/interval.js';
import { mergePoints } from '../hist.js';
import { schedulerOf } from './fleet.js';

const METRICS = [['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p999', 'p99.9'], ['mean', 'mean']];
const PCTS = [['p50_ns', 'p50', '#10b981'], ['p90_ns', 'p90', '#3b82f6'], ['p99_ns', 'p99', '#f59e0b'], ['p999_ns', 'p99.9', '#ef4444'], ['mean_ns', 'mean', '#8b5cf6']];
const CURVE_HOSTS = 16;
const CURVE_POINTS = 120;
const DEFAULT_THRESHOLD = 0.05;
// [badge class, words]
const VERDICT = {
  better: ['ok', 'A is better'],
  worse: ['err', 'A is worse'],
  no_difference: ['muted', 'no difference'],
  inconclusive: ['warn', 'inconclusive'],
};

const metricLabel = (m) => (METRICS.find(([k]) => k === m) || [m, m])[1];
const ratioText = (v) => (Number.isFinite(v) ? `${Number(v.toPrecision(3))}×` : '–');
const ciText = (ci) => (ci ? `${ratioText(ci[0])} to ${ratioText(ci[1])}` : '–');
// What a refusal of an admin request means, by HTTP status.
const ADMIN_REFUSED = {
  401: 'This needs a token of scope admin (schedio-server token add --scope admin NAME).',
  403: 'This token is not of scope admin.',
};

function verdictBadge(v) {
  const [cls, words] = VERDICT[v] || ['muted', v || 'none'];
  return h('span', { class: `badge verdict ${cls}`, dataset: { verdict: v || '' } }, words);
}

// A selector's terms: {sched, label, rest} (rest: the other terms, as text).
export function splitSelector(sel) {
  const out = { sched: '', label: '', rest: [] };
  for (const raw of String(sel || '').split(',')) {
    const term = raw.trim();
    if (!term) continue;
    if (term.startsWith('sched=') && !out.sched) out.sched = term.slice(6);
    else if (term.startsWith('label.') && !out.label) out.label = term.slice(6);
    else out.rest.push(term);
  }
  return out;
}

export function joinSelector({ sched, label, rest }) {
  return [sched ? `sched=${sched}` : '', label ? `label.${label}` : '', ...(rest || [])].filter(Boolean).join(',');
}

// The schedulers and labels the fleet has: from the hosts list (each host's
// current scheduler and labels) and the fleet's split by sched_ext in the
// range (schedulers that ran there, also on hosts that switched since).
async function fleetChoices(ctx, signal) {
  const r = ctx.range();
  const [hostsResp, split] = await Promise.all([
    api.hosts(signal),
    api.fleetRunqlat({ from: Math.round(r.from), to: Math.round(r.to), group_by: 'sched_ext' }, signal).catch((err) => {
      if (err.name === 'AbortError') throw err;
      return { groups: [] };
    }),
  ]);
  const scheds = new Map(); // name -> hosts
  for (const g of split.groups || []) if (g.series.some((x) => x.count > 0)) scheds.set(g.key, g.hosts);
  const current = new Map();
  for (const x of hostsResp.hosts) current.set(schedulerOf(x), (current.get(schedulerOf(x)) || 0) + 1);
  // the hosts list names every kernel class "fair"; the split says eevdf on 6.6+ (both select the same)
  for (const [k, n] of current) if (!scheds.has(k) && !(k === 'fair' && scheds.has('eevdf'))) scheds.set(k, n);
  const labels = new Map(); // "k=v" -> hosts
  for (const x of hostsResp.hosts)
    for (const [k, v] of Object.entries(x.labels || {})) labels.set(`${k}=${v}`, (labels.get(`${k}=${v}`) || 0) + 1);
  const byName = (a, b) => a[0].localeCompare(b[0]);
  return { scheds: [...scheds.entries()].sort(byName), labels: [...labels.entries()].sort(byName) };
}

// The windows the URL asks for: {split, a: [from, to], b: [from, to]}.
function windowsOf(ctx) {
  const p = new URLSearchParams(location.search);
  const r = ctx.range();
  const num = (k) => Number(p.get(k));
  const split = p.get('win') === 'split' && num('a_to') > num('a_from') && num('b_to') > num('b_from') && num('a_from') > 0 && num('b_from') > 0;
  if (split) return { split, a: [num('a_from'), num('a_to')], b: [num('b_from'), num('b_to')] };
  return { split: false, a: [Math.round(r.from), Math.round(r.to)], b: [Math.round(r.from), Math.round(r.to)] };
}

// The comparison the URL defines, or null when an arm is missing.
function queryOf(ctx) {
  const p = new URLSearchParams(location.search);
  const a = (p.get('a') || '').trim(), b = (p.get('b') || '').trim();
  if (!a || !b) return null;
  const w = windowsOf(ctx);
  const t = Number(p.get('threshold'));
  const q = { a, b, metric: p.get('metric') || 'p99', threshold: t > 0 && t < 1 ? t : DEFAULT_THRESHOLD, cgroup: p.get('cgroup') || '' };
  if (w.split) Object.assign(q, { a_from: w.a[0], a_to: w.a[1], b_from: w.b[0], b_to: w.b[1] });
  else Object.assign(q, { from: w.a[0], to: w.a[1] });
  return q;
}

// A saved experiment's definition for the comparison on screen.
function definitionOf(ctx, q, name) {
  const r = ctx.range();
  let window;
  if (q.a_from) window = { a_from: q.a_from, a_to: q.a_to, b_from: q.b_from, b_to: q.b_to };
  else if (r.live && r.span % 3600e3 === 0) window = { last_hours: r.span / 3600e3 };
  else window = { from: q.from, to: q.to };
  return { name, a: q.a, b: q.b, metric: q.metric, threshold: q.threshold, cgroup: q.cgroup || null, window };
}

// The page URL of a saved experiment's definition.
export function experimentLink(e) {
  const u = new URLSearchParams({ a: e.a, b: e.b, metric: e.metric || 'p99' });
  if (e.threshold && e.threshold !== DEFAULT_THRESHOLD) u.set('threshold', e.threshold);
  if (e.cgroup) u.set('cgroup', e.cgroup);
  const w = e.window || {};
  if (w.a_from) {
    u.set('win', 'split');
    for (const k of ['a_from', 'a_to', 'b_from', 'b_to']) u.set(k, w[k]);
  } else if (w.last_hours) {
    const preset = { 1: '1h', 6: '6h', 24: '24h', 168: '7d', 720: '30d' }[w.last_hours];
    if (preset) u.set('range', preset);
    else { const now = Date.now(); u.set('from', Math.round(now - w.last_hours * 3600e3)); u.set('to', now); }
  } else if (w.from) {
    u.set('from', w.from);
    u.set('to', w.to);
  }
  return `/experiments?${u}`;
}

function windowText(w) {
  if (!w) return '–';
  if (w.last_hours) return `last ${w.last_hours} h`;
  if (w.a_from) return `A ${fmt.dateTime(w.a_from)} → ${fmt.dateTime(w.a_to)}; B ${fmt.dateTime(w.b_from)} → ${fmt.dateTime(w.b_to)}`;
  if (w.from) return `${fmt.dateTime(w.from)} → ${fmt.dateTime(w.to)}`;
  return '–';
}

// Runs fn over items with at most `width` in flight.
async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }));
}

// One arm's percentiles over its window: its hosts' runqlat (the samples of
// the arm's scheduler when it selects one, or the comparison's cgroup),
// merged step by step. Resolves {series, asked, from, to}.
async function armSeries(arm, q, signal) {
  const hosts = (arm.per_host || []).slice().sort((x, y) => (y.samples || 0) - (x.samples || 0)).slice(0, CURVE_HOSTS);
  const sched = splitSelector(arm.selector).sched;
  const span = arm.to - arm.from;
  const step = Math.max(60e3, Math.ceil(span / CURVE_POINTS / 60e3) * 60e3);
  const extra = q.cgroup ? { cgroup: q.cgroup } : sched ? { sched } : {};
  const byT = new Map();
  let layout = null;
  await pool(hosts, 6, async (x) => {
    let resp = await api.hostRunqlat(x.host_id, { from: arm.from, to: arm.to, step, ...extra }, signal);
    // sched=eevdf and sched=fair both select the kernel's own classes, which
    // a host's own series names by its kernel (eevdf from 6.6 on, fair before)
    const twin = { eevdf: 'fair', fair: 'eevdf' }[extra.sched];
    if (twin && !(resp.series || []).some((p) => p.count > 0))
      resp = await api.hostRunqlat(x.host_id, { from: arm.from, to: arm.to, step, sched: twin }, signal);
    layout = layout || resp.layout;
    for (const p of resp.series || []) {
      if (!p.count) continue;
      if (!byT.has(p.t)) byT.set(p.t, []);
      byT.get(p.t).push(p);
    }
  });
  const series = [...byT.entries()].sort((x, y) => x[0] - y[0]).map(([t, ps]) => {
    const m = mergePoints(ps, layout);
    return { t, ...m, mean_ns: m.count ? m.sum_ns / m.count : null };
  });
  return { series, asked: hosts.length, total: (arm.per_host || []).length, from: arm.from, to: arm.to, sched, step };
}

export function mount(ctx) {
  ctx.setTitle('Experiments');
  const p = ctx.params;

  // --- the builder -------------------------------------------------------
  const arms = ['a', 'b'].map((k) => {
    const name = k.toUpperCase();
    const sel = splitSelector(p.get(k));
    const sched = h('select', { id: `${k}-sched`, 'aria-label': `Arm ${name}: scheduler` });
    const label = h('select', { id: `${k}-label`, 'aria-label': `Arm ${name}: host label` });
    const rest = h('input', { type: 'text', id: `${k}-rest`, 'aria-label': `Arm ${name}: more terms`, placeholder: 'host=ID, kernel=6.12', value: sel.rest.join(',') });
    const el = h('fieldset', { class: 'arm' }, h('legend', {}, `Arm ${name}`),
      h('label', { for: `${k}-sched` }, 'Scheduler'), sched,
      h('label', { for: `${k}-label` }, 'Label'), label,
      h('label', { for: `${k}-rest` }, 'More terms'), rest);
    return { k, name, sel, sched, label, rest, el };
  });
  const metric = h('select', { id: 'metric', 'aria-label': 'Metric' },
    METRICS.map(([v, t]) => h('option', { value: v, selected: (p.get('metric') || 'p99') === v }, `${t} runqueue latency`)));
  const t0 = Number(p.get('threshold'));
  const threshold = h('input', { type: 'number', id: 'threshold', min: '0.5', max: '50', step: '0.5', value: String(+(100 * (t0 > 0 && t0 < 1 ? t0 : DEFAULT_THRESHOLD)).toFixed(2)), 'aria-describedby': 'threshold-hint' });
  const cgroup = h('input', { type: 'text', id: 'cgroup', placeholder: 'whole host', value: p.get('cgroup') || '' });
  const winSame = h('input', { type: 'radio', name: 'win', id: 'win-same', value: 'same', checked: p.get('win') !== 'split' });
  const winSplit = h('input', { type: 'radio', name: 'win', id: 'win-split', value: 'split', checked: p.get('win') === 'split' });
  const now = Date.now();
  const winInput = (id, label, key, dflt) => h('input', { type: 'datetime-local', id, 'aria-label': label, value: fmt.localInput(Number(p.get(key)) || dflt) });
  const aFrom = winInput('a-from', 'Arm A from', 'a_from', now - 2 * 3600e3), aTo = winInput('a-to', 'Arm A to', 'a_to', now - 3600e3);
  const bFrom = winInput('b-from', 'Arm B from', 'b_from', now - 3600e3), bTo = winInput('b-to', 'Arm B to', 'b_to', now);
  const splitBox = h('div', { class: 'win-split', hidden: p.get('win') !== 'split' },
    h('span', {}, 'A: ', aFrom, ' → ', aTo), h('span', {}, 'B: ', bFrom, ' → ', bTo));
  const go = h('button', { type: 'submit', id: 'compare' }, 'Compare');
  const formMsg = h('p', { class: 'form-msg', role: 'alert' });
  const form = h('form', { class: 'card experiment-form', id: 'experiment-form', 'aria-label': 'Build a comparison' },
    h('div', { class: 'arms' }, arms.map((x) => x.el)),
    h('div', { class: 'form-row' },
      h('label', { for: 'metric' }, 'Metric '), metric,
      h('label', { for: 'threshold' }, 'No-difference band ± '), threshold, h('span', { id: 'threshold-hint', class: 'muted' }, '% around A = B'),
      h('label', { for: 'cgroup' }, 'Cgroup '), cgroup),
    h('fieldset', { class: 'form-row windows' }, h('legend', {}, 'Windows'),
      h('label', {}, winSame, ' Same window for both arms (the time range above)'),
      h('label', {}, winSplit, ' Before / after: a window each'), splitBox),
    h('div', { class: 'form-row' }, go, formMsg));
  const setWin = () => { splitBox.hidden = !winSplit.checked; };
  winSame.addEventListener('change', setWin);
  winSplit.addEventListener('change', setWin);

  function fillChoices(choices) {
    for (const x of arms) {
      const keepS = x.sched.value, keepL = x.label.value; // what is chosen now (at first: the URL's)
      const sOpts = choices.scheds.map(([k, n]) => [k, `${k} (${n} host${n === 1 ? '' : 's'})`]);
      if (keepS && !sOpts.some(([k]) => k === keepS)) sOpts.push([keepS, `${keepS} (not seen in the range)`]);
      fill(x.sched, h('option', { value: '' }, 'any'), sOpts.map(([k, t]) => h('option', { value: k, selected: k === keepS }, t)));
      const lOpts = choices.labels.map(([k, n]) => [k, `${k} (${n} host${n === 1 ? '' : 's'})`]);
      if (keepL && !lOpts.some(([k]) => k === keepL)) lOpts.push([keepL, keepL]);
      fill(x.label, h('option', { value: '' }, 'any'), lOpts.map(([k, t]) => h('option', { value: k, selected: k === keepL }, t)));
      x.label.disabled = lOpts.length === 0;
      x.label.title = lOpts.length ? '' : 'No host reports labels (agent config: label.K = V)';
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    formMsg.textContent = '';
    const sels = arms.map((x) => joinSelector({ sched: x.sched.value, label: x.label.value, rest: x.rest.value.split(',').map((s) => s.trim()).filter(Boolean) }));
    if (!sels[0] || !sels[1]) {
      formMsg.textContent = `Choose at least a scheduler, a label or a term for arm ${sels[0] ? 'B' : 'A'}.`;
      return;
    }
    const pct = Number(threshold.value);
    if (!(pct > 0 && pct < 100)) {
      formMsg.textContent = 'The no-difference band must be between 0 and 100%.';
      return;
    }
    const changes = { a: sels[0], b: sels[1], metric: metric.value === 'p99' ? null : metric.value,
      threshold: Math.abs(pct / 100 - DEFAULT_THRESHOLD) < 1e-9 ? null : +(pct / 100).toFixed(4), cgroup: cgroup.value.trim() || null,
      win: null, a_from: null, a_to: null, b_from: null, b_to: null };
    if (winSplit.checked) {
      const ms = [aFrom, aTo, bFrom, bTo].map((x) => new Date(x.value).getTime());
      if (!(ms[0] > 0 && ms[1] > ms[0] && ms[2] > 0 && ms[3] > ms[2])) {
        formMsg.textContent = 'Each arm\'s window must end after it starts.';
        return;
      }
      Object.assign(changes, { win: 'split', a_from: ms[0], a_to: ms[1], b_from: ms[2], b_to: ms[3] });
    }
    ctx.setParams(changes);
    run(lastSignal).catch(() => {});
  });

  // --- the answer --------------------------------------------------------
  const verdictSec = section('Verdict');
  const curvesSec = section('Runqueue latency of each arm');
  const hostsSec = section('Each host\'s value per arm');
  const saveName = h('input', { type: 'text', id: 'save-name', 'aria-label': 'Experiment name', placeholder: 'e.g. scx_lavd vs eevdf, web' });
  const saveToken = h('input', { type: 'password', id: 'save-token', autocomplete: 'off', 'aria-label': 'Admin token', placeholder: 'admin token' });
  const saveBtn = h('button', { type: 'button', id: 'save' }, 'Save');
  const saveMsg = h('p', { class: 'form-msg', id: 'save-msg', role: 'status' });
  const saveSec = section('Save this experiment');
  fill(saveSec.body, h('p', { class: 'form-row' }, h('label', { for: 'save-name' }, 'Name '), saveName,
    h('label', { for: 'save-token' }, 'Admin token '), saveToken, saveBtn), saveMsg);
  const savedSec = section('Saved experiments');
  const result = h('div', { id: 'experiment-result' });
  const intro = h('p', { class: 'lead' }, 'Is A\'s runqueue latency lower than B\'s on this fleet, and how sure is that? ',
    'Each host is one unit: its samples in the arm\'s window are merged and the metric read from them; an arm\'s value is the median over its hosts, ',
    'and the ratio A / B comes with a 95% bootstrap interval over hosts.');
  fill(ctx.root, h('h1', {}, 'Experiments'), intro, form, result, savedSec.el);

  const hostTable = dataTable([
    { key: 'host', label: 'Host', value: (r) => r.hostname || r.host_id, render: (r) => h('a', { href: `/host?id=${encodeURIComponent(r.host_id)}` }, r.hostname || r.host_id) },
    { key: 'a', label: 'A value', num: true, value: (r) => r.a && r.a.value_ns, render: (r) => fmt.ns(r.a && r.a.value_ns) },
    { key: 'a_samples', label: 'A samples', num: true, value: (r) => r.a && r.a.samples, render: (r) => fmt.count(r.a && r.a.samples) },
    { key: 'b', label: 'B value', num: true, value: (r) => r.b && r.b.value_ns, render: (r) => fmt.ns(r.b && r.b.value_ns) },
    { key: 'b_samples', label: 'B samples', num: true, value: (r) => r.b && r.b.samples, render: (r) => fmt.count(r.b && r.b.samples) },
    { key: 'vs', label: 'vs other arm\'s median', num: true, value: (r) => r.vs, render: (r) => ratioText(r.vs) },
  ], {
    caption: 'Each host\'s metric over its arm\'s window (a host in both arms, e.g. before/after, has both); the last column is the host\'s value over the other arm\'s median: outliers stand out',
    sort: 'vs', dir: 'desc', text: (r) => `${r.hostname} ${r.host_id}`,
    emptyText: 'Neither arm has a host with samples.',
  });

  let lastSignal = null, lastAnswer = null, lastQuery = null;

  function drawVerdict(ans) {
    const box = chartBox(`Ratio of A's to B's ${metricLabel(ans.metric)}: ${ratioText(ans.ratio)}, 95% interval ${ciText(ans.ci)}, against the no-difference band ±${fmt.pct(100 * ans.threshold)}`, 130);
    const arm = (name, x) => [h('dt', {}, `Arm ${name}`), h('dd', {}, h('code', {}, x.selector), ` · ${fmt.dateTime(x.from)} → ${fmt.dateTime(x.to)} · `,
      `${fmt.count(x.hosts)} host${x.hosts === 1 ? '' : 's'}, ${fmt.count(x.samples)} samples · ${metricLabel(ans.metric)} ${fmt.ns(x.value_ns)}`)];
    fill(verdictSec.body,
      h('p', { class: 'verdict-line', role: 'status' }, verdictBadge(ans.verdict), ' ', h('span', { id: 'verdict-summary' }, ans.summary)),
      ans.reason ? h('p', { class: 'muted', id: 'verdict-reason' }, `Why: ${ans.reason}`) : null,
      h('dl', { class: 'facts' },
        arm('A', ans.a), arm('B', ans.b),
        h('dt', {}, 'Ratio A / B'), h('dd', { id: 'ratio' }, ratioText(ans.ratio)),
        h('dt', {}, '95% interval'), h('dd', { id: 'ci' }, ciText(ans.ci)),
        h('dt', {}, 'Method'), h('dd', { class: 'wrap' }, `${ans.method}${ans.paired ? ` (paired over ${ans.pairs} hosts)` : ''}, ${fmt.count(ans.resamples)} resamples, seed ${ans.seed}`)),
      Number.isFinite(ans.ratio) ? box.box : empty('No ratio to draw: an arm has too few hosts.'));
    if (Number.isFinite(ans.ratio))
      ctx.charts.put('ratio', box.canvas, intervalConfig(ans, { band: '#64748b', interval: color(0), ratio: color(2) }));
  }

  function drawHosts(ans) {
    const rows = new Map();
    for (const k of ['a', 'b'])
      for (const x of ans[k].per_host || []) {
        const r = rows.get(x.host_id) || { host_id: x.host_id, hostname: x.hostname };
        r[k] = x;
        rows.set(x.host_id, r);
      }
    for (const r of rows.values()) {
      const own = r.a || r.b, other = r.a ? ans.b.value_ns : ans.a.value_ns;
      r.vs = own && other > 0 ? own.value_ns / other : null;
    }
    fill(hostsSec.body, hostTable.el);
    hostTable.setRows([...rows.values()]);
  }

  async function drawCurves(ans, q, signal) {
    for (const key of [...ctx.charts.slots.keys()]) if (key.startsWith('arm:')) ctx.charts.drop(key);
    if (!(ans.a.per_host || []).length && !(ans.b.per_host || []).length) return fill(curvesSec.body, empty('Neither arm has a host with samples.'));
    const sets = await Promise.all([armSeries(ans.a, q, signal), armSeries(ans.b, q, signal)]);
    let lo = Infinity, hi = 0;
    for (const s of sets) for (const x of s.series) {
      if (x.p50_ns > 0) lo = Math.min(lo, x.p50_ns);
      if (x.p999_ns > 0) hi = Math.max(hi, x.p999_ns);
    }
    const pcts = PCTS.filter(([f]) => f !== 'mean_ns' || q.metric === 'mean');
    const panels = sets.map((s, i) => {
      const name = i ? 'B' : 'A';
      const box = chartBox(`Arm ${name}: runqueue latency ${pcts.map((x) => x[1]).join(', ')} over its window`, 240);
      const what = s.sched && !q.cgroup ? `the samples ${s.sched} ran` : q.cgroup ? `cgroup ${q.cgroup}${s.sched ? ' (its series is not split by scheduler)' : ''}` : 'the whole host';
      const caption = `Arm ${name} · ${s.asked < s.total ? `${s.asked} of ${s.total} hosts (most samples)` : `${s.total} host${s.total === 1 ? '' : 's'}`}, ${what}, pooled per ${fmt.ns(s.step * 1e6)} step`;
      return { s, box, key: `arm:${name}`, el: h('figure', { class: 'panel' }, h('figcaption', {}, caption), s.series.length ? box.box : empty('No samples in this window.')) };
    });
    fill(curvesSec.body, h('div', { class: 'panels' }, panels.map((x) => x.el)),
      h('p', { class: 'muted hint' }, `The curves pool each arm's hosts step by step; the verdict is the server's median over hosts of each host's ${metricLabel(q.metric)} over the whole window.`));
    for (const { s, box, key } of panels)
      if (s.series.length)
        ctx.charts.put(key, box.canvas, timeSeriesConfig(
          pcts.map(([f, label, c]) => ({ label, color: c, points: pointsOf(s.series, f), dash: f === `${q.metric}_ns` ? [] : [4, 3] })),
          { from: s.from, to: s.to, format: fmt.ns, log: true, min: lo * 0.8, max: hi * 1.25, yTitle: 'runqueue latency' }));
  }

  // one comparison at a time: a new one (Compare pressed, or a refresh)
  // aborts the one in flight, so a slow answer never overwrites a newer one
  let runCtl = null;
  async function run(outer) {
    if (runCtl) runCtl.abort();
    const ctl = runCtl = new AbortController();
    if (outer) {
      if (outer.aborted) ctl.abort();
      else outer.addEventListener('abort', () => ctl.abort(), { once: true });
    }
    const signal = ctl.signal;
    const q = queryOf(ctx);
    lastQuery = q;
    for (const key of [...ctx.charts.slots.keys()]) if (key === 'ratio' || key.startsWith('arm:')) ctx.charts.drop(key);
    if (!q) {
      fill(result, empty('Choose what A and B are (a scheduler, a label or other terms each) and press Compare.'));
      return;
    }
    fill(result, verdictSec.el, curvesSec.el, hostsSec.el, saveSec.el);
    fill(verdictSec.body, loading('the comparison'));
    fill(curvesSec.body, loading('the curves'));
    fill(hostsSec.body, loading('the hosts'));
    let ans;
    try {
      ans = await api.compare(q, signal);
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      lastAnswer = null;
      fill(result, h('section', { class: 'card' }, failure('the comparison', err)));
      return;
    }
    lastAnswer = ans;
    drawVerdict(ans);
    drawHosts(ans);
    try {
      await drawCurves(ans, q, signal);
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      fill(curvesSec.body, failure('the curves', err));
    }
  }

  const savedTable = dataTable([
    { key: 'name', label: 'Name', render: (e) => h('a', { href: experimentLink(e) }, e.name) },
    { key: 'a', label: 'A', render: (e) => h('code', {}, e.a) },
    { key: 'b', label: 'B', render: (e) => h('code', {}, e.b) },
    { key: 'metric', label: 'Metric', render: (e) => metricLabel(e.metric) },
    { key: 'window', label: 'Window', value: (e) => windowText(e.window), render: (e) => windowText(e.window) },
    { key: 'verdict', label: 'Verdict now', render: (e) => verdictBadge(e.verdict) },
    { key: 'ratio', label: 'Ratio', num: true, render: (e) => ratioText(e.ratio) },
    { key: 'ci', label: '95% interval', num: true, value: (e) => (e.ci ? e.ci[0] : null), render: (e) => ciText(e.ci) },
    { key: 'summary', label: 'Summary', wrap: true, render: (e) => e.summary || (e.error ? `Cannot be answered now: ${e.error}` : '–') },
    { key: 'created_ms', label: 'Saved', num: true, render: (e) => fmt.dateTime(e.created_ms) },
    { key: 'delete', label: 'Delete', value: () => null, render: (e) => deleteButton(e) },
  ], {
    caption: 'Saved experiments; verdict, ratio and interval are computed now over each one\'s window',
    sort: 'created_ms', dir: 'desc', text: (e) => `${e.name} ${e.a} ${e.b}`,
    emptyText: 'No experiment saved yet: build a comparison above and save it.',
  });

  // --- deleting a saved experiment: asked for, confirmed, then done ------
  const delWhat = h('span', { id: 'delete-what' });
  const delToken = h('input', { type: 'password', id: 'delete-token', autocomplete: 'off', 'aria-label': 'Admin token to delete with', placeholder: 'admin token' });
  const delYes = h('button', { type: 'button', id: 'delete-yes' }, 'Delete');
  const delNo = h('button', { type: 'button', id: 'delete-no' }, 'Cancel');
  const delBox = h('div', { class: 'form-row delete-confirm', id: 'delete-confirm', role: 'group', 'aria-labelledby': 'delete-what', hidden: true },
    delWhat, h('label', { for: 'delete-token' }, 'Admin token '), delToken, delYes, delNo);
  const delMsg = h('p', { class: 'form-msg', id: 'delete-msg', role: 'status' });
  // one admin token for both saving and deleting: typed in either field, it fills the other
  saveToken.addEventListener('input', () => { delToken.value = saveToken.value; });
  delToken.addEventListener('input', () => { saveToken.value = delToken.value; });
  let pendingDelete = null;

  function deleteButton(e) {
    const b = h('button', { type: 'button', class: 'delete-experiment', dataset: { id: String(e.id) }, 'aria-label': `Delete the experiment ${e.name}` }, 'Delete');
    b.addEventListener('click', () => askDelete(e));
    return b;
  }

  function askDelete(e) {
    pendingDelete = e;
    delWhat.textContent = `Delete the saved experiment "${e.name}" (#${e.id})? Only its definition goes; the data it compares stays.`;
    delMsg.className = 'form-msg';
    delMsg.textContent = '';
    delBox.hidden = false;
    (delToken.value ? delYes : delToken).focus();
  }

  function endDelete() {
    pendingDelete = null;
    delBox.hidden = true;
  }
  delNo.addEventListener('click', endDelete);

  delYes.addEventListener('click', async () => {
    const e = pendingDelete;
    if (!e) return;
    const token = delToken.value.trim();
    delMsg.className = 'form-msg';
    if (!token) { delMsg.textContent = 'Deleting needs a token of scope admin.'; delToken.focus(); return; }
    delYes.disabled = delNo.disabled = true;
    delMsg.textContent = `Deleting "${e.name}"…`;
    try {
      const res = await api.deleteExperiment(e.id, token);
      const b = res.body || {};
      if (res.status === 204 || res.status === 200) {
        endDelete();
        delMsg.className = 'form-msg ok';
        delMsg.textContent = `Deleted "${e.name}" (#${e.id}).`;
        await loadSaved(lastSignal);
      } else if (res.status === 404) {
        // gone already (someone else deleted it, or the list is old): read the list again
        endDelete();
        delMsg.className = 'form-msg error';
        delMsg.textContent = `Not deleted (HTTP 404): the server has no experiment #${e.id} "${e.name}" any more; it was deleted already. The list is read again.`;
        await loadSaved(lastSignal);
      } else {
        delMsg.className = 'form-msg error';
        delMsg.textContent = `Not deleted (HTTP ${res.status}): ${b.error || 'the server gave no reason'}.${ADMIN_REFUSED[res.status] ? ` ${ADMIN_REFUSED[res.status]}` : ''}`;
      }
    } catch (err) {
      if (err.name === 'AbortError') return;
      delMsg.className = 'form-msg error';
      delMsg.textContent = `Not deleted: ${err.message}`;
    } finally {
      delYes.disabled = delNo.disabled = false;
    }
  });

  async function loadSaved(signal) {
    try {
      const resp = await api.experiments(signal);
      if (!savedSec.body.contains(savedTable.el)) fill(savedSec.body, delBox, delMsg, savedTable.el);
      savedTable.setRows(resp.experiments || []);
      // the experiment asked about may have gone meanwhile
      if (pendingDelete && !(resp.experiments || []).some((x) => x.id === pendingDelete.id)) endDelete();
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      if (err.status === 404) fill(savedSec.body, empty('This server does not keep saved experiments.'));
      else fill(savedSec.body, failure('saved experiments', err));
    }
  }

  saveBtn.addEventListener('click', async () => {
    const q = lastQuery;
    const name = saveName.value.trim();
    saveMsg.className = 'form-msg';
    if (!q) { saveMsg.textContent = 'Compare first: the experiment saved is the comparison on screen.'; return; }
    if (!name) { saveMsg.textContent = 'Give the experiment a name.'; saveName.focus(); return; }
    saveBtn.disabled = true;
    saveMsg.textContent = 'Saving…';
    try {
      const res = await api.saveExperiment(definitionOf(ctx, q, name), saveToken.value.trim());
      const b = res.body || {};
      if (res.status === 201 || res.status === 200) {
        saveMsg.className = 'form-msg ok';
        saveMsg.textContent = `Saved as #${b.id}: ${b.name || name}.`;
        await loadSaved(lastSignal);
      } else {
        const why = { ...ADMIN_REFUSED, 404: 'This server does not keep saved experiments.', 409: 'An experiment of that name exists: choose another name.' }[res.status];
        saveMsg.className = 'form-msg error';
        saveMsg.textContent = `Not saved (HTTP ${res.status}): ${b.error || 'the server gave no reason'}.${why ? ` ${why}` : ''}`;
      }
    } catch (err) {
      saveMsg.className = 'form-msg error';
      saveMsg.textContent = `Not saved: ${err.message}`;
    } finally {
      saveBtn.disabled = false;
    }
  });

  fill(savedSec.body, loading('saved experiments'));
  for (const x of arms) {
    fill(x.sched, h('option', { value: x.sel.sched, selected: true }, x.sel.sched || 'any'));
    fill(x.label, h('option', { value: x.sel.label, selected: true }, x.sel.label || 'any'));
  }

  return {
    async refresh(signal) {
      lastSignal = signal;
      const choices = fleetChoices(ctx, signal).then(fillChoices).catch((err) => {
        if (err.name === 'AbortError') throw err;
        formMsg.textContent = `Could not load the fleet's schedulers and labels: ${err.message}`;
      });
      await Promise.all([choices, run(signal), loadSaved(signal)]);
    },
    destroy() {},
    get answer() { return lastAnswer; },
  };
}
