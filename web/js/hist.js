// hist.js - the shared histogram layout (bpf/hist.h) on the dashboard side:
// log-linear, exact below 2^(g+1), then 2^g sub-buckets per power of two,
// values in nanoseconds. The layout is not fixed here: every runqlat answer
// of the API carries it as `layout` ({grouping_power, max_value_power}) and
// it is passed to each function below. Only bucket bounds are needed here:
// percentiles come from the server, the heatmap needs to know where each
// bucket sits.

// Number of buckets of a layout.
export function bucketCount(layout) {
  return (layout.max_value_power - layout.grouping_power + 1) << layout.grouping_power;
}

// Lowest value (ns) that falls into bucket idx.
export function bucketLower(idx, layout) {
  const g = layout.grouping_power;
  if (idx < 1 << (g + 1)) return idx;
  const h = (idx >> g) + g - 1;
  const sub = idx & ((1 << g) - 1);
  return ((1 << g) + sub) * 2 ** (h - g);
}

// Rows of the heatmap: a quarter of a power of two each, so a 24 h chart has
// a few dozen rows instead of hundreds of thin ones. Returns log2 units.
export const ROWS_PER_OCTAVE = 4;

export function bucketRow(idx, layout) {
  const lo = Math.max(1, bucketLower(idx, layout));
  return Math.floor(Math.log2(lo) * ROWS_PER_OCTAVE) / ROWS_PER_OCTAVE;
}

// The value reported for a bucket: its middle (the last bucket: its lower bound).
export function bucketValue(idx, layout) {
  const lo = bucketLower(idx, layout);
  if (idx >= bucketCount(layout) - 1) return lo;
  return lo + Math.floor((bucketLower(idx + 1, layout) - 1 - lo) / 2);
}

// The sum of points of a runqlat series (count, sum_ns, max_ns, sparse
// buckets) as one point of the same shape, buckets sorted by index.
export function sumPoints(points) {
  const merged = new Map();
  let count = 0, sum = 0, max = 0;
  for (const p of points) {
    count += p.count || 0;
    sum += p.sum_ns || 0;
    max = Math.max(max, p.max_ns || 0);
    for (const [i, n] of p.buckets || []) merged.set(i, (merged.get(i) || 0) + n);
  }
  const buckets = [...merged.entries()].sort((a, b) => a[0] - b[0]);
  return { count, sum_ns: sum, max_ns: max, buckets };
}

// Merges points of a runqlat series into one, with its percentiles read from
// the merged buckets the way the server reads them (nearest rank, middle of
// the bucket). layout: the answer's layout.
export function mergePoints(points, layout) {
  const { count, sum_ns, max_ns, buckets } = sumPoints(points);
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  const q = (f) => {
    if (!total) return null;
    const rank = Math.max(1, Math.ceil(f * total));
    let seen = 0;
    for (const [i, n] of buckets) { seen += n; if (seen >= rank) return bucketValue(i, layout); }
    return bucketValue(buckets[buckets.length - 1][0], layout);
  };
  return { count, sum_ns, max_ns, p50_ns: q(0.5), p90_ns: q(0.9), p99_ns: q(0.99), p999_ns: q(0.999) };
}
