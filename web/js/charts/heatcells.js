// heatcells.js - the heatmap's cells as a chartjs-chart-matrix controller
// that lays them out and paints them in one pass. The matrix controller
// resolves every cell's scriptable options through Chart.js's resolvers and
// paints each cell with its own save/path/fill/restore: ~55 ms to redraw
// 3,000 cells in headless Chromium, and 150-180 ms to create the chart.
// Here every cell has the same size (a step by a row, in data units, given
// on the dataset as cellX and cellY) and its color is part of its data
// point (c), so layout is arithmetic and painting is one path per color.
// The matrix element still does hit testing and tooltips.
const Chart = window.Chart;
const matrix = window['chartjs-chart-matrix'];

// The pixel length of span data units on a linear scale, at least one pixel
// and half a pixel more so neighbouring cells leave no hairline gaps.
// Measured from the scale's own minimum: Chart.js clamps pixels far outside
// the chart area.
function pixels(scale, span) {
  return Math.max(1, Math.abs(scale.getPixelForValue(scale.min + span) - scale.getPixelForValue(scale.min)) + 0.5);
}

class HeatCellsController extends (matrix ? matrix.MatrixController : Chart.DatasetController) {
  updateElements(elements, start, count) {
    const { xScale, yScale } = this._cachedMeta;
    if (!xScale || !yScale) return;
    const ds = this.getDataset();
    const width = pixels(xScale, ds.cellX), height = pixels(yScale, ds.cellY);
    const styles = new Map(); // one options object per color
    for (let i = start; i < start + count; i++) {
      const p = this.getParsed(i), raw = ds.data[i];
      let options = styles.get(raw.c);
      if (!options) styles.set(raw.c, (options = { backgroundColor: raw.c, borderWidth: 0, borderRadius: 0 }));
      const x = xScale.getPixelForValue(p.x), y = yScale.getPixelForValue(p.y);
      // no animations on the dashboard (nor a reset pose): the properties are set directly
      Object.assign(elements[i], { x: x - width / 2, y: y - height / 2, width, height, options });
    }
  }

  draw() {
    const ctx = this.chart.ctx;
    const byColor = new Map();
    for (const el of this.getMeta().data || []) {
      const c = el.options && el.options.backgroundColor;
      if (!c || c === 'transparent') continue;
      let list = byColor.get(c);
      if (!list) byColor.set(c, (list = []));
      list.push(el);
    }
    ctx.save();
    for (const [c, list] of byColor) {
      ctx.fillStyle = c;
      ctx.beginPath();
      for (const el of list) ctx.rect(el.x, el.y, el.width, el.height);
      ctx.fill();
    }
    ctx.restore();
  }
}
HeatCellsController.id = 'heatcells';
HeatCellsController.defaults = { dataElementType: 'matrix', animations: false };
if (matrix) {
  HeatCellsController.overrides = matrix.MatrixController.overrides;
  Chart.register(HeatCellsController);
}
