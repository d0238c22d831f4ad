// phases.js - the phases of a quick bench (schedio bench) as a line chart:
// per phase, the rate over each step against the seconds since the phase
// started, so a burst then throttle or a falling rate shows as a shape.
import { color } from './base.js';

// phases: [{param, series: [[s, rate]], value}] of one unit; opts: {format, title}
export function phasesConfig(phases, opts) {
  const datasets = phases.map((p, i) => ({
    type: 'line',
    label: `${p.param}${p.steady === false ? ' (not steady)' : ''}`,
    data: (p.series || []).filter((pt) => Array.isArray(pt) && Number.isFinite(pt[0]) && Number.isFinite(pt[1])).map(([x, y]) => ({ x, y })),
    borderColor: color(i), backgroundColor: color(i), borderWidth: 1.5, pointRadius: 0, tension: 0,
  }));
  return {
    data: { datasets },
    options: {
      parsing: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: 'seconds since the phase started' } },
        y: { type: 'linear', beginAtZero: true, title: opts.title ? { display: true, text: opts.title } : undefined, ticks: { maxTicksLimit: 6, callback: (v) => opts.format(v) } },
      },
      plugins: {
        tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${opts.format(item.parsed.y)} at ${item.parsed.x} s` } },
      },
    },
  };
}
