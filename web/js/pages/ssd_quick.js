// ssd_quick.js - the quick benches (schedio bench results) of an SSD model on
// its page: per result its measured io.cost model, the rate of each phase
// over time (bandwidth and IOPS phases apart, as their units differ), the
// saturation search's queue depth, and the warnings the bench gave (a burst
// bucket, a falling rate, noise). Quick benches measure the model only, so
// the model page says plainly what they do and do not feed.
import * as fmt from '../format.js';
import { h, fill, empty, section, chartBox } from '../dom.js';
import { phasesConfig } from '../charts/phases.js';

const SHOWN = 5; // quick benches drawn in full; the rest are in the submissions table
const BW = new Set(['rbps', 'wbps']);

export const isQuick = (r) => r && (r.kind === 'quick' || (r.bench && Array.isArray(r.bench.phases)));

// A kind badge for a result: quick bench or full resctl-bench run.
export function kindBadge(r) {
  return isQuick(r) ? h('span', { class: 'badge kind quick', title: 'schedio bench: io.cost model only' }, 'quick')
    : h('span', { class: 'badge kind full', title: 'resctl-bench: model, QoS and solutions' }, 'full');
}

function warningList(warnings) {
  if (!warnings || !warnings.length) return h('p', { class: 'muted' }, 'No warnings.');
  return h('ul', { class: 'warnings' }, warnings.map((w) => h('li', {},
    h('span', { class: 'badge warn' }, String(w.kind || 'warning')), ' ',
    w.param ? h('code', {}, String(w.param)) : null, w.param ? ' ' : null,
    String(w.message || ''))));
}

// 4096 -> "4 KiB", 1048576 -> "1 MiB": block sizes are powers of two.
const blockSize = (b) => (b >= 1048576 && b % 1048576 === 0 ? `${b / 1048576} MiB` : b % 1024 === 0 ? `${b / 1024} KiB` : `${b} B`);

function phaseTable(phases) {
  const f = (p) => (BW.has(p.param) ? fmt.mbps : fmt.iops)(p.value);
  return h('table', { class: 'data compact' }, h('caption', {}, 'Phases, in the order run'),
    h('thead', {}, h('tr', {}, ['Phase', 'Sustained rate', 'Block size', 'Queue depth', 'Steady', 'Duration'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, phases.map((p) => h('tr', {},
      h('th', { scope: 'row' }, h('code', {}, p.param), ` ${p.op} ${p.pattern}`),
      h('td', { class: 'num' }, f(p)), h('td', { class: 'num' }, blockSize(p.block_size)),
      h('td', { class: 'num' }, fmt.count(p.queue_depth)), h('td', {}, p.steady ? 'yes' : 'no'),
      h('td', { class: 'num' }, `${Number(p.duration_s).toFixed(1)} s`)))));
}

// One quick bench: facts, phase table, two line charts, warnings; returns {el, charts}.
function quickCard(r, n) {
  const b = r.bench || {};
  const phases = Array.isArray(b.phases) ? b.phases : [];
  const charts = [];
  const groups = [['bw', 'Bandwidth phases', phases.filter((p) => BW.has(p.param)), fmt.mbps, 'bytes/s'],
    ['iops', 'IOPS phases', phases.filter((p) => !BW.has(p.param)), fmt.iops, 'IO/s']];
  const figs = groups.filter((g) => g[2].length).map(([key, title, ps, f, unit]) => {
    const box = chartBox(`${title} of quick bench ${String(r.id).slice(0, 8)}: rate over time per phase`, 220);
    charts.push({ slot: `quick:${n}:${key}`, canvas: box.canvas, config: phasesConfig(ps, { format: f, title: unit }) });
    return h('figure', { class: 'panel' }, h('figcaption', {}, `${title}: rate over time`), box.box);
  });
  const el = h('article', { class: 'quick-bench', 'data-result': r.id },
    h('h3', {}, kindBadge(r), ' ', h('span', { class: 'mono' }, String(r.id).slice(0, 12)), ` firmware ${r.fwrev || '–'}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Tool'), h('dd', {}, `schedio bench ${r.bench_version || ''}`.trim()),
      h('dt', {}, 'Benched'), h('dd', {}, `${b.target === 'file' ? 'a file on the disk' : 'the block device'}${b.duration_s ? `, ${Number(b.duration_s).toFixed(0)} s` : ''}`),
      h('dt', {}, 'Kernel'), h('dd', {}, r.kernel || '–')),
    phases.length ? phaseTable(phases) : empty('The phases of this bench could not be read.'),
    figs.length ? h('div', { class: 'panels' }, figs) : null,
    h('h4', {}, 'Warnings'), warningList(b.warnings));
  return { el, charts };
}

// The section; draw(results) with the results read for the page.
export function quickSection(pg) {
  const sec = section('Quick benches');
  function draw(results) {
    const ctx = pg.ctx;
    for (const key of [...ctx.charts.slots.keys()]) if (key.startsWith('quick:')) ctx.charts.drop(key);
    const quick = results.filter(isQuick);
    sec.el.hidden = !quick.length;
    if (!quick.length) return fill(sec.body, empty('No quick benches of this model.'));
    const cards = quick.slice(0, SHOWN).map((r, i) => quickCard(r, i));
    fill(sec.body,
      h('p', { class: 'muted' }, pg.m && pg.m.basis === 'full'
        ? 'Quick benches (schedio bench) of this model. They measure the io.cost model only; the recommendation above comes from the full resctl-bench results and does not change with them.'
        : 'Quick benches (schedio bench) measure the six io.cost model parameters in minutes; the recommended model line is their median. They measure no QoS.'),
      quick.length > SHOWN ? h('p', { class: 'muted' }, `Showing ${SHOWN} of ${fmt.count(quick.length)} quick benches.`) : null,
      cards.map((c) => c.el));
    for (const c of cards) for (const ch of c.charts) ctx.charts.put(ch.slot, ch.canvas, ch.config);
  }
  return { sec, draw };
}
