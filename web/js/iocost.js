// iocost.js - io.cost configuration as the kernel reads and prints it: the
// two lines written to io.cost.model and io.cost.qos, built from the JSON the
// agents report, so what the dashboard shows can be pasted as it is.
const MODEL_KEYS = ['rbps', 'rseqiops', 'rrandiops', 'wbps', 'wseqiops', 'wrandiops'];

export function modelLine(dev, m) {
  if (!m) return null;
  const head = [dev, `ctrl=${m.ctrl || 'user'}`, `model=${m.model || 'linear'}`];
  return head.concat(MODEL_KEYS.filter((k) => m[k] !== undefined && m[k] !== null).map((k) => `${k}=${Math.round(m[k])}`)).join(' ');
}

export function qosLine(dev, q) {
  if (!q) return null;
  const pctOf = (v) => Number(v).toFixed(2);
  const parts = [dev, `enable=${q.enable ? 1 : 0}`, `ctrl=${q.ctrl || 'user'}`];
  for (const [k, f] of [['rpct', pctOf], ['rlat', Math.round], ['wpct', pctOf], ['wlat', Math.round], ['min', pctOf], ['max', pctOf]])
    if (q[k] !== undefined && q[k] !== null) parts.push(`${k}=${f(q[k])}`);
  return parts.join(' ');
}

// Whether two configs (lines as above) say the same: compared key by key with
// numbers as numbers, so "rpct=95" and "rpct=95.00" agree.
export function sameConfig(a, b) {
  const parse = (text) => {
    const out = new Map();
    for (const line of String(text).trim().split('\n')) {
      const [dev, ...kv] = line.trim().split(/\s+/);
      for (const pair of kv) {
        const [k, v] = pair.split('=');
        out.set(`${dev} ${k}`, Number.isFinite(Number(v)) ? Number(v) : v);
      }
    }
    return out;
  };
  const x = parse(a), y = parse(b);
  if (x.size !== y.size) return false;
  for (const [k, v] of x) if (y.get(k) !== v) return false;
  return true;
}
