// hist.js - the shared histogram layout (bpf/hist.h) on the dashboard side:
// log-linear, exact below 2^(g+1), then 2^g sub-buckets per power of two,
// values in nanoseconds. Only bucket bounds are needed here: percentiles
// come from the server, the heatmap needs to know where each bucket sits.
export const GROUPING_POWER = 4;
export const MAX_VALUE_POWER = 36;
export const BUCKETS = (MAX_VALUE_POWER - GROUPING_POWER + 1) << GROUPING_POWER;

// Lowest value (ns) that falls into bucket idx.
export function bucketLower(idx, g = GROUPING_POWER) {
  if (idx < 1 << (g + 1)) return idx;
  const h = (idx >> g) + g - 1;
  const sub = idx & ((1 << g) - 1);
  return ((1 << g) + sub) * 2 ** (h - g);
}

// Rows of the heatmap: a quarter of a power of two each, so a 24 h chart has
// a few dozen rows instead of hundreds of thin ones. Returns log2 units.
export const ROWS_PER_OCTAVE = 4;

export function bucketRow(idx, g = GROUPING_POWER) {
  const lo = Math.max(1, bucketLower(idx, g));
  return Math.floor(Math.log2(lo) * ROWS_PER_OCTAVE) / ROWS_PER_OCTAVE;
}
