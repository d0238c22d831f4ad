// bars.js - grouped bars for comparing a few values per item (weight share
// against usage share per cgroup, p50/p99 per CPU, parameters per submission).
import { color } from './base.js';

// labels: item names; sets: [{label, values, color?}]; opts: {format, horizontal, max, title}
export function barsConfig(labels, sets, opts) {
  const valueAxis = opts.horizontal ? 'x' : 'y';
  const itemAxis = opts.horizontal ? 'y' : 'x';
  return {
    type: 'bar',
    data: {
      labels,
      datasets: sets.map((s, i) => ({
        label: s.label, data: s.values,
        backgroundColor: s.color || color(i), borderWidth: 0, maxBarThickness: 28,
      })),
    },
    options: {
      indexAxis: itemAxis,
      scales: {
        [valueAxis]: {
          type: opts.log ? 'logarithmic' : 'linear',
          beginAtZero: !opts.log, max: opts.max,
          title: opts.title ? { display: true, text: opts.title } : undefined,
          ticks: { maxTicksLimit: 6, callback: (v) => opts.format(v) },
        },
        [itemAxis]: { ticks: { autoSkip: labels.length > 40 } },
      },
      plugins: {
        tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${opts.format(item.raw)}` } },
      },
    },
  };
}
