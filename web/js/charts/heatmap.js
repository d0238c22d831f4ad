// heatmap.js - runqueue latency over time as a heatmap: x is time, y is the
// latency bucket (log scale, a quarter of a power of two per row), the color
// is the share of that interval's samples in the cell, so a shift of the
// distribution shows whatever the load. The p50/p90/p99 lines are drawn on
// top in the same log2 coordinates.
import * as fmt from '../format.js';
import { bucketRow, ROWS_PER_OCTAVE } from '../hist.js';
import { cssVar, rgba } from './base.js';
import './heatcells.js';

const LINES = [['p50_ns', 'p50', '#10b981'], ['p90_ns', 'p90', '#f59e0b'], ['p99_ns', 'p99', '#ef4444']];

// resp: a runqlat answer of the API (series and the histogram layout).
// Returns null when there is nothing to draw.
export function heatmapConfig(resp) {
  const step = resp.step_ms;
  const cells = [];
  let minRow = Infinity, maxRow = -Infinity;
  for (const p of resp.series) {
    if (!p.buckets || !p.count) continue;
    const rows = new Map();
    for (const [idx, n] of p.buckets) {
      const row = bucketRow(idx, resp.layout);
      rows.set(row, (rows.get(row) || 0) + n);
    }
    let top = 0;
    for (const n of rows.values()) top = Math.max(top, n);
    for (const [row, n] of rows) {
      cells.push({ x: p.t + step / 2, y: row + 0.5 / ROWS_PER_OCTAVE, v: n / p.count, n, r: n / top });
      minRow = Math.min(minRow, row);
      maxRow = Math.max(maxRow, row);
    }
  }
  if (!cells.length) return null;
  const ymin = Math.floor(minRow), ymax = Math.ceil(maxRow + 1 / ROWS_PER_OCTAVE);
  const xmin = resp.from, xmax = resp.to;
  const accent = cssVar('--heat');
  // a cell's color: the share of its interval's top cell, in 50 shades
  const shades = Array.from({ length: 51 }, (_, i) => rgba(accent, 0.1 + 0.9 * Math.sqrt(i / 50)));
  for (const cell of cells) cell.c = shades[Math.round(cell.r * 50)];
  const line = (field) => resp.series.filter((p) => p[field] > 0).map((p) => ({ x: p.t + step / 2, y: Math.log2(p[field]) }));

  return {
    data: {
      datasets: [
        {
          type: 'heatcells',
          label: 'share of samples',
          data: cells,
          parsing: false,
          cellX: step,
          cellY: 1 / ROWS_PER_OCTAVE,
          // what a tooltip's color box and a hovered cell are drawn with
          backgroundColor: (c) => (c.raw ? c.raw.c : 'transparent'),
          borderWidth: 0,
          order: 2,
        },
        ...LINES.map(([field, label, col]) => ({
          type: 'line', label, data: line(field), borderColor: col, backgroundColor: col,
          borderWidth: 1.5, pointRadius: 0, tension: 0, order: 1,
        })),
      ],
    },
    options: {
      parsing: { xAxisKey: 'x', yAxisKey: 'y' },
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: { type: 'linear', min: xmin, max: xmax, offset: false, ticks: { maxTicksLimit: 8, callback: (v) => fmt.clock(v, xmax - xmin) } },
        y: {
          type: 'linear', min: ymin, max: ymax, reverse: false, offset: false,
          title: { display: true, text: 'runqueue latency' },
          ticks: { stepSize: 1, callback: (v) => fmt.ns(2 ** v) },
        },
      },
      plugins: {
        legend: { labels: { filter: (item) => item.datasetIndex > 0 } },
        tooltip: {
          callbacks: {
            title: (items) => (items.length ? fmt.dateTime(items[0].parsed.x - step / 2) : ''),
            label: (item) => {
              if (item.datasetIndex === 0) {
                const d = item.raw;
                const lo = 2 ** (d.y - 0.5 / ROWS_PER_OCTAVE), hi = lo * 2 ** (1 / ROWS_PER_OCTAVE);
                return `${fmt.ns(lo)}–${fmt.ns(hi)}: ${fmt.count(d.n)} samples (${fmt.pct(100 * d.v)})`;
              }
              return `${item.dataset.label}: ${fmt.ns(2 ** item.parsed.y)}`;
            },
          },
        },
      },
    },
  };
}
