// timeseries.js - values over time as lines. The x axis is plain unix ms on
// a linear scale with our own labels, so no date adapter is needed.
import * as fmt from '../format.js';
import { color } from './base.js';

// series: [{label, points: [{x: ms, y}], color?, dash?}]
// opts: {from, to, format: value formatter, log: logarithmic y, min, max, stacked}
export function timeSeriesConfig(series, opts) {
  const span = opts.to - opts.from;
  return {
    type: 'line',
    data: {
      datasets: series.map((s, i) => ({
        label: s.label,
        data: s.points,
        borderColor: s.color || color(i),
        backgroundColor: s.color || color(i),
        borderDash: s.dash || [],
        borderWidth: 1.5,
        pointRadius: s.points.length < 40 ? 2 : 0,
        spanGaps: false,
        tension: 0,
        yAxisID: s.axis || 'y',
      })),
    },
    options: {
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: {
          type: 'linear', min: opts.from, max: opts.to,
          ticks: { maxTicksLimit: 8, callback: (v) => fmt.clock(v, span) },
        },
        y: {
          type: opts.log ? 'logarithmic' : 'linear',
          min: opts.min, max: opts.max,
          title: opts.yTitle ? { display: true, text: opts.yTitle } : undefined,
          ticks: { maxTicksLimit: 6, callback: (v) => opts.format(v) },
        },
        ...(opts.y2 ? {
          y2: { type: 'linear', position: 'right', min: 0, grid: { drawOnChartArea: false },
            ticks: { maxTicksLimit: 6, callback: (v) => opts.y2.format(v) } },
        } : {}),
      },
      plugins: {
        tooltip: {
          callbacks: {
            title: (items) => (items.length ? fmt.dateTime(items[0].parsed.x) : ''),
            label: (item) => `${item.dataset.label}: ${(item.dataset.yAxisID === 'y2' ? opts.y2.format : opts.format)(item.parsed.y)}`,
          },
        },
      },
    },
  };
}

// The points of one field of a series, skipping nulls (no data there).
export function pointsOf(series, field, scale = 1) {
  const out = [];
  for (const p of series) {
    const v = p[field];
    if (v !== null && v !== undefined && Number.isFinite(v)) out.push({ x: p.t, y: v * scale });
  }
  return out;
}
