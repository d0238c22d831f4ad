// ssd.js - the SSD model database: a searchable list of models, and per
// model what io.cost configuration to run (per solution: the values, their
// spread over submissions and how many there were), ready-to-paste config
// lines and the hwdb entry, the parameters of each submission as charts,
// the measured MOF/aMOF and latency curves where a result carries them,
// and the submissions themselves for download. ?model=ID picks a model.
// Quick benches (schedio bench) are shown beside full resctl-bench results
// with their kind; a model with only quick benches has a model line and no QoS.
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill, loading, empty, failure, section, chartBox, guard, scrollRegion } from '../dom.js';
import { dataTable } from '../table.js';
import { copyButton, copyBlock } from '../copy.js';
import { barsConfig } from '../charts/bars.js';
import { color, rgba } from '../charts/base.js';
import { curvesConfig, normalizeCurve } from '../charts/curves.js';
import { quickSection, kindBadge, isQuick } from './ssd_quick.js';

// Where io.cost falls back when a solution is missing (issue 7).
const FALLBACK = ['isolated-bandwidth', 'isolation', 'bandwidth', 'naive'];
const PARAMS = [
  ['model', 'rbps', 'read bandwidth', fmt.mbps], ['model', 'rseqiops', 'read sequential', fmt.iops],
  ['model', 'rrandiops', 'read random', fmt.iops], ['model', 'wbps', 'write bandwidth', fmt.mbps],
  ['model', 'wseqiops', 'write sequential', fmt.iops], ['model', 'wrandiops', 'write random', fmt.iops],
  ['qos', 'rpct', 'read latency percentile', (v) => fmt.pct(v, 2)], ['qos', 'rlat', 'read latency target', fmt.us],
  ['qos', 'wpct', 'write latency percentile', (v) => fmt.pct(v, 2)], ['qos', 'wlat', 'write latency target', fmt.us],
  ['qos', 'min', 'vrate min', (v) => fmt.pct(v, 2)], ['qos', 'max', 'vrate max', (v) => fmt.pct(v, 2)],
];
const MAX_RESULTS = 30;

export function mount(ctx) {
  const model = ctx.params.get('model');
  return model ? mountModel(ctx, model) : mountList(ctx);
}

// The model list is paged and searched by the server (the database can hold
// tens of thousands of models; every response stays under 1 MiB): a page of
// PAGE models in id order, "Show more" for the next, the search sent as q
// after a short pause in typing.
const PAGE = 200;
const SEARCH_DELAY_MS = 250;

function modelRow(r) {
  return h('tr', {},
    h('td', {}, h('a', { href: `/ssd?model=${encodeURIComponent(r.id)}` }, r.model || r.id)),
    h('td', { class: 'num' }, fmt.count(r.submissions),
      r.kinds && r.kinds.quick ? h('div', { class: 'kinds' }, kindsText(r.kinds)) : null),
    h('td', {}, (r.fwrevs || []).join(', ') || '–'),
    h('td', { class: 'wrap' }, (r.solutions || []).join(', ') || '–'));
}

// "2 full, 3 quick" from the server's kinds (present only where a quick bench is).
function kindsText(kinds) {
  return [kinds.full ? `${fmt.count(kinds.full)} full` : null, `${fmt.count(kinds.quick)} quick`].filter(Boolean).join(', ');
}

function mountList(ctx) {
  ctx.setTitle('SSD models');
  const search = h('input', { type: 'search', id: 'model-search', placeholder: 'Search models…', 'aria-label': 'Search SSD models', value: ctx.params.get('q') || '' });
  const list = section('SSD models', search, h('a', { class: 'button', href: api.ssdHwdbUrl, download: 'schedio-iocost.hwdb' }, 'Download hwdb'));
  const tbody = h('tbody');
  const countText = h('span', { role: 'status', id: 'model-count' });
  const more = h('button', { type: 'button', class: 'more', id: 'model-more' });
  const table = h('div', { class: 'table-wrap' },
    h('table', { class: 'data' }, h('caption', {}, 'SSD models with benchmark results, by model id'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Model'), h('th', { scope: 'col', class: 'num' }, 'Submissions'),
        h('th', { scope: 'col' }, 'Firmware'), h('th', { scope: 'col' }, 'Solutions'))), tbody),
    h('p', { class: 'table-count' }, countText, ' ', more));
  fill(ctx.root, h('p', { class: 'lead' }, 'Measured io.cost configurations per SSD model, from resctl-bench results (full) and schedio bench results (quick: the model only). ',
    h('a', { href: '/submit' }, 'Submit yours.')), list.el);
  fill(list.body, loading('models'));

  // rows: every model loaded for query q; next: the server's next_offset (null at the end).
  let rows = [], total = 0, next = null, q = search.value.trim(), seq = 0, timer = null, own = null;

  function draw() {
    if (!rows.length) {
      fill(list.body, empty(q ? `No SSD model matches “${q}”.` : 'No SSD results yet: submit a resctl-bench result to start the database.'));
      return;
    }
    tbody.replaceChildren(...rows.map(modelRow));
    countText.textContent = (rows.length < total ? `Showing ${fmt.count(rows.length)} of ${fmt.count(total)}` : fmt.count(total)) +
      (q ? ` matching “${q}”` : ' in total');
    more.hidden = next === null;
    more.disabled = false;
    more.textContent = `Show ${fmt.count(Math.min(PAGE, total - rows.length))} more`;
    if (!list.body.contains(table)) fill(list.body, table);
  }

  // Loads pages from offset 0 until at least `want` rows (one page at least) for the
  // current search; a newer search or refresh makes an older load drop its answer.
  async function load(want, signal) {
    const mine = ++seq;
    const got = [];
    let offset = 0, doc = null;
    do {
      doc = await api.ssdModels({ q, limit: Math.min(1000, Math.max(PAGE, want - got.length)), offset }, signal);
      if (mine !== seq) return;
      got.push(...(doc.models || []));
      offset = doc.next_offset;
    } while (offset !== null && offset !== undefined && got.length < want);
    rows = got;
    total = doc.total ?? got.length;
    next = offset ?? null;
    draw();
  }

  function guarded(p) {
    return p.catch((err) => {
      if (err.name === 'AbortError') throw err;
      fill(list.body, failure('models', err));
    });
  }

  more.addEventListener('click', () => {
    if (next === null) return;
    const mine = ++seq, from = next;
    more.disabled = true;
    more.textContent = 'Loading…';
    guarded(api.ssdModels({ q, limit: PAGE, offset: from }).then((doc) => {
      if (mine !== seq) return;
      rows = rows.concat(doc.models || []);
      total = doc.total ?? rows.length;
      next = doc.next_offset ?? null;
      draw();
    })).catch(() => {});
  });

  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      q = search.value.trim();
      ctx.setParams({ q: q || null });
      if (own) own.abort();
      own = new AbortController();
      fill(list.body, loading('models'));
      guarded(load(PAGE, own.signal)).catch(() => {});
    }, SEARCH_DELAY_MS);
  });

  return {
    // A refresh keeps as many rows as were shown, so auto-refresh does not fold up "more".
    refresh(signal) {
      return guarded(load(Math.max(PAGE, rows.length), signal));
    },
    destroy() {
      clearTimeout(timer);
      if (own) own.abort();
    },
  };
}

function spreadText(spread, key, f) {
  const s = spread && spread[key];
  if (!Array.isArray(s) || s.length !== 2 || s[0] === s[1]) return null;
  return `${f(s[0])} – ${f(s[1])}`;
}

function pickSolution(names, wanted) {
  if (wanted && names.includes(wanted)) return wanted;
  return FALLBACK.find((s) => names.includes(s)) || names[0];
}

// The hwdb entries of one model, cut out of the whole hwdb file: entries are
// separated by blank lines and name the model in their match line.
function hwdbEntries(text, m) {
  const names = [m.model, m.id, String(m.model || '').replace(/ /g, '?'), String(m.model || '').replace(/ /g, '*')].filter(Boolean);
  return text.split(/\n\s*\n/).filter((b) => /IOCOST_/.test(b) && names.some((n) => b.includes(`name:${n}:`) || b.includes(`# ${n},`))).map((b) => b.trim()).join('\n\n');
}

function submissionsOf(m) {
  if (Array.isArray(m.results)) return m.results;
  if (Array.isArray(m.submissions)) return m.submissions;
  return [];
}

// One config line in a block with its copy button.
function lineBlock(text) {
  return h('div', { class: 'copy-block' }, h('pre', { tabindex: 0 }, text), copyButton(text, 'Copy'));
}

// The model page's state, shared by its sections: the model (once loaded),
// the solution and device chosen, the results read and the last refresh's signal.
function modelState(ctx, modelId) {
  const p = ctx.params;
  return {
    ctx, modelId, m: null, results: [], signal: null,
    solution: p.get('solution'), dev: p.get('dev') || '259:0',
    fwrev: () => new URLSearchParams(location.search).get('fwrev'),
  };
}

// The model's facts (id, submissions) and the firmware choice, which reloads the page.
function modelHead(pg, reload) {
  const el = h('div', {});
  const fwSel = h('select', { id: 'fwrev', 'aria-label': 'Firmware revision' });
  fwSel.addEventListener('change', () => {
    pg.ctx.setParams({ fwrev: fwSel.value || null });
    reload();
  });
  function draw() {
    const m = pg.m;
    const fwrevs = m.fwrevs || [];
    fill(fwSel, h('option', { value: '' }, 'All firmware'), fwrevs.map((f) => h('option', { value: f }, f)));
    fwSel.value = pg.fwrev() || '';
    const n = typeof m.submissions === 'number' ? m.submissions : submissionsOf(m).length;
    fill(el, h('h1', {}, m.model || m.id),
      h('dl', { class: 'facts' },
        h('dt', {}, 'Model id'), h('dd', { class: 'mono' }, m.id),
        h('dt', {}, 'Submissions'), h('dd', {}, fmt.count(n), m.kinds ? ` (${kindsText(m.kinds)})` : null),
        h('dt', {}, 'Firmware'), h('dd', {}, fwSel)));
  }
  return { el, draw };
}

// The recommended values per solution, each with its spread, as a table;
// the solutions it lists are offered by setSolutions (the config section).
function recommendationSection(pg, setSolutions) {
  const sec = section('Recommended io.cost configuration');
  const cell = (rec, s, part, key, f) => {
    const v = rec[s][part] && rec[s][part][key];
    const sp = spreadText(rec[s].spread, key, f);
    return h('td', { class: 'num' }, v === undefined || v === null ? '–' : f(v), sp ? h('div', { class: 'spread' }, sp) : null);
  };
  function draw() {
    const rec = pg.m.recommended || {};
    const names = Object.keys(rec);
    if (!names.length) return fill(sec.body, empty('No recommendation: no submission of this model has usable iocost-tune solutions.'));
    const quick = pg.m.basis === 'quick';
    const table = h('table', { class: 'data compact rec' },
      h('caption', {}, quick ? 'Median over the quick benches (io.cost model only: no QoS was measured); the spread (min – max) below each value'
        : 'Median over the raw submissions of the newest bench version; the spread (min – max) below each value'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Parameter'), names.map((s) => h('th', { scope: 'col', class: 'num' }, s)))),
      h('tbody', {},
        PARAMS.map(([part, key, label, f]) => h('tr', {}, h('th', { scope: 'row' }, `${key} `, h('span', { class: 'muted' }, label)),
          names.map((s) => cell(rec, s, part, key, f)))),
        h('tr', {}, h('th', { scope: 'row' }, 'submissions'), names.map((s) => h('td', { class: 'num' }, fmt.count(rec[s].submissions))))));
    fill(sec.body, pg.m.note ? h('p', { class: quick ? 'badge warn basis' : 'muted basis' }, pg.m.note) : null,
      scrollRegion('Recommended io.cost configuration', table));
    setSolutions(names);
  }
  return { sec, draw };
}

// The config lines (io.cost.model, io.cost.qos) and the hwdb entry of the
// model for the chosen solution and device, into body.
function loadConfigLines(pg, body, signal) {
  return guard(body, 'the configuration', async () => {
    const { m, solution } = pg;
    if (!m || !Object.keys(m.recommended || {}).length) return fill(body, empty('Nothing to configure without a recommendation.'));
    fill(body, loading('the configuration'));
    const [cfg, hwdb] = await Promise.all([
      api.ssdConfig(m.id, { solution, dev: pg.dev, fwrev: pg.fwrev() }, signal),
      api.ssdHwdb({ model: m.id }, signal),
    ]);
    const lines = cfg.text.trim().split('\n');
    let used = null;
    for (const [k, v] of cfg.headers) if (/solution/i.test(k)) used = v;
    const entry = hwdbEntries(hwdb.text, m);
    fill(body,
      used && used !== solution ? h('p', { class: 'badge warn' }, `This model has no ${solution} solution; showing ${used}.`) : null,
      h('h3', {}, 'io.cost.model'), lineBlock(lines.find((l) => / model=/.test(l)) || lines[0] || ''),
      h('h3', {}, 'io.cost.qos'), m.basis === 'quick' ? empty('No io.cost.qos line: this model has quick benches only, which measure no QoS. Keep the kernel\'s QoS or run resctl-bench for a tuned one.')
        : lineBlock(lines.find((l) => / enable=/.test(l)) || lines[1] || ''),
      h('p', { class: 'muted' }, 'Write each line to the file of that name in the cgroup2 root, e.g. ', h('code', {}, 'echo "…" > /sys/fs/cgroup/io.cost.qos'), ', or let ', h('code', {}, 'schedio apply'), ' do it.'),
      h('h3', {}, 'systemd hwdb entry'),
      entry ? copyBlock(entry, 'Copy hwdb entry') : empty('The hwdb has no entry for this model.'));
  });
}

// The configuration section: the solution and device choice over the config
// lines; choosing a solution also calls onSolution.
function configSection(pg, onSolution) {
  const solSel = h('select', { id: 'solution', 'aria-label': 'Solution' });
  const devIn = h('input', { id: 'dev', value: pg.dev, size: 8, 'aria-label': 'Device number (MAJ:MIN)', pattern: '[0-9]+:[0-9]+' });
  const sec = section('Configuration lines', h('label', {}, 'Solution ', solSel), h('label', {}, 'Device ', devIn));
  const load = (signal) => loadConfigLines(pg, sec.body, signal);
  solSel.addEventListener('change', () => {
    pg.solution = solSel.value;
    pg.ctx.setParams({ solution: pg.solution });
    load(pg.signal).catch(() => {});
    onSolution();
  });
  devIn.addEventListener('change', () => {
    if (!devIn.checkValidity()) return devIn.reportValidity();
    pg.dev = devIn.value;
    pg.ctx.setParams({ dev: pg.dev });
    load(pg.signal).catch(() => {});
  });
  // names: the solutions of the recommendation; the one in the URL if it is there
  function setSolutions(names) {
    fill(solSel, names.map((s) => h('option', { value: s }, s)));
    pg.solution = pickSolution(names, pg.solution);
    solSel.value = pg.solution;
  }
  return { sec, load, setSolutions };
}

const GROUPS = [
  ['bw', 'Bandwidth', [['model', 'rbps', 'read'], ['model', 'wbps', 'write']], fmt.mbps],
  ['iops', 'IOPS', [['model', 'rseqiops', 'read seq'], ['model', 'rrandiops', 'read rand'], ['model', 'wseqiops', 'write seq'], ['model', 'wrandiops', 'write rand']], fmt.iops],
  ['lat', 'Latency targets', [['qos', 'rlat', 'read'], ['qos', 'wlat', 'write']], fmt.us],
  ['vrate', 'vrate range', [['qos', 'min', 'min'], ['qos', 'max', 'max']], (v) => fmt.pct(v, 0)],
];

// Across submissions, per solution: the median as a bar and the spread
// (min - max over the submissions) as a floating bar beside it; from the
// recommendation, so it is there whatever else the server lists.
function spreadCharts(m) {
  const rec = m.recommended || {};
  const names = Object.keys(rec);
  if (!names.length) return [];
  // quick benches measure no QoS: only the model groups have values
  return GROUPS.filter(([, , fields]) => m.basis !== 'quick' || fields.every(([part]) => part === 'model')).map(([key, title, fields, f]) => {
    const box = chartBox(`${title}: median and spread over submissions per solution`, 220);
    const sets = [];
    fields.forEach(([part, k, label], i) => {
      const col = color(i);
      sets.push({ label: `${label} median`, values: names.map((s) => (rec[s][part] ? rec[s][part][k] ?? null : null)), color: col });
      sets.push({ label: `${label} spread`, values: names.map((s) => (rec[s].spread && rec[s].spread[k]) || null), color: rgba(col, 0.35) });
    });
    return { slot: `param:spread:${key}`, title, box, config: barsConfig(names, sets, { format: (v) => (Array.isArray(v) ? `${f(v[0])} – ${f(v[1])}` : f(v)) }) };
  });
}

// MOF, aMOF and isolation per submission for the solution, when any result has them.
function mofChart(withSol, labels, solution) {
  const pick = (r, ...keys) => { for (const k of keys) if (Number.isFinite(r.solutions[solution][k])) return r.solutions[solution][k]; return null; };
  if (!withSol.some((r) => pick(r, 'MOF', 'mem_offload_factor', 'aMOF', 'isol') !== null)) return [];
  return [{
    slot: 'param:sub:mof', title: `MOF, aMOF and isolation, ${solution}, per submission`,
    box: chartBox(`Memory offload factor and isolation per submission for ${solution}`, 200),
    config: barsConfig(labels, [
      { label: 'MOF', values: withSol.map((r) => pick(r, 'MOF', 'mem_offload_factor')) },
      { label: 'aMOF', values: withSol.map((r) => pick(r, 'aMOF', 'adjusted_mem_offload_factor')) },
      { label: 'isol', values: withSol.map((r) => pick(r, 'isol')) },
    ], { format: (v) => (v === null ? '–' : Number(v).toFixed(2)) }),
  }];
}

// One bar per submission for the chosen solution, when the server lists them.
function perSubmissionCharts(results, solution) {
  const withSol = results.filter((r) => r.solutions && r.solutions[solution]);
  if (!withSol.length) return [];
  const labels = withSol.map((r) => `${String(r.id).slice(0, 8)} ${r.fwrev || ''}`.trim());
  const val = (r, part, key) => { const x = r.solutions[solution][part]; return x && Number.isFinite(x[key]) ? x[key] : null; };
  const out = GROUPS.map(([key, title, fields, f]) => ({
    slot: `param:sub:${key}`, title: `${title}, ${solution}, per submission`,
    box: chartBox(`${title} per submission for the ${solution} solution`, 200),
    config: barsConfig(labels, fields.map(([part, k, label]) => ({ label, values: withSol.map((r) => val(r, part, k)) })), { format: f }),
  }));
  return [...out, ...mofChart(withSol, labels, solution)];
}

// The parameters across submissions: spread per solution, then per submission.
function paramSection(pg) {
  const sec = section('Parameters across submissions');
  function draw() {
    const ctx = pg.ctx;
    for (const key of [...ctx.charts.slots.keys()]) if (key.startsWith('param:')) ctx.charts.drop(key);
    const charts = [...spreadCharts(pg.m), ...perSubmissionCharts(pg.results, pg.solution)];
    if (!charts.length) return fill(sec.body, empty('No submission of this model has iocost-tune solutions.'));
    fill(sec.body, h('p', { class: 'muted' }, 'Per solution: the median (solid) and the spread from the lowest to the highest submission (light).'),
      h('div', { class: 'panels' }, charts.map((c) => h('figure', { class: 'panel' }, h('figcaption', {}, c.title), c.box.box))));
    for (const c of charts) ctx.charts.put(c.slot, c.box.canvas, c.config);
  }
  return { sec, draw };
}

// The measured MOF/aMOF and latency curves of one result (data: its curves).
function drawCurveData(ctx, body, r, data) {
  const pick = (names) => names.map((n) => ({ label: n, curve: normalizeCurve(data[n]) })).filter((x) => x.curve);
  const mof = pick(['MOF', 'aMOF', 'isol']);
  const lat = pick(['rlat-99-mean', 'wlat-99-mean', 'rlat-50-mean', 'wlat-50-mean']);
  if (!mof.length && !lat.length) return fill(body, empty('This result has no MOF or latency curves.'));
  const mofBox = chartBox('MOF and aMOF against vrate', 240), latBox = chartBox('Read and write latency against vrate', 240);
  fill(body, h('p', { class: 'muted' }, `From submission ${String(r.id).slice(0, 8)} (firmware ${r.fwrev || '?'}).`),
    h('div', { class: 'panels' },
      mof.length ? h('figure', { class: 'panel' }, h('figcaption', {}, 'Memory offload factor and isolation against vrate'), mofBox.box) : null,
      lat.length ? h('figure', { class: 'panel' }, h('figcaption', {}, 'IO latency against vrate'), latBox.box) : null));
  if (mof.length) ctx.charts.put('curve:mof', mofBox.canvas, curvesConfig(mof, { format: (v) => Number(v).toFixed(2), title: 'factor' }));
  if (lat.length) ctx.charts.put('curve:lat', latBox.canvas, curvesConfig(lat, { format: (v) => fmt.ns(v * 1e9), title: 'latency' }));
}

// The measured curves. They come with the result when the server passes them
// on (curves/data); otherwise they are read from the original file, but only
// when asked, since a full result file can be larger than a page should
// fetch on its own.
function curveSection(pg) {
  const sec = section('Measured curves');
  function draw() {
    const { ctx, results } = pg;
    ctx.charts.drop('curve:mof'); ctx.charts.drop('curve:lat');
    const r = results.find((x) => x.curves || x.data);
    if (r) return drawCurveData(ctx, sec.body, r, r.curves || r.data);
    const full = results.filter((x) => !isQuick(x)); // a quick bench has no iocost-tune curves
    if (results.length && !full.length) return fill(sec.body, empty('Quick benches have no iocost-tune curves: their rates over time are under Quick benches.'));
    const pick = full.find((x) => Object.keys(x.solutions || {}).length > 1) || full[0];
    if (!pick) return fill(sec.body, empty('The measured curves are in the submitted files, which this server does not list for the model.'));
    const btn = h('button', { type: 'button', id: 'load-curves' }, `Load the curves from submission ${String(pick.id).slice(0, 8)}`);
    btn.addEventListener('click', () => guard(sec.body, 'the curves', async () => {
      fill(sec.body, loading('the result file'));
      const data = await api.ssdResultCurves(pick.id, pg.signal);
      if (!data) return fill(sec.body, empty('This result file has no iocost-tune curves.'));
      drawCurveData(ctx, sec.body, pick, data);
    }).catch(() => {}));
    fill(sec.body, h('p', { class: 'muted' }, 'The MOF/aMOF and latency curves are in the result file itself. ', btn));
  }
  return { sec, draw };
}

// The submissions of the model as a table, each with its file for download.
function submissionSection(pg) {
  const sec = section('Submissions');
  function draw(subs) {
    if (!subs.length) return fill(sec.body, empty(`${fmt.count(pg.m.submissions)} submission(s); this server does not list them one by one.`));
    const byId = new Map(pg.results.map((r) => [r.id, r]));
    const rows = subs.map((s) => ({ ...(typeof s === 'string' ? { id: s } : s), ...(byId.get(s.id || s) || {}) }));
    const table = dataTable([
      { key: 'id', label: 'Result', render: (r) => h('span', { class: 'mono' }, String(r.id).slice(0, 12)) },
      { key: 'fwrev', label: 'Firmware' },
      { key: 'bench_version', label: 'Bench' },
      { key: 'kernel', label: 'Kernel' },
      { key: 'merged', label: 'Kind', value: (r) => (isQuick(r) ? 2 : r.merged ? 1 : 0), render: (r) => h('span', {}, kindBadge(r), ' ', isQuick(r) ? 'schedio bench' : r.merged ? 'merged' : 'raw') },
      { key: 'solutions', label: 'Solutions', wrap: true, value: (r) => Object.keys(r.solutions || {}).length, render: (r) => Object.keys(r.solutions || {}).join(', ') || '–' },
      { key: 'dl', label: 'File', value: () => 0, render: (r) => h('a', { href: api.ssdResultFileUrl(r.id), download: `result-${r.id}.json.gz` }, 'Download') },
    ], { caption: 'Submissions of this model', sort: 'fwrev', text: (r) => `${r.id} ${r.fwrev} ${r.kernel}` });
    table.setRows(rows);
    fill(sec.body, table.el);
  }
  return { sec, draw };
}

function mountModel(ctx, modelId) {
  ctx.setTitle(modelId.replace(/_/g, ' '));
  const pg = modelState(ctx, modelId);
  const reload = () => { pg.signal && model(pg.signal).catch(() => {}); };
  const head = modelHead(pg, reload);
  const params = paramSection(pg);
  const cfg = configSection(pg, () => params.draw());
  const rec = recommendationSection(pg, cfg.setSolutions);
  const curves = curveSection(pg), subs = submissionSection(pg), quick = quickSection(pg);
  const sections = [rec.sec, cfg.sec, params.sec, quick.sec, curves.sec, subs.sec];
  fill(ctx.root, h('p', {}, h('a', { href: '/ssd' }, '← All SSD models')), head.el, sections.map((s) => s.el));
  fill(head.el, loading('the model'));

  // Loads the model, then its config and (up to MAX_RESULTS) results.
  async function model(signal) {
    try {
      pg.m = await api.ssdModel(modelId, pg.fwrev(), signal);
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      fill(head.el, failure('the model', err));
      for (const s of sections) s.el.hidden = true;
      return;
    }
    const fw = pg.fwrev();
    for (const s of sections) s.el.hidden = false;
    head.draw();
    rec.draw();
    const list = submissionsOf(pg.m).filter((s) => !fw || !s.fwrev || s.fwrev === fw);
    await Promise.all([
      cfg.load(signal),
      guard(params.sec.body, 'the submissions', async () => {
        pg.results = await Promise.all(list.slice(0, MAX_RESULTS).map((s) => api.ssdResult(s.id || s, signal).then((r) => ({ id: s.id || s, ...(typeof s === 'object' ? s : {}), ...r }))));
        params.draw();
        quick.draw(pg.results);
        curves.draw();
        subs.draw(list);
      }),
    ]);
  }

  return {
    refresh(signal) {
      pg.signal = signal;
      return model(signal);
    },
    destroy() {},
  };
}
