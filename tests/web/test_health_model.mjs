// test_health_model.mjs - web/js/health.js without a browser: the scheduler
// timeline built from the API's schedulers, exits and report intervals (one
// load per enable_seq however many reports saw it, an exit ending its load,
// EEVDF only where reports cover and no scheduler ran, clipping to the
// range, sightings without enable_seq joined unless an exit came between), the counters' rates and the
// L3 shares and agent figures, each against values worked out by hand.
import { timeline, schedulerLoads, coverage, eventSeries, l3Series, agentSeries, exitKind, pct3, perSec, FAIR } from '../../web/js/health.js';
import { checker } from './browser.mjs';

const t = checker();
const S = 1e3;
const pt = (a, b, extra = {}) => ({ start_ms: a * S, end_ms: b * S, ...extra });
const spans = (segs) => segs.map((s) => `${s.name}:${s.start / S}-${s.end / S}`).join(' ');

// reports 0-10, 10-20, 20-30; a gap; 40-50
const points = [pt(0, 10), pt(10, 20), pt(20, 30), pt(40, 50)];
t.ok(JSON.stringify(coverage(points, 0, 100e3)) === JSON.stringify([[0, 30e3], [40e3, 50e3]]), 'coverage merges touching reports and keeps a gap');
t.ok(JSON.stringify(coverage(points, 5e3, 45e3)) === JSON.stringify([[5e3, 30e3], [40e3, 45e3]]), 'coverage is clipped to the range');

// the same load seen by three reports, its exit after its last sighting; a second load without enable_seq
const scheds = [
  { ops: 'a', enable_seq: 3, first_ms: 5 * S, last_ms: 9 * S },
  { ops: 'a', enable_seq: 3, first_ms: 10 * S, last_ms: 19 * S },
  { ops: 'a', enable_seq: 3, first_ms: 20 * S, last_ms: 21 * S },
  { ops: 'b', first_ms: 42 * S, last_ms: 44 * S },
  { ops: 'b', first_ms: 46 * S, last_ms: 47 * S },
];
const exits = [{ ops: 'a', t_ms: 22 * S, kind: 'error_stall', reason: 'runnable task stall' }];
const loads = schedulerLoads(scheds, exits);
t.ok(loads.length === 2 && loads[0].start === 5 * S && loads[0].end === 22 * S && loads[0].exit === exits[0],
  `one load per enable_seq, ended by its exit (${loads.map((l) => `${l.name}:${l.start / S}-${l.end / S}`).join(' ')})`);
const tl = timeline({ points, schedulers: scheds, exits }, 0, 100e3);
t.ok(spans(tl) === `${FAIR}:0-5 a:5-22 ${FAIR}:22-30 ${FAIR}:40-42 b:42-47 ${FAIR}:47-50`,
  `EEVDF fills what reports cover around the loads; sightings without enable_seq and no exit between are one load (${spans(tl)})`);
const bExit = [...exits, { ops: 'b', t_ms: 45 * S, kind: 'unreg', reason: '' }];
t.ok(spans(timeline({ points, schedulers: scheds, exits: bExit }, 40e3, 50e3)) === `${FAIR}:40-42 b:42-45 ${FAIR}:45-46 b:46-47 ${FAIR}:47-50`,
  'an exit in between makes them two loads');
const clipped = timeline({ points, schedulers: scheds, exits }, 8e3, 25e3);
t.ok(spans(clipped) === `a:8-22 ${FAIR}:22-25`, `a load across the range start is clipped to it (${spans(clipped)})`);
t.ok(timeline({ points: [], schedulers: [], exits: [] }, 0, 1e5).length === 0, 'no report: an empty timeline');
t.ok(spans(timeline({ points, schedulers: [], exits: [] }, 0, 100e3)) === `${FAIR}:0-30 ${FAIR}:40-50`, 'no scheduler: EEVDF over what is covered');

t.ok(exitKind('error_stall').ejected && exitKind('error_bpf').ejected && exitKind('sysrq').ejected, 'errors, the watchdog and SysRq-S are ejections');
t.ok(!exitKind('unreg').ejected && !exitKind('done').ejected && !exitKind('unreg_bpf').ejected, 'unloads are not');
t.ok(exitKind('unreg_kern').ejected, 'the kernel unregistering a scheduler is one');
t.ok(!exitKind('unknown').ejected && /something_new/.test(exitKind('something_new').text), 'unknown kinds are not counted as ejections (as the server counts) and are shown by name');

// counters: 12 events over a 4 s interval is 3/s
const ev = eventSeries([pt(0, 4, { events: { x: 12, y: 0, bypass_duration: 4e9 }, nr_rejected: 2 }), pt(4, 6, { events: { x: 1 } })]);
const x = ev.find((s) => s.name === 'x');
t.ok(x.total === 13 && x.points[0].y === 3 && x.points[1].y === 0.5 && x.points[0].x === 4 * S, `rates per interval at its end (${JSON.stringify(x.points)})`);
t.ok(ev[0].name === 'x' && ev.find((s) => s.name === 'nr_rejected').total === 2 && ev.at(-2).name === 'y', `busiest first, nr_rejected counted (${ev.map((s) => s.name)})`);
t.ok(ev.at(-1).name === 'bypass_duration' && ev.at(-1).duration && !x.duration && ev.at(-1).points[0].y === 1e9, 'a *_duration counter is time: last, and in ns per second');

// L3: 25 ms of 100 ms is 25%, an interval without wait has no share
const l3 = l3Series([pt(0, 10, { l3: [{ cpus: [0, 1], wait_ns: 100e6, waits: 10, idle_sibling_wait_ns: 25e6, idle_sibling_waits: 2 }] }),
  pt(10, 20, { l3: [{ cpus: [0, 1], wait_ns: 0, waits: 0, idle_sibling_wait_ns: 0, idle_sibling_waits: 0 }] })]);
t.ok(l3.length === 1 && l3[0].points[0].y === 25 && l3[0].points[1].y === null && l3[0].share === 25, `idle-sibling share per interval and over the range (${JSON.stringify(l3[0].points)})`);

// agent: 10 ms of CPU in 10 s is 0.1% of a core; 5 ms of BPF in 10 s is 500 µs/s
const ag = agentSeries([pt(0, 10, { agent: { cpu_ns: 10e6, rss_bytes: 5e6, bpf_run_time_ns: 5e6, bpf_run_cnt: 1000 } }), pt(10, 20, {})]);
t.ok(ag && ag.cpu[0].y === 0.1 && ag.mean.cpu === 0.1 && ag.bpfNs[0].y === 5e5 && ag.bpfRuns[0].y === 100 && ag.lastRss === 5e6, `agent figures per interval (${JSON.stringify(ag && ag.mean)})`);
t.ok(agentSeries([pt(0, 10)]) === null, 'no agent figures: null');
// a point of the server's step buckets: three reports summed over 0-31 s (one 1 s late);
// rates are the sums over the point's own span, the memory its latest report's
const wide = [pt(0, 31, { reports: 3, events: { x: 62 }, agent: { cpu_ns: 31e6, rss_bytes: 7e6, bpf_run_time_ns: 62e6, bpf_run_cnt: 310 } }),
  pt(31, 41, { reports: 1, agent: { cpu_ns: 0, rss_bytes: 6e6 } })];
const wa = agentSeries(wide), we = eventSeries(wide);
t.ok(we[0].points[0].y === 2 && we[0].points[0].x === 31 * S && we[0].total === 62, `a wide point's event rate is its sum over its span (${JSON.stringify(we[0].points)})`);
t.ok(wa.cpu[0].y === 0.1 && wa.cpu[1].y === 0 && Math.abs(wa.mean.cpu - 31e6 * 100 / 41e9) < 1e-12 && wa.bpfNs[0].y === 2e6 && wa.bpfRuns[0].y === 10 && wa.lastRss === 6e6,
  `wide points: CPU and BPF per second of each point, the mean over all points' spans, the latest memory (${JSON.stringify(wa.mean)})`);
t.ok(pct3(0.0123456) === '0.0123%' && pct3(0) === '0%' && perSec(1234.5) === '1,235/s' && perSec(0.05) === '0.05/s', 'formats');
t.done();
