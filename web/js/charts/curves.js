// curves.js - the measured curves of an iocost-tune result (MOF, aMOF,
// latencies against vrate): the points as dots and the fitted lines as
// lines. Both bench schemas are read: 2.1 keeps points in `points` and the
// fit as `lines.left/right`, 2.2 in `data` and `lines.points`.
import { color } from './base.js';

// One data series of result.data -> {points: [{x,y}], fit: [{x,y}]}, or null.
export function normalizeCurve(series) {
  if (!series || typeof series !== 'object') return null;
  const pts = (series.data || series.points || []).filter((p) => p && Number.isFinite(p.x) && Number.isFinite(p.y));
  let fit = [];
  const lines = series.lines || {};
  if (Array.isArray(lines.points)) fit = lines.points;
  else if (lines.left && lines.right) {
    const range = lines.range || [lines.left.x, lines.right.x];
    fit = [{ x: range[0], y: lines.left.y }, lines.left, lines.right, { x: range[1], y: lines.right.y }];
  }
  fit = fit.filter((p) => p && Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
  if (!pts.length && !fit.length) return null;
  return { points: pts, fit };
}

// curves: [{label, curve}] from normalizeCurve; opts: {format, title}
export function curvesConfig(curves, opts) {
  const datasets = [];
  curves.forEach(({ label, curve }, i) => {
    const c = color(i);
    datasets.push({ type: 'scatter', label, data: curve.points, backgroundColor: c, borderColor: c, pointRadius: 2.5 });
    if (curve.fit.length)
      datasets.push({ type: 'line', label: `${label} fit`, data: curve.fit, borderColor: c, borderDash: [5, 3], borderWidth: 1.5, pointRadius: 0, tension: 0 });
  });
  return {
    data: { datasets },
    options: {
      scales: {
        x: { type: 'linear', title: { display: true, text: 'vrate (%)' }, ticks: { callback: (v) => `${v}%` } },
        y: { type: 'linear', title: opts.title ? { display: true, text: opts.title } : undefined, ticks: { maxTicksLimit: 6, callback: (v) => opts.format(v) } },
      },
      plugins: {
        tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${opts.format(item.parsed.y)} at vrate ${item.parsed.x}%` } },
      },
    },
  };
}
