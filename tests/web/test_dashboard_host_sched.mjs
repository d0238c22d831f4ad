// test_dashboard_host_sched.mjs - the host page's scheduler choice (issue 9)
// against a real server: a host that switched from EEVDF to scx_fifo (one
// interval split between both by runqlat.by_scheduler) offers All/eevdf/
// scx_fifo for the whole host; choosing scx_fifo asks the server with
// sched=scx_fifo, keeps the choice in the URL and redraws the heatmap with
// that scheduler's samples only; under All a table compares both with the
// right counts and percentiles; the choice is off (with a hint) for a cgroup;
// a host that ran one scheduler shows no choice at all. No console error or
// failed request throughout; screenshots in light and dark.
import { startServer, postReport } from './fixture.mjs';
import { fleetHost, report, histogram, LAYOUT } from './reports.mjs';
import { launch, watch, open, charts, states, screenshot, checker } from './browser.mjs';
import { mergePoints } from '../../web/js/hist.js';
import * as fmt from '../../web/js/format.js';

const t = checker();
const STEP = 120e3;
const REPORTS = 20;
// EEVDF's samples around 2^12 ns (4 µs), scx_fifo's around 2^16 ns (65 µs):
// a sample in the wrong group moves that group's percentiles out of its range
const EEVDF_MU = 12, FIFO_MU = 16;

// the test's own merge, independent of the page's sumPoints: what it expects
function merge(...parts) {
  const buckets = new Map();
  for (const p of parts) for (const [i, n] of p.buckets) buckets.set(i, (buckets.get(i) || 0) + n);
  return {
    count: parts.reduce((s, p) => s + p.count, 0),
    sum_ns: parts.reduce((s, p) => s + p.sum_ns, 0),
    max_ns: Math.max(...parts.map((p) => p.max_ns)),
    buckets: [...buckets.entries()].sort((a, b) => a[0] - b[0]),
  };
}

const hist = (p) => ({ count: p.count, sum_ns: p.sum_ns, max_ns: p.max_ns, buckets: p.buckets });

// A report whose CPU 0 ran parts[0] and CPU 1 parts[1]; split: [[ops, part], ...] as runqlat.by_scheduler.
function schedReport(h, seq, end, sched, parts, split) {
  const r = report(h, seq, end - STEP, end);
  r.sched_ext = sched ? { state: 'enabled', ops: sched } : { state: 'disabled', ops: null };
  r.runqlat.cgroups = [{ path: '/', ...hist(merge(...parts)) }];
  r.runqlat.cpus = parts.map((p, cpu) => ({ cpu, ...hist(p) }));
  if (split) r.runqlat.by_scheduler = split.map(([ops, p]) => ({ ops, ...hist(p) }));
  return r;
}

// switched: EEVDF for the first half, scx_fifo loaded in the middle of one
// interval, scx_fifo after. Returns each scheduler's posted histograms.
async function postSwitched(url, h, now) {
  const parts = { eevdf: [], scx_fifo: [] };
  for (let k = 0; k < REPORTS; k++) {
    const end = now - (REPORTS - 1 - k) * STEP;
    const e = histogram(3000 + 100 * k, EEVDF_MU, 0.4), f = histogram(2000 + 50 * k, FIFO_MU, 0.4);
    let rep;
    if (k < REPORTS / 2) {
      const e2 = histogram(1000 + 10 * k, EEVDF_MU + 0.3, 0.4);
      rep = schedReport(h, k + 1, end, null, [e, e2], [[null, merge(e, e2)]]);
      parts.eevdf.push(e, e2);
    } else if (k === REPORTS / 2) {
      rep = schedReport(h, k + 1, end, 'scx_fifo', [e, f], [[null, e], ['scx_fifo', f]]);
      parts.eevdf.push(e);
      parts.scx_fifo.push(f);
    } else {
      // an agent without the split: the whole interval counts under its scheduler
      rep = schedReport(h, k + 1, end, 'scx_fifo', [f, histogram(500, FIFO_MU + 0.2, 0.4)]);
      parts.scx_fifo.push(...rep.runqlat.cpus);
    }
    await postReport(url, rep);
  }
  return parts;
}

async function postSteady(url, h, now) {
  for (let k = 0; k < 5; k++) {
    const e = histogram(2000, EEVDF_MU, 0.4), e2 = histogram(1500, EEVDF_MU, 0.4);
    await postReport(url, schedReport(h, k + 1, now - (4 - k) * STEP, null, [e, e2], [[null, merge(e, e2)]]));
  }
}

// The heatmap's lowest and highest latency row (log2 ns) and its cell count.
const heatRows = (page) => page.evaluate(() => {
  const c = document.querySelector('#app canvas');
  const cells = window.Chart.getChart(c).data.datasets.find((d) => d.type === 'heatcells' || (d.data[0] && 'v' in d.data[0])).data;
  return { lo: Math.min(...cells.map((p) => p.y)), hi: Math.max(...cells.map((p) => p.y)), n: cells.length };
});

async function waitFor(pred, timeoutMs = 60000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    if (await pred()) return;
  throw new Error('timed out waiting for the server\'s rollup worker');
}

const settled = (page) => page.waitForFunction(() => !document.querySelector('.state-loading'));

const srv = await startServer({ submitToken: false });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  const now = Date.now() - 5000;
  const sw = { ...fleetHost(0, { cgroups: 1 }), id: 'switched-1', hostname: 'switched-1.example', kernel: '6.12.9-amd64', seed: 4242 };
  const one = { ...fleetHost(1, { cgroups: 1 }), id: 'steady-1', hostname: 'steady-1.example', kernel: '6.12.9-amd64', seed: 4343 };
  const parts = await postSwitched(srv.url, sw, now);
  await postSteady(srv.url, one, now);
  // reports posted after their minute went by are rolled up again by the
  // server's worker; the host's 24 h lists read the rolled-up rows
  await waitFor(async () => (await (await fetch(`${srv.url}/api/v1/hosts/${sw.id}`)).json()).schedulers.length === 2);
  const want = Object.fromEntries(Object.entries(parts).map(([k, ps]) => [k, mergePoints(ps, LAYOUT)]));

  const page = await browser.ctx.newPage();
  const w = watch(page);
  const asked = [];
  page.on('request', (r) => { if (r.url().includes('/runqlat')) asked.push(new URL(r.url())); });

  // All: the choice is offered, the table compares both schedulers
  await open(page, `${srv.url}/host?id=${sw.id}&range=1h`);
  const opts = await page.locator('#sched option').evaluateAll((os) => os.map((o) => `${o.value}=${o.textContent}`));
  t.ok(opts.join() === '=All,eevdf=eevdf,scx_fifo=scx_fifo', `the scheduler choice lists All, eevdf, scx_fifo (${opts})`);
  t.ok(await page.locator('#sched').isVisible() && await page.locator('#sched').isEnabled(), 'the scheduler choice is shown and enabled for the whole host');
  const cs = await charts(page);
  t.ok(cs.length > 0 && cs[0].points > 0 && cs[0].share > 0.005, `the whole host's heatmap is drawn (${JSON.stringify(cs[0])})`);
  const all = await heatRows(page);
  t.ok(all.lo < EEVDF_MU + 1 && all.hi > FIFO_MU - 1, `under All the heatmap spans both schedulers (rows ${all.lo}..${all.hi})`);
  const rows = await page.locator('#sched-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const expect = ['eevdf', 'scx_fifo'].map((k) => [k, fmt.count(want[k].count), fmt.ns(want[k].p50_ns), fmt.ns(want[k].p99_ns)]);
  t.ok(JSON.stringify(rows) === JSON.stringify(expect), `the per-scheduler table shows each one's samples, p50 and p99 (${JSON.stringify(rows)} want ${JSON.stringify(expect)})`);
  t.ok(want.eevdf.p99_ns < want.scx_fifo.p50_ns, 'the two schedulers lie in distinct latency ranges (the fixture can tell them apart)');
  await screenshot(page, 'host-sched-all-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(50);
  await screenshot(page, 'host-sched-all-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // one scheduler: asked with sched=, kept in the URL, drawn from its samples only
  asked.length = 0;
  await page.selectOption('#sched', 'scx_fifo');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('sched') === 'scx_fifo');
  await settled(page);
  t.ok(asked.some((u) => u.searchParams.get('sched') === 'scx_fifo' && !u.searchParams.has('cgroup')), `choosing scx_fifo asks with sched=scx_fifo (${asked.map((u) => u.search).join(' ')})`);
  const fifo = await heatRows(page);
  const csFifo = await charts(page);
  t.ok(csFifo[0].points > 0 && csFifo[0].share > 0.005, 'the heatmap is redrawn for scx_fifo');
  t.ok(fifo.lo > FIFO_MU - 2, `scx_fifo's heatmap holds only its own samples (rows ${fifo.lo}..${fifo.hi})`);
  t.ok(await page.locator('#sched-table').count() === 0 && await page.locator('.sched-compare').isHidden(), 'the comparison table is for All only');
  await screenshot(page, 'host-sched-fifo-light');

  // the URL brings the choice back (and the early request carries it)
  asked.length = 0;
  await open(page, page.url());
  t.ok(await page.inputValue('#sched') === 'scx_fifo', 'a reload keeps scx_fifo chosen');
  t.ok(asked.some((u) => u.searchParams.get('sched') === 'scx_fifo'), 'the reload asks for scx_fifo\'s samples');
  t.ok((await heatRows(page)).lo > FIFO_MU - 2, 'the reloaded heatmap is scx_fifo\'s');

  // keyboard: back to All, then a scheduler chosen from the table with Enter
  await page.selectOption('#sched', '');
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('sched') && document.querySelector('#sched-table'));
  await settled(page);
  await page.focus('#sched-table button[aria-label="Show only eevdf"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('sched') === 'eevdf');
  await settled(page);
  t.ok(await page.inputValue('#sched') === 'eevdf', 'Enter on a scheduler in the table chooses it');
  const ee = await heatRows(page);
  t.ok(ee.hi < FIFO_MU - 1, `eevdf's heatmap holds only its own samples (rows ${ee.lo}..${ee.hi})`);

  // a cgroup: its series is not split, so the choice is off and says why
  asked.length = 0;
  await page.selectOption('#scope', 'cg:/');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('scope') === 'cg:/');
  await settled(page);
  t.ok(await page.locator('#sched').isDisabled(), 'the scheduler choice is disabled for a cgroup');
  t.ok(await page.locator('#sched-hint').isVisible(), `a hint says why (${await page.locator('#sched-hint').textContent()})`);
  t.ok(asked.length > 0 && asked.every((u) => !u.searchParams.has('sched')), 'the cgroup heatmap is asked without sched');
  t.ok((await charts(page))[0].points > 0, 'the cgroup heatmap is drawn');
  await page.selectOption('#scope', 'host');
  await settled(page);
  t.ok(await page.locator('#sched').isEnabled() && await page.locator('#sched-hint').isHidden(), 'back on the whole host the choice is on again');

  // a host that ran one scheduler: no choice, no table
  await open(page, `${srv.url}/host?id=${one.id}&range=1h&sched=scx_fifo`);
  t.ok(await page.locator('#sched').isHidden(), 'a host with one scheduler shows no scheduler choice');
  t.ok(await page.locator('#sched-table').count() === 0, 'and no per-scheduler table');
  t.ok(!new URL(page.url()).searchParams.has('sched'), 'a scheduler it did not run is dropped from the URL');
  t.ok((await charts(page))[0].points > 0, 'its heatmap shows all its samples');
  await screenshot(page, 'host-sched-one-light');

  const st = await states(page);
  t.ok(st.errors.length === 0 && st.loading === 0, `no error or loading state left ${st.errors.join(' | ')}`);
  t.ok(w.problems.length === 0, `no console errors or failed requests ${w.problems.join(' | ')}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();
