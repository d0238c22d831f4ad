// base.js - Chart.js set up once for the dashboard: the matrix (heatmap)
// plugin registered, colors taken from the page's CSS so charts follow light
// and dark mode (and switch live when the system setting changes), no
// animation (charts are redrawn on every refresh, and a fast first paint
// matters more than motion), and a set that owns a page's charts so
// leaving a page or redrawing a panel frees the old ones.
const Chart = window.Chart;
const matrix = window['chartjs-chart-matrix'];
if (matrix) Chart.register(matrix.MatrixController, matrix.MatrixElement);

// Series colors chosen to read on both the light and the dark background.
export const PALETTE = ['#3b82f6', '#ef4444', '#f59e0b', '#10b981', '#8b5cf6', '#ec4899', '#06b6d4', '#84cc16', '#f97316', '#64748b'];
export const color = (i) => PALETTE[i % PALETTE.length];

// A color of the page's CSS. Read once per theme: reading computed style
// while a page is being built forces a style recalculation each time, and
// every chart asks for the same few colors.
const themeVars = new Map();
export function cssVar(name) {
  if (!themeVars.has(name)) themeVars.set(name, getComputedStyle(document.documentElement).getPropertyValue(name).trim());
  return themeVars.get(name);
}

// '#rrggbb' with an alpha, as canvas fill styles take it.
export function rgba(hex, alpha) {
  const n = parseInt(hex.replace('#', ''), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha.toFixed(3)})`;
}

// Colors are set on each chart's own options as well as on the defaults:
// Chart.js resolves option defaults once per chart, so a live light/dark
// switch must reach into the charts that already exist.
// options: the plain options object of a chart config (chart.config.options).
function themeOptions(options) {
  const grid = cssVar('--grid'), muted = cssVar('--muted');
  const sub = (o, k) => (o[k] = o[k] || {});
  for (const scale of Object.values(options.scales || {})) {
    sub(scale, 'grid').color = grid;
    sub(scale, 'border').color = grid;
    sub(scale, 'ticks').color = muted;
    if (scale.title) scale.title.color = muted;
  }
  sub(sub(sub(options, 'plugins'), 'legend'), 'labels').color = muted;
}

function applyTheme() {
  themeVars.clear();
  Chart.defaults.color = cssVar('--muted');
  Chart.defaults.borderColor = cssVar('--grid');
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  for (const c of Object.values(Chart.instances)) {
    themeOptions(c.config.options);
    c.update('none');
  }
}

Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.responsive = true;
Chart.defaults.plugins.legend.labels.boxWidth = 12;
applyTheme();
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', applyTheme);

// The charts of one page, by slot: putting a chart into a slot destroys the
// one that was there, destroyAll() frees everything when the page goes.
export class ChartSet {
  constructor() { this.slots = new Map(); }

  put(slot, canvas, config) {
    this.drop(slot);
    themeOptions(config.options || (config.options = {}));
    const chart = new Chart(canvas, config);
    this.slots.set(slot, chart);
    return chart;
  }

  drop(slot) {
    const old = this.slots.get(slot);
    if (old) old.destroy();
    this.slots.delete(slot);
  }

  destroyAll() {
    for (const c of this.slots.values()) c.destroy();
    this.slots.clear();
  }
}
