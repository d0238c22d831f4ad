// test_dashboard_health.mjs - the dashboard's sched_ext health parts (issue
// 17) against a real server fed over HTTP with reports carrying the new
// fields: on the host page the scheduler timeline (scx_simple, then `broken`
// ejected by the watchdog, EEVDF before, between and after, each at the
// posted times), the exits listed with kind, reason and message, the event
// counters with the posted totals, each L3 domain's idle-sibling share with
// its runqueue latency, and the agent's CPU, memory and per-program BPF cost;
// a host whose agent predates the fields says so instead of drawing empty
// charts; the fleet page flags the ejected host (with the reason, linking to
// its host page) and lists each agent's cost against the budgets. No console
// error or failed request; screenshots in light and dark.
//
// SCHEDIO_HEALTH_REPORT=path (or tests/web/fixtures/report_health_vm.json when
// present): a real agent report from the sid VM (a scheduler ejected by the
// watchdog), its times moved to the last minutes, is posted too, and its
// ejection must show on its host page.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { startServer, postReport } from './fixture.mjs';
import { healthHost, healthReport, healthTruth, healthStory, STEP, REPORTS, STALL, UNLOAD, PROGRAMS } from './health_reports.mjs';
import { launch, watch, open, charts, states, screenshot, checker, SHOTS } from './browser.mjs';
import * as fmt from '../../web/js/format.js';

const t = checker();
const CROWD = 21;
const here = path.dirname(fileURLToPath(import.meta.url));

// A real agent report, if one is given (or shipped as a fixture).
function vmReport() {
  const file = process.env.SCHEDIO_HEALTH_REPORT || path.join(here, 'fixtures', 'report_health_vm.json');
  if (!fs.existsSync(file)) {
    if (process.env.SCHEDIO_HEALTH_REPORT) throw new Error(`SCHEDIO_HEALTH_REPORT=${file} does not exist`);
    console.log('# no real VM report (SCHEDIO_HEALTH_REPORT unset, no fixtures/report_health_vm.json): synthetic reports only');
    return null;
  }
  let buf = fs.readFileSync(file);
  if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
  const rep = JSON.parse(buf.toString('utf8'));
  // moved to end a minute ago, every time in it by the same amount: the
  // server keeps raw reports 48 h, and the fixture's times are fixed
  const delta = Date.now() - 60e3 - rep.interval.end_ms;
  shiftTimes(rep, delta);
  console.log(`# real VM report: ${file} (times moved by ${(delta / 3600e3).toFixed(1)} h)`);
  return rep;
}

function shiftTimes(v, delta) {
  if (Array.isArray(v)) for (const x of v) shiftTimes(x, delta);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (/_ms$/.test(k) && typeof x === 'number' && x > 1e12) v[k] = x + delta;
      else shiftTimes(x, delta);
    }
}

// The percentage as the page writes it (three significant digits).
const pct3 = (v) => (v === 0 ? '0%' : `${Number(v.toPrecision(3))}%`);
const settled = (page) => page.waitForFunction(() => !document.querySelector('.state-loading'));

async function waitFor(what, pred, timeoutMs = 60000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    if (await pred()) return;
  throw new Error(`timed out waiting for ${what}`);
}

const getJson = async (url) => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return res.json();
};

// The datasets of the chart in a container: label -> [{x, y}] (gap points dropped).
const chartData = (page, sel) => page.evaluate((s) => {
  const c = document.querySelector(`${s} canvas`);
  const chart = c && window.Chart.getChart(c);
  if (!chart) return null;
  return Object.fromEntries(chart.data.datasets.map((d) => [d.label, d.data.filter((p) => p.y !== null).map((p) => ({ x: p.x, y: p.y }))]));
}, sel);

const rowsOf = (page, sel) => page.locator(`${sel} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));

const srv = await startServer({ submitToken: false });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  const now = Date.now() - 5000;
  const end0 = now - (REPORTS - 1) * STEP;
  const ejected = healthHost(0, 'ejected-1'), calm = healthHost(1, 'calm-1'), old = healthHost(2, 'legacy-1');
  const posted = { [ejected.id]: [], [calm.id]: [], [old.id]: [] };
  for (let k = 0; k < REPORTS; k++) {
    const end = end0 + k * STEP;
    for (const [h, opts] of [[ejected, { ejected: true }], [calm, {}], [old, { legacy: true }]]) {
      const rep = healthReport(h, k, end, opts);
      await postReport(srv.url, rep);
      posted[h.id].push(rep);
    }
  }
  // a crowd of hosts each ejected once, earlier: the fleet list names 20 hosts and counts the rest
  const crowd = Array.from({ length: CROWD }, (_, i) => healthHost(10 + i, `crowd-${String(i).padStart(2, '0')}`));
  for (const [i, h] of crowd.entries()) {
    const rep = healthReport(h, 0, end0 - i * 1000, { legacy: true });
    rep.sched_ext = { state: 'disabled', ops: null, exits: [{ ops: 'scx_crowd', t_ms: end0 - i * 1000 - 30e3, kind: 'error_bpf', reason: `crowd reason ${i}`, message: '' }] };
    await postReport(srv.url, rep);
  }
  const vm = vmReport();
  if (vm) await postReport(srv.url, vm);
  const truth = healthTruth(posted[ejected.id]);
  const story = healthStory(end0);
  // the server may roll reports up in the background: wait until it answers with all of them
  const range = `from=${now - 3600e3}&to=${now + 60e3}`;
  await waitFor('the health points', async () => (await getJson(`${srv.url}/api/v1/hosts/${ejected.id}/health?${range}`)).points.length === REPORTS);
  await waitFor('the L3 domains\' runqueue latency', async () => {
    const r = await getJson(`${srv.url}/api/v1/hosts/${ejected.id}/runqlat?${range}&cpu=2,3`);
    return (r.series || []).reduce((n, p) => n + (p.count || 0), 0) > 0;
  });

  const page = await browser.ctx.newPage();
  const w = watch(page);

  // -- the host page of the ejected host
  await open(page, `${srv.url}/host?id=${ejected.id}&range=1h`);
  await settled(page);
  const tl = await chartData(page, '#health-timeline');
  t.ok(tl !== null, 'the scheduler timeline is drawn');
  const span = (label) => (tl && tl[label] ? [Math.min(...tl[label].map((p) => p.x)), Math.max(...tl[label].map((p) => p.x))] : null);
  const near = (a, b) => a && b && Math.abs(a[0] - b[0]) <= 1 && Math.abs(a[1] - b[1]) <= 1;
  t.ok(near(span('scx_simple'), story.scx_simple), `scx_simple runs from its first sighting to its unload (${span('scx_simple')} want ${story.scx_simple})`);
  t.ok(near(span('broken'), story.broken), `broken runs from its load to its ejection (${span('broken')} want ${story.broken})`);
  const fair = tl && tl['EEVDF (fair)'];
  t.ok(fair && near(span('EEVDF (fair)'), story.covered) && fair.length === 6,
    `EEVDF fills the rest: before, between and after (${fair && fair.length / 2} stretches over ${span('EEVDF (fair)')} want 3 over ${story.covered})`);
  t.ok(tl && tl.ejection && tl.ejection.length === 1 && tl.ejection[0].x === story.broken[1], `the ejection is marked at its time (${JSON.stringify(tl && tl.ejection)})`);
  t.ok(tl && tl.unload && tl.unload.length === 1 && tl.unload[0].x === story.scx_simple[1], 'the unload is marked at its time');
  const exits = await rowsOf(page, '#health-exits');
  t.ok(exits.length === 2, `two exits listed (${exits.length})`);
  const stall = exits.find((r) => r[1] === STALL.ops) || [];
  t.ok(stall[0] === fmt.dateTime(story.broken[1]) && /ejected/.test(stall[2]) && stall[2].includes(STALL.kind) && /watchdog/.test(stall[2]),
    `the ejection's time, kind and what it means are listed (${stall.slice(0, 3).join(' | ')})`);
  t.ok(stall[3] === STALL.reason && stall[4] === STALL.message, `the kernel's reason and message are readable (${stall[3]} | ${stall[4]})`);
  const unl = exits.find((r) => r[1] === UNLOAD.ops) || [];
  t.ok(/unloaded/.test(unl[2] || '') && unl[3] === UNLOAD.reason, `the unload is listed as an orderly one (${unl.join(' | ')})`);
  t.ok(await page.locator('#health-exits tr.ejected').count() === 1, 'only the ejection is marked as one');

  // event counters: totals as posted, the busy ones drawn as rates
  const ev = Object.fromEntries((await rowsOf(page, '#health-events-table')).map((r) => [r[0], r[1]]));
  // a *_duration counter is time (ns), the others counts
  const wantEv = Object.fromEntries([...truth.events].map(([n, v]) => [n, n.endsWith('_duration') ? fmt.ns(v) : fmt.count(v)]));
  t.ok(JSON.stringify(Object.keys(ev).sort()) === JSON.stringify(Object.keys(wantEv).sort()) && Object.entries(wantEv).every(([n, v]) => ev[n] === v),
    `each event counter's total over the range (${JSON.stringify(ev)} want ${JSON.stringify(wantEv)})`);
  const evc = await chartData(page, '#health-events');
  const fb = evc && evc.select_cpu_fallback;
  const fbRep = posted[ejected.id][6];
  const fbWant = fbRep.sched_ext.events.select_cpu_fallback / (STEP / 1000);
  const fbAt = fb && fb.find((p) => p.x === fbRep.interval.end_ms);
  t.ok(fbAt && Math.abs(fbAt.y - fbWant) < 1e-9, `select_cpu_fallback is drawn as a rate per interval (${fbAt && fbAt.y}/s want ${fbWant}/s)`);
  t.ok(evc && !('dispatch_local_dsq_offline' in evc), 'a counter that stayed at zero is listed but not drawn');
  const byp = evc && evc['bypass_duration (time)'];
  t.ok(byp && byp.length === 4 && Math.max(...byp.map((p) => p.y)) === 250e6 / (STEP / 1000) && ev.bypass_duration === '250 ms',
    `bypass time is drawn as ns per second on its own axis and totalled as time (${ev.bypass_duration}, peak ${byp && Math.max(...byp.map((p) => p.y))} ns/s)`);

  // work conservation per L3 domain, next to its runqueue latency
  const l3 = await rowsOf(page, '#health-l3-table');
  for (const d of truth.l3) {
    const row = l3.find((r) => r[0] === d.key) || [];
    t.ok(row[1] === pct3((100 * d.idle) / d.wait) && row[2] === fmt.ns(d.idle) && row[3] === fmt.ns(d.wait) && row[4] === fmt.count(d.idleWaits) && row[5] === fmt.count(d.waits),
      `L3 ${d.key}: idle-sibling share ${row[1]} of ${row[3]} (want ${pct3((100 * d.idle) / d.wait)} of ${fmt.ns(d.wait)})`);
  }
  const l3b = await chartData(page, '#health-l3 figure[data-l3="2,3"]');
  t.ok(l3b && l3b['idle-sibling share of wait'].length === REPORTS && Math.max(...l3b['idle-sibling share of wait'].map((p) => p.y)) === 50,
    `L3 2,3's share is drawn per interval, 50% while the scheduler left a CPU idle (max ${l3b && Math.max(...l3b['idle-sibling share of wait'].map((p) => p.y))})`);
  t.ok(l3b && l3b['runqueue p99'].length > 0 && l3b['runqueue p50'].length > 0, `the domain's runqueue latency is drawn next to it (${l3b && l3b['runqueue p99'].length} points)`);
  const firstPanel = await page.locator('#health-l3 figure').first().getAttribute('data-l3');
  t.ok(firstPanel === '2,3', `the domain with the larger share comes first (${firstPanel})`);

  // the agent's own cost
  const facts = await page.locator('#health-agent-facts dd').allTextContents();
  const wantCpu = `${pct3(100 * truth.cpuShare)} of a core`;
  t.ok(facts[0] === wantCpu, `agent CPU over the range (${facts[0]} want ${wantCpu})`);
  t.ok(facts[1] === fmt.bytes(truth.lastRss), `agent memory, the latest (${facts[1]} want ${fmt.bytes(truth.lastRss)})`);
  t.ok(facts[2].startsWith(`${fmt.ns(truth.bpfNsPerSec)}/s`), `BPF run time per second (${facts[2]} want ${fmt.ns(truth.bpfNsPerSec)}/s)`);
  const progs = await rowsOf(page, '#health-bpf-table');
  t.ok(progs.length === PROGRAMS.length && progs.every((r) => {
    const p = truth.progs.get(r[0]);
    return p && r[1] === fmt.count(p.run_cnt) && r[2] === fmt.ns(p.run_time_ns) && r[3] === fmt.ns(p.run_time_ns / p.run_cnt);
  }), `per-program runs, run time and time per run summed over the range (${JSON.stringify(progs)})`);
  const cpu = await chartData(page, '#health-agent figure:nth-child(1)');
  t.ok(cpu && cpu['agent CPU'].length === REPORTS && Math.abs(cpu['agent CPU'][0].y - 100 * posted[ejected.id][0].agent.cpu_ns / (STEP * 1e6)) < 1e-9,
    `agent CPU drawn per interval as a share of a core (${cpu && cpu['agent CPU'][0].y}%)`);

  const cs = await charts(page);
  const healthCharts = await page.locator('#health canvas').count();
  const bad = cs.filter((c) => !c.chart || c.points === 0 || c.share < 0.005);
  t.ok(healthCharts === 1 + 1 + 2 + 3, `the health section draws the timeline, events, two L3 panels and three agent charts (${healthCharts})`);
  t.ok(bad.length === 0, `every chart has data and paint ${JSON.stringify(bad)}`);
  const labels = await page.locator('#health canvas').evaluateAll((c) => c.map((x) => x.getAttribute('aria-label')));
  t.ok(labels.every((l) => l && l.length > 10) && await page.locator('#health canvas[role="img"]').count() === healthCharts, 'every health chart has role=img and a label');
  await screenshot(page, 'host-health-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(50);
  t.ok((await charts(page)).every((c) => c.share >= 0.005), 'charts still drawn in dark mode');
  await screenshot(page, 'host-health-dark');
  await page.locator('#health').screenshot({ path: path.join(SHOTS, 'host-health-section-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.locator('#health').screenshot({ path: path.join(SHOTS, 'host-health-section-light.png') });

  // 24 hours: the server's default step is 10 min, so a point sums several
  // reports; the page draws each point's sum over its own span (worked out
  // here from the posted reports, bucketed as the API says)
  await open(page, `${srv.url}/host?id=${ejected.id}&range=24h`);
  await settled(page);
  const DAY_STEP = 600e3;
  const groups = new Map();
  for (const r of posted[ejected.id]) {
    const k = Math.floor(r.interval.start_ms / DAY_STEP);
    const g = groups.get(k) || { start: Infinity, end: -Infinity, cpu: 0, n: 0 };
    Object.assign(g, { start: Math.min(g.start, r.interval.start_ms), end: Math.max(g.end, r.interval.end_ms), cpu: g.cpu + r.agent.cpu_ns, n: g.n + 1 });
    groups.set(k, g);
  }
  const wantDay = [...groups.keys()].sort((a, b) => a - b).map((k) => groups.get(k))
    .map((g) => ({ x: g.end, y: (100 * g.cpu) / ((g.end - g.start) * 1e6), n: g.n }));
  const dayCpu = await chartData(page, '#health-agent figure:nth-child(1)');
  const gotDay = dayCpu && dayCpu['agent CPU'];
  t.ok(wantDay.some((g) => g.n > 1) && gotDay && gotDay.length === wantDay.length &&
    gotDay.every((p, i) => p.x === wantDay[i].x && Math.abs(p.y - wantDay[i].y) <= 1e-9 * wantDay[i].y),
  `24 h: agent CPU drawn per 10-min point as its summed CPU over its span (${JSON.stringify(gotDay)} want ${JSON.stringify(wantDay)})`);
  const dayFacts = await page.locator('#health-agent-facts dd').allTextContents();
  t.ok(dayFacts[0] === wantCpu && dayFacts[1] === fmt.bytes(truth.lastRss), `24 h: the same mean CPU and latest memory (${dayFacts.slice(0, 2)})`);
  const dayEv = Object.fromEntries((await rowsOf(page, '#health-events-table')).map((r) => [r[0], r[1]]));
  t.ok(Object.entries(wantEv).every(([n, v]) => dayEv[n] === v), `24 h: the same event totals (${JSON.stringify(dayEv)})`);

  // a host that ran EEVDF throughout: said plainly, no ejection
  await open(page, `${srv.url}/host?id=${calm.id}&range=1h`);
  await settled(page);
  const calmText = await page.locator('#health-timeline').textContent();
  t.ok(/No sched_ext scheduler ran in this range/.test(calmText) && /No sched_ext scheduler exited/.test(calmText), `a host without sched_ext says so (${calmText.slice(0, 120)})`);
  t.ok(/No sched_ext event counters/.test(await page.locator('#health-events').textContent()), 'no event counters: said plainly');

  // an agent older than the fields: every part says there is nothing, no empty chart
  await open(page, `${srv.url}/host?id=${old.id}&range=1h`);
  await settled(page);
  t.ok(/No sched_ext event counters/.test(await page.locator('#health-events').textContent()), 'legacy agent: no event counters, said plainly');
  t.ok(/No work-conservation figures/.test(await page.locator('#health-l3').textContent()), 'legacy agent: no work-conservation figures, said plainly');
  t.ok(/reported no figures of its own cost/.test(await page.locator('#health-agent').textContent()), 'legacy agent: no cost figures, said plainly');
  t.ok(await page.locator('#health-events canvas, #health-l3 canvas, #health-agent canvas').count() === 0, 'legacy agent: no empty chart is drawn');

  // -- the fleet page: the ejected host is flagged, each agent's cost against the budgets
  const fleetApi = await getJson(`${srv.url}/api/v1/fleet/health?${range}`);
  await open(page, `${srv.url}/?range=1h`);
  await settled(page);
  const items = await page.locator('#fleet-ejections li').evaluateAll((lis) => lis.map((li) => ({ host: li.dataset.host, text: li.textContent, href: li.querySelector('a').getAttribute('href') })));
  const mine = items.find((x) => x.host === ejected.id);
  t.ok(mine && mine.text.includes(STALL.reason) && mine.text.includes(STALL.kind) && mine.text.includes(STALL.ops) && /1 ejection/.test(mine.text),
    `the ejected host is flagged with the reason (${mine && mine.text})`);
  t.ok(!items.some((x) => x.host === calm.id || x.host === old.id), 'hosts without an ejection are not flagged');
  const ejectText = await page.locator('#fleet-health-ejections').textContent();
  // the VM report, when recent, is one more ejected host
  const nEjected = CROWD + 1 + (vm && vm.interval.end_ms > now - 3600e3 ? 1 : 0);
  t.ok(items.length === 20 && items.some((x) => x.host === ejected.id) && !items.some((x) => x.host === crowd.at(-1).id) &&
    ejectText.includes(`${nEjected} hosts had a scheduler ejected`) && ejectText.includes(`${nEjected - 20} more not listed`),
    `the list names the 20 latest of ${nEjected} ejected hosts and counts the rest (${items.length} listed: ${items.map((x) => x.host).join(' ')})`);
  await page.fill('#host-filter', crowd.at(-1).id);
  t.ok(await page.locator('table.data tbody tr', { hasText: crowd.at(-1).hostname }).locator('.badge.err').count() === 1, 'the hosts table marks an ejected host the list leaves out');
  await page.fill('#host-filter', '');
  const badge = page.locator('table.data tbody tr', { hasText: ejected.hostname }).locator('.badge.err');
  t.ok(await badge.count() === 1 && /ejected/.test(await badge.textContent()), 'the hosts table marks the ejected host next to its scheduler');
  t.ok(await page.locator('table.data tbody tr', { hasText: calm.hostname }).locator('.badge.err').count() === 0, 'and not the others');
  const cost = await rowsOf(page, '#fleet-agent-cost');
  const apiHost = (id) => fleetApi.hosts.find((x) => x.host_id === id) || {};
  const ej = cost.find((r) => r[0] === ejected.hostname) || [];
  const ejApi = apiHost(ejected.id);
  t.ok(ej[1] && ej[1].startsWith(pct3(100 * ejApi.agent_cpu_share)) && ej[2].startsWith(fmt.bytes(ejApi.agent_rss_bytes)),
    `the fleet table shows the host's agent CPU and memory (${ej.slice(0, 3).join(' | ')})`);
  // independent truth: the agent's CPU over the reports' wall time, and over the whole range at least
  const share = ejApi.agent_cpu_share;
  t.ok(share > 0 && share <= truth.cpuShare * 1.0001 && share >= truth.cpuShare * (REPORTS * STEP) / (3600e3 + 60e3) * 0.9999,
    `the server's agent CPU share ${share} lies between the posted CPU over the range and over the reports (${truth.cpuShare})`);
  t.ok(ejApi.agent_rss_bytes === truth.lastRss, `the server's agent memory is the latest (${ejApi.agent_rss_bytes} want ${truth.lastRss})`);
  const budgets = fleetApi.budgets || {};
  t.ok(budgets.agent_cpu_share > 0 && budgets.agent_rss_bytes > 0, `the server returns budgets (${JSON.stringify(budgets)})`);
  t.ok(/within/.test(ej[1] || '') && /within/.test(ej[2] || ''), `0.01% of a core and 9 MB are within the budgets (${ej[1]} | ${ej[2]})`);
  t.ok(!cost.some((r) => r[0] === old.hostname), 'a host whose agent reports no cost is not in the cost table');
  const totals = await page.locator('#fleet-agent-totals').textContent();
  t.ok(totals.includes(`${Number(fleetApi.totals.agent_cpu_cores.toPrecision(3))} cores in total`) && totals.includes(`${fmt.bytes(fleetApi.totals.agent_rss_bytes)} in total`),
    `the fleet-wide totals are shown (${totals})`);
  const sumRss = posted[ejected.id].at(-1).agent.rss_bytes + posted[calm.id].at(-1).agent.rss_bytes;
  t.ok(fleetApi.totals.agent_rss_bytes >= sumRss, `the fleet's total memory covers both agents (${fleetApi.totals.agent_rss_bytes} >= ${sumRss})`);
  await screenshot(page, 'fleet-health-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(50);
  await screenshot(page, 'fleet-health-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // the link leads to the host page
  await page.click(`#fleet-ejections li[data-host="${ejected.id}"] a`);
  await page.waitForFunction(() => location.pathname === '/host' && document.documentElement.dataset.state === 'ready');
  t.ok(new URL(page.url()).searchParams.get('id') === ejected.id, 'the flagged host links to its host page');

  // -- the real VM report: its ejection shows on its host page
  if (vm) {
    const vexits = (vm.sched_ext && vm.sched_ext.exits) || [];
    const vej = vexits.filter((e) => /^(error|error_bpf|error_stall|sysrq|unreg_kern)$/.test(e.kind || ''));
    t.ok(vej.length > 0, `the VM report carries an ejection (${JSON.stringify(vexits).slice(0, 300)})`);
    const from = vm.interval.start_ms - 60e3, to = vm.interval.end_ms + 60e3;
    await open(page, `${srv.url}/host?id=${encodeURIComponent(vm.host.id)}&from=${from}&to=${to}`);
    await settled(page);
    const vrows = await rowsOf(page, '#health-exits');
    for (const e of vej) {
      const row = vrows.find((r) => r[1] === e.ops && r[0] === fmt.dateTime(e.t_ms)) || [];
      t.ok(row.length && row[2].includes(e.kind) && row[3] === (e.reason || '–'), `VM report: ${e.ops}'s ${e.kind} is listed with the kernel's reason (${row.join(' | ')})`);
    }
    const vtl = await chartData(page, '#health-timeline');
    t.ok(vtl && vtl.ejection && vtl.ejection.length === vej.length, `VM report: the ejection is marked on the timeline (${vtl && JSON.stringify(vtl.ejection)})`);
    const names = (vm.sched_ext.schedulers || []).map((s) => s.ops);
    t.ok(names.every((n) => vtl && vtl[n]), `VM report: every scheduler it names is on the timeline (${names})`);
    await screenshot(page, 'host-health-vm-light');
  }

  const st = await states(page);
  t.ok(st.errors.length === 0 && st.loading === 0, `no error or loading state left ${st.errors.join(' | ')}`);
  t.ok(w.problems.length === 0, `no console errors or failed requests ${w.problems.join(' | ')}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();
