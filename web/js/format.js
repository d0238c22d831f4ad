// format.js - values with their units, the same way on every page:
// latencies in ns/µs/ms/s, bandwidth in MB/s, IOPS, percents, sizes, ages.
const DASH = '–';

function sig(v) {
  // three significant digits without trailing zeros: 1.23, 12.3, 123
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return String(Number(v.toFixed(1)));
  return String(Number(v.toFixed(2)));
}

export function ns(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  if (v < 1e3) return `${Math.round(v)} ns`;
  if (v < 1e6) return `${sig(v / 1e3)} µs`;
  if (v < 1e9) return `${sig(v / 1e6)} ms`;
  return `${sig(v / 1e9)} s`;
}

export function us(v) {
  return v === null || v === undefined ? DASH : ns(v * 1e3);
}

export function pct(v, digits = 1) {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  return `${Number(v.toFixed(digits))}%`;
}

export function mbps(bytesPerSec) {
  if (bytesPerSec === null || bytesPerSec === undefined) return DASH;
  return `${sig(bytesPerSec / 1e6)} MB/s`;
}

export function iops(v) {
  if (v === null || v === undefined) return DASH;
  return `${Math.round(v).toLocaleString('en-US')} IOPS`;
}

export function count(v) {
  if (v === null || v === undefined) return DASH;
  return Math.round(v).toLocaleString('en-US');
}

export function bytes(v) {
  if (!v) return DASH;
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${sig(v)} ${units[i]}`;
}

export function ago(ms, now = Date.now()) {
  if (!ms) return 'never';
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

const pad = (n) => String(n).padStart(2, '0');

// A time axis label: hours and minutes for spans up to two days, with the
// date for longer ones.
export function clock(ms, spanMs) {
  const d = new Date(ms);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return spanMs > 2 * 86400e3 ? `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hm}` : hm;
}

export function dateTime(ms) {
  if (!ms) return DASH;
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// The value of a <input type="datetime-local"> for a time in ms.
export function localInput(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
