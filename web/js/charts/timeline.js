// timeline.js - which scheduler ran when, as one lane over time: each stretch
// a thick line in its scheduler's color (EEVDF/fair in grey), and each exit
// of a sched_ext scheduler a marker on top (a red triangle for an ejection, a
// grey one for an orderly unload). Same linear unix-ms x axis as timeseries.js.
import * as fmt from '../format.js';
import { color } from './base.js';
import { FAIR, exitKind } from '../health.js';

const FAIR_COLOR = '#64748b', EJECT_COLOR = '#ef4444', UNLOAD_COLOR = '#94a3b8';

// segments: timeline() of health.js; exits: the API's exits; opts: {from, to}
export function timelineConfig(segments, exits, opts) {
  const span = opts.to - opts.from;
  const names = [...new Set(segments.filter((s) => s.scx).map((s) => s.name))];
  // the palette without its red, which marks ejections
  const colorOf = (name) => (name === FAIR ? FAIR_COLOR : color([0, 2, 3, 4, 5, 6, 7, 8][names.indexOf(name) % 8]));
  // one dataset per scheduler, its stretches split by gaps (a null point)
  const byName = new Map();
  for (const s of segments) {
    if (!byName.has(s.name)) byName.set(s.name, []);
    const pts = byName.get(s.name);
    if (pts.length) pts.push({ x: (pts[pts.length - 1].x + s.start) / 2, y: null });
    pts.push({ x: s.start, y: 0, seg: s }, { x: s.end, y: 0, seg: s });
  }
  const lanes = [...byName.entries()].map(([name, data]) => ({
    type: 'line', label: name, data, borderColor: colorOf(name), backgroundColor: colorOf(name),
    borderWidth: 22, borderCapStyle: 'butt', pointRadius: 0, pointHitRadius: 6, spanGaps: false, tension: 0, order: 2,
  }));
  const marks = (exits || []).filter((e) => e.t_ms >= opts.from && e.t_ms <= opts.to);
  const markSet = (ejected) => marks.filter((e) => exitKind(e.kind).ejected === ejected).map((e) => ({ x: e.t_ms, y: 0.75, exit: e }));
  const markers = [
    { label: 'ejection', data: markSet(true), color: EJECT_COLOR },
    { label: 'unload', data: markSet(false), color: UNLOAD_COLOR },
  ].filter((m) => m.data.length).map((m) => ({
    type: 'scatter', label: m.label, data: m.data, borderColor: m.color, backgroundColor: m.color,
    pointStyle: 'triangle', rotation: 180, pointRadius: 7, pointHoverRadius: 9, order: 1,
  }));
  return {
    type: 'line',
    data: { datasets: [...lanes, ...markers] },
    options: {
      parsing: false,
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: { type: 'linear', min: opts.from, max: opts.to, ticks: { maxTicksLimit: 8, callback: (v) => fmt.clock(v, span) } },
        y: { type: 'linear', min: -1, max: 1.2, display: false },
      },
      plugins: {
        // a lane's legend box is a plain swatch, not its 22 px line
        legend: {
          labels: {
            generateLabels: (chart) => window.Chart.defaults.plugins.legend.labels.generateLabels(chart)
              .map((l) => ({ ...l, lineWidth: 0, fillStyle: l.strokeStyle })),
          },
        },
        tooltip: {
          callbacks: {
            title: (items) => (items.length ? fmt.dateTime(items[0].parsed.x) : ''),
            label: (item) => {
              const d = item.raw;
              if (d.exit) return `${d.exit.ops}: ${exitKind(d.exit.kind).text} (${d.exit.kind}) — ${d.exit.reason || 'no reason given'}`;
              const s = d.seg;
              if (!s) return item.dataset.label;
              const seq = s.enable_seq !== null && s.enable_seq !== undefined ? ` #${s.enable_seq}` : '';
              return `${s.name}${seq}${s.partial ? ' (partial)' : ''}: ${fmt.dateTime(s.start)} – ${fmt.dateTime(s.end)}`;
            },
          },
        },
      },
    },
  };
}
