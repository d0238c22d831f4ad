// reports.mjs - synthetic agent reports in the documented format
// (schedio.report.v1, notes/api.md) for the browser tests: a fleet of many
// hosts and one host with a day of history. Deterministic (seeded), shaped
// like real data: per cgroup a log-normal runqueue latency histogram over
// ~60 buckets of the shared layout, per-CPU histograms, and iocost rows with
// weights, usage and wait/debt/delay.

// The shared histogram layout (bpf/hist.h): g = 4, n = 36, 528 buckets.
const G = 4, N = 36;
export const BUCKETS = (N - G + 1) << G;
export const LAYOUT = { grouping_power: G, max_value_power: N };

export function histIndex(v) {
  if (v < 2 ** (G + 1)) return Math.floor(v);
  if (v >= 2 ** N) return BUCKETS - 1;
  const h = Math.floor(Math.log2(v));
  return ((h - G + 1) << G) + Math.floor(v / 2 ** (h - G)) - (1 << G);
}

export function bucketLower(idx) {
  if (idx < 1 << (G + 1)) return idx;
  const h = (idx >> G) + G - 1;
  return ((1 << G) + (idx & ((1 << G) - 1))) * 2 ** (h - G);
}

const bucketMid = (idx) => (idx >= BUCKETS - 1 ? bucketLower(idx) : (bucketLower(idx) + bucketLower(idx + 1) - 1) / 2);

// mulberry32: a tiny seeded generator, so every run posts the same data.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A histogram of `total` samples, log-normal around 2^mu ns with sigma in
// octaves; bucket counts from the density, so no per-sample work.
export function histogram(total, mu, sigma) {
  const lo = histIndex(2 ** (mu - 2.2 * sigma)), hi = histIndex(2 ** (mu + 2.2 * sigma));
  const weights = [];
  let sum = 0;
  for (let i = lo; i <= hi; i++) {
    const x = Math.log2(Math.max(1, bucketMid(i)));
    const w = Math.exp(-0.5 * ((x - mu) / sigma) ** 2) * (bucketLower(i + 1) - bucketLower(i));
    weights.push([i, w]);
    sum += w;
  }
  const buckets = [];
  let count = 0, sumNs = 0, maxNs = 0;
  for (const [i, w] of weights) {
    const n = Math.round((total * w) / sum);
    if (n <= 0) continue;
    buckets.push([i, n]);
    count += n;
    sumNs += n * bucketMid(i);
    maxNs = Math.max(maxNs, bucketLower(i + 1) - 1);
  }
  const q = (f) => {
    const rank = Math.max(1, Math.ceil(f * count));
    let seen = 0;
    for (const [i, n] of buckets) { seen += n; if (seen >= rank) return Math.round(bucketMid(i)); }
    return 0;
  };
  return { count, sum_ns: Math.round(sumNs), max_ns: maxNs, buckets, p50_ns: q(0.5), p90_ns: q(0.9), p99_ns: q(0.99), p999_ns: q(0.999) };
}

const CGROUP_NAMES = ['/', '/init.scope', '/system.slice', '/system.slice/sshd.service', '/system.slice/nginx.service',
  '/system.slice/postgresql.service', '/system.slice/cron.service', '/system.slice/systemd-journald.service',
  '/system.slice/containerd.service', '/user.slice', '/user.slice/user-1000.slice', '/workload.slice',
  '/workload.slice/batch-0.scope', '/workload.slice/batch-1.scope', '/workload.slice/web-0.scope', '/workload.slice/web-1.scope',
  '/workload.slice/cache.scope', '/workload.slice/etl.scope', '/machine.slice', '/machine.slice/vm-build.scope'];

export const SCHEDULERS = [null, 'scx_rusty', 'scx_lavd'];
export const KERNELS = ['6.1.0-18-amd64', '6.12.9-amd64', '6.6.15-amd64'];
// Disk models: two are in the shared resctl-bench data, one is not.
export const DISKS = [
  { model: 'Samsung SSD 970 EVO 500GB', fwrev: '2B2QEXE7' },
  { model: 'INTEL SSDPEKKA256G7', fwrev: 'PSF119D' },
  { model: 'WDC PC SN730 SDBQNTY-512G', fwrev: '11170101' },
];

// One host's identity and shape; i picks scheduler, kernel and disk.
export function fleetHost(i, { cgroups = 20, cpus = 2 } = {}) {
  return {
    id: `synthetic-${String(i).padStart(5, '0')}`,
    hostname: `node-${String(i).padStart(4, '0')}.dc${1 + (i % 3)}.example`,
    kernel: KERNELS[i % KERNELS.length],
    sched: SCHEDULERS[(i >> 1) % SCHEDULERS.length],
    cpus,
    cgroups: CGROUP_NAMES.slice(0, cgroups),
    disk: DISKS[i % DISKS.length],
    seed: 1000 + i,
  };
}

// The report of host h for the interval [startMs, endMs), seq >= 1.
export function report(h, seq, startMs, endMs) {
  const r = rng(h.seed * 7919 + seq);
  // schedulers differ a little, the time of day a little more
  const base = 13 + (h.sched === 'scx_lavd' ? -0.6 : h.sched === 'scx_rusty' ? -0.3 : 0) + 0.8 * Math.sin(endMs / 86400e3 * 2 * Math.PI);
  const secs = (endMs - startMs) / 1000;
  const cgroups = h.cgroups.map((path, k) => ({ path, ...histogram(Math.round(secs * (50 + 400 * r())), base + (k % 5) * 0.3 + r() * 0.4, 0.9 + 0.3 * r()) }));
  const cpus = Array.from({ length: h.cpus }, (_, cpu) => ({ cpu, ...histogram(Math.round(secs * 2000 * (1 + r())), base + 0.2 * cpu + r() * 0.3, 1.0) }));
  const dev = '259:0';
  const iocostCgroups = h.cgroups.filter((p) => p.startsWith('/workload.slice/') || p === '/system.slice').map((path, k, all) => {
    const weight = [100, 200, 50, 100, 300, 100, 100][k % 7];
    const share = 100 / all.length;
    return {
      path, dev, weight,
      hweight_active_pct: +(share * (0.6 + weight / 250)).toFixed(2), hweight_inuse_pct: +(share * (0.5 + weight / 300)).toFixed(2),
      usage_pct: +(share * (0.3 + 1.4 * r())).toFixed(2),
      rbytes: Math.round(secs * 1e6 * r()), wbytes: Math.round(secs * 5e5 * r()), rios: Math.round(secs * 200 * r()), wios: Math.round(secs * 100 * r()),
      wait_us: Math.round(5000 * r() ** 2), indebt_us: Math.round(2000 * r() ** 3), indelay_us: Math.round(1000 * r() ** 3),
    };
  });
  return {
    schema: 'schedio.report.v1',
    seq,
    agent: { version: 'synthetic' },
    interval: { start_ms: startMs, end_ms: endMs },
    host: { id: h.id, hostname: h.hostname, kernel: h.kernel, arch: 'x86_64', cpus: h.cpus, l3_domains: [Array.from({ length: h.cpus }, (_, c) => c)] },
    sched_ext: h.sched ? { state: 'enabled', ops: h.sched } : { state: 'disabled', ops: null },
    runqlat: { layout: LAYOUT, cgroups, cpus },
    iocost: {
      source: 'weights',
      disks: [{
        dev, name: 'nvme0n1', model: h.disk.model, fwrev: h.disk.fwrev, size_bytes: 500107862016, rotational: false, enabled: true,
        // "cost_model": the disk's "model" is the drive's name (the agent's spelling)
        cost_model: { ctrl: 'user', model: 'linear', rbps: 2706339840, rseqiops: 89698, rrandiops: 110036, wbps: 1063126016, wseqiops: 135560, wrandiops: 130734 },
        qos: { enable: 1, ctrl: 'user', rpct: 95, rlat: 5000, wpct: 95, wlat: 5000, min: 50, max: 150 },
        vrate_pct: +(80 + 40 * r()).toFixed(1),
      }],
      cgroups: iocostCgroups,
    },
  };
}
