// interval.js - one ratio with its interval against a band: the comparison
// of two arms (issue 15) drawn on a ratio axis. The no-difference band
// [1 - t, 1 + t] is a wide translucent stroke, the 95% interval a thick line
// with end ticks over it, the ratio a dot on top. Plain scatter datasets, so
// no plugin is needed and the test can read every value back.
import { rgba } from './base.js';

const Y = 0.5;
const fmtRatio = (v) => `${Number(v.toPrecision(3))}×`;

// r: {ratio, ci: [low, high] | null, threshold}; colors: {band, interval, ratio}
export function intervalConfig(r, colors) {
  const t = r.threshold;
  const lows = [1 - t], highs = [1 + t];
  if (Number.isFinite(r.ratio)) { lows.push(r.ratio); highs.push(r.ratio); }
  if (r.ci) { lows.push(r.ci[0]); highs.push(r.ci[1]); }
  const lo = Math.min(...lows), hi = Math.max(...highs);
  const pad = Math.max(0.02, (hi - lo) * 0.12);
  const datasets = [{
    label: `no-difference band ${fmtRatio(1 - t)} to ${fmtRatio(1 + t)}`,
    data: [{ x: 1 - t, y: Y }, { x: 1 + t, y: Y }],
    showLine: true, borderColor: rgba(colors.band, 0.28), backgroundColor: rgba(colors.band, 0.28),
    borderWidth: 34, borderCapStyle: 'butt', pointRadius: 0, pointHitRadius: 0, order: 3,
  }];
  if (r.ci) {
    datasets.push({
      label: `95% interval ${fmtRatio(r.ci[0])} to ${fmtRatio(r.ci[1])}`,
      data: [{ x: r.ci[0], y: Y }, { x: r.ci[1], y: Y }],
      showLine: true, borderColor: colors.interval, backgroundColor: colors.interval,
      borderWidth: 3, pointStyle: 'line', pointRotation: 90, pointRadius: 12, pointBorderWidth: 3, order: 2,
    });
  }
  if (Number.isFinite(r.ratio)) {
    datasets.push({
      label: `ratio A / B ${fmtRatio(r.ratio)}`,
      data: [{ x: r.ratio, y: Y }],
      borderColor: colors.ratio, backgroundColor: colors.ratio, pointRadius: 7, pointHoverRadius: 8, order: 1,
    });
  }
  return {
    type: 'scatter',
    data: { datasets },
    options: {
      parsing: false,
      scales: {
        x: {
          type: 'linear', min: Math.max(0, lo - pad), max: hi + pad,
          title: { display: true, text: 'A / B (below 1: A has lower latency)' },
          ticks: { maxTicksLimit: 8, callback: (v) => fmtRatio(v) },
        },
        y: { type: 'linear', min: 0, max: 1, display: false },
      },
      plugins: {
        tooltip: { callbacks: { label: (item) => item.dataset.label } },
      },
    },
  };
}
