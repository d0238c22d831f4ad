// test_dashboard_experiments.mjs - the Experiments page (issue 15) against a
// real server: two fleets posted through the real ingest, 6 hosts running
// scx_fifo around 2^16 ns and 6 running EEVDF around 2^12 ns (each host a
// little off its fleet's centre, labelled role=batch / role=web and rack=r0/r1).
// The page offers the schedulers and labels the fleet has; a comparison built
// in the form (scx_fifo against eevdf at p99) shows the verdict in words, the
// ratio with its interval drawn against the threshold band, both arms'
// percentile curves and each host's value, checked against the test's own
// merge of the posted histograms (not the page's or the server's code). The
// URL reproduces the comparison; labels as arms give the mirror verdict; the
// fleet page's scheduler split links to the page with that scheduler as arm
// A, and the fleet's host filter finds hosts by label (role=web). One
// experiment is saved with an admin token (a wrong token is refused in words)
// and listed with its verdict. A second one is deleted from the list after its
// confirmation (cancel keeps it, a token of another scope is refused in words,
// the admin token deletes it and only it), and one deleted behind the page's
// back answers 404 in words and leaves the list. No console error or failed
// request throughout; screenshots in light and dark.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startServer, postReport, BIN } from './fixture.mjs';
import { fleetHost, report, histogram, bucketLower, LAYOUT } from './reports.mjs';
import { launch, watch, open, charts, states, screenshot, checker } from './browser.mjs';
import * as fmt from '../../web/js/format.js';

const t = checker();
const STEP = 120e3;
const REPORTS = 8;
const PER_FLEET = 6;
const FIFO_MU = 16, EEVDF_MU = 12;
const BUCKETS = (LAYOUT.max_value_power - LAYOUT.grouping_power + 1) << LAYOUT.grouping_power;

// The test's own reading of a merged histogram: nearest rank, the bucket's
// middle (the documented rule), from bucket bounds of the shared layout.
function merge(parts) {
  const m = new Map();
  for (const p of parts) for (const [i, n] of p.buckets) m.set(i, (m.get(i) || 0) + n);
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}
function quantile(buckets, f) {
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  const rank = Math.max(1, Math.ceil(f * total));
  let seen = 0;
  for (const [i, n] of buckets) {
    seen += n;
    if (seen >= rank) {
      const lo = bucketLower(i);
      return i >= BUCKETS - 1 ? lo : lo + Math.floor((bucketLower(i + 1) - 1 - lo) / 2);
    }
  }
  return null;
}
const median = (v) => {
  const s = v.slice().sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ratioText = (v) => `${Number(v.toPrecision(3))}×`;
const hist = (p) => ({ count: p.count, sum_ns: p.sum_ns, max_ns: p.max_ns, buckets: p.buckets });

// A fleet of hosts under one scheduler; returns [{id, hostname, p99, samples}].
async function postFleet(url, kind, now) {
  const out = [];
  for (let k = 0; k < PER_FLEET; k++) {
    const fifo = kind === 'fifo';
    const h = { ...fleetHost(k, { cgroups: 1 }), id: `${kind}-${k}`, hostname: `${kind}-${k}.example`, kernel: '6.12.9-amd64', sched: fifo ? 'scx_fifo' : null, seed: (fifo ? 7000 : 8000) + k };
    const mu = (fifo ? FIFO_MU : EEVDF_MU) + 0.08 * k; // hosts differ from one another
    const parts = [];
    for (let j = 0; j < REPORTS; j++) {
      const end = now - (REPORTS - 1 - j) * STEP;
      const cpus = [histogram(2000 + 37 * j + 11 * k, mu, 0.45), histogram(1500 + 23 * j, mu + 0.1, 0.45)];
      const r = report(h, j + 1, end - STEP, end);
      r.host.labels = { role: fifo ? 'batch' : 'web', rack: `r${k % 2}` };
      r.runqlat.cpus = cpus.map((c, cpu) => ({ cpu, ...hist(c) }));
      const all = merge(cpus);
      r.runqlat.cgroups = [{ path: '/', count: cpus[0].count + cpus[1].count, sum_ns: cpus[0].sum_ns + cpus[1].sum_ns, max_ns: Math.max(cpus[0].max_ns, cpus[1].max_ns), buckets: all }];
      parts.push(...cpus);
      await postReport(url, r);
    }
    const buckets = merge(parts);
    out.push({ id: h.id, hostname: h.hostname, p99: quantile(buckets, 0.99), p50: quantile(buckets, 0.5), samples: buckets.reduce((s, [, n]) => s + n, 0) });
  }
  return out;
}

async function waitFor(pred, what, timeoutMs = 60000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    if (await pred()) return true;
  throw new Error(`timed out waiting for ${what}`);
}

const settled = (page) => page.waitForFunction(() => !document.querySelector('.state-loading'));

// The datasets of the chart on the canvas whose label starts with prefix.
const chartData = (page, prefix) => page.evaluate((pre) => {
  const c = [...document.querySelectorAll('canvas')].find((x) => (x.getAttribute('aria-label') || '').startsWith(pre));
  const ch = c && window.Chart.getChart(c);
  return ch ? ch.data.datasets.map((d) => ({ label: d.label, data: d.data.map((p) => ({ x: p.x, y: p.y })) })) : null;
}, prefix);

// Builds a comparison in the form and waits for its answer (the page's own request).
async function compareIn(page, a, b, metric = 'p99') {
  for (const [k, arm] of [['a', a], ['b', b]]) {
    await page.selectOption(`#${k}-sched`, arm.sched || '');
    await page.selectOption(`#${k}-label`, arm.label || '');
    await page.fill(`#${k}-rest`, '');
  }
  await page.selectOption('#metric', metric);
  const answered = page.waitForResponse((r) => r.url().includes('/api/v1/compare?'));
  await page.click('#compare');
  const res = await answered;
  await page.waitForSelector('#verdict-summary');
  await settled(page);
  return { url: new URL(res.url()), ans: await res.json() };
}

const srv = await startServer({ submitToken: false });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  const now = Date.now() - 5000;
  const fifo = await postFleet(srv.url, 'fifo', now);
  const eevdf = await postFleet(srv.url, 'eevdf', now);
  const truth = new Map([...fifo, ...eevdf].map((x) => [x.id, x]));
  const wantRatio = median(fifo.map((x) => x.p99)) / median(eevdf.map((x) => x.p99));
  // the server rolls up late reports in its worker: wait until every posted sample is in the comparison
  let last = null;
  await waitFor(async () => {
    const q = new URLSearchParams({ a: 'sched=scx_fifo', b: 'sched=eevdf', metric: 'p99', from: now - 3600e3, to: Date.now() });
    const ans = last = await (await fetch(`${srv.url}/api/v1/compare?${q}`)).json();
    return ans.a && ans.a.hosts === PER_FLEET && ans.b.hosts === PER_FLEET &&
      [...ans.a.per_host, ...ans.b.per_host].every((x) => truth.get(x.host_id) && x.samples === truth.get(x.host_id).samples);
  }, 'the server to hold every posted sample').catch((err) => { console.log(`# last answer: ${JSON.stringify(last).slice(0, 2000)}`); throw err; });
  const listed = await fetch(`${srv.url}/api/v1/experiments`);
  t.ok(listed.status === 200, `the server keeps saved experiments (GET /api/v1/experiments: HTTP ${listed.status})`);

  const page = await browser.ctx.newPage();
  // a wrong token is refused on purpose (and deleting one already gone answers 404 on purpose)
  const w = watch(page, (u, why) => u.includes('/api/v1/experiments') &&
    (/40[13]/.test(why) || (/\/api\/v1\/experiments\/\d+/.test(u) && /404/.test(why))));

  // the builder offers what the fleet has
  await open(page, `${srv.url}/experiments?range=1h&refresh=0`);
  const scheds = await page.locator('#a-sched option').evaluateAll((os) => os.map((o) => o.value));
  t.ok(scheds.includes('scx_fifo') && scheds.includes('eevdf') && scheds[0] === '', `arm A's schedulers are any, then the fleet's (${scheds})`);
  const labels = await page.locator('#b-label option').evaluateAll((os) => os.map((o) => o.value));
  t.ok(['rack=r0', 'rack=r1', 'role=batch', 'role=web'].every((l) => labels.includes(l)), `arm B's labels are the fleet's (${labels})`);
  t.ok(await page.locator('#experiment-result .state-empty').count() === 1, 'before a comparison the page says what to do');

  // scx_fifo against eevdf at p99: worse, the ratio far above the band
  const { url: asked, ans } = await compareIn(page, { sched: 'scx_fifo' }, { sched: 'eevdf' });
  t.ok(asked.searchParams.get('a') === 'sched=scx_fifo' && asked.searchParams.get('b') === 'sched=eevdf' && asked.searchParams.get('metric') === 'p99',
    `the page asks for sched=scx_fifo against sched=eevdf at p99 (${asked.search})`);
  const u = new URL(page.url()).searchParams;
  t.ok(u.get('a') === 'sched=scx_fifo' && u.get('b') === 'sched=eevdf', `the comparison is in the URL (${new URL(page.url()).search})`);
  const verdict = await page.locator('.verdict-line .badge.verdict').getAttribute('data-verdict');
  t.ok(ans.verdict === 'worse' && verdict === 'worse', `the verdict is worse (answer ${ans.verdict}, page ${verdict})`);
  t.ok(await page.locator('#verdict-summary').textContent() === ans.summary, `the verdict in words is the answer's summary ("${ans.summary}")`);
  const rel = Math.abs(ans.ratio / wantRatio - 1);
  t.ok(rel < 0.005, `the ratio is the median p99 of scx_fifo's hosts over eevdf's: ${ans.ratio} against the test's ${wantRatio.toFixed(3)} (off by ${(100 * rel).toFixed(3)}%)`);
  t.ok(await page.locator('#ratio').textContent() === ratioText(ans.ratio), `the ratio is shown (${await page.locator('#ratio').textContent()})`);
  t.ok(ans.ci && ans.ci[0] <= ans.ratio && ans.ratio <= ans.ci[1] && ans.ci[0] > 1 + ans.threshold, `the interval holds the ratio and lies above the band (${ans.ci})`);
  t.ok(await page.locator('#ci').textContent() === `${ratioText(ans.ci[0])} to ${ratioText(ans.ci[1])}`, 'the interval is shown');
  const ds = await chartData(page, 'Ratio of A');
  const find = (pre) => (ds || []).find((d) => d.label.startsWith(pre));
  t.ok(ds && find('ratio') && find('ratio').data[0].x === ans.ratio, 'the ratio is drawn at its value');
  t.ok(find('95% interval') && find('95% interval').data[0].x === ans.ci[0] && find('95% interval').data[1].x === ans.ci[1], 'the interval is drawn from low to high');
  const band = find('no-difference band');
  t.ok(band && Math.abs(band.data[0].x - 0.95) < 1e-12 && Math.abs(band.data[1].x - 1.05) < 1e-12, `the band is drawn at 1 ± threshold (${band && band.data.map((p) => p.x)})`);

  // each host's value per arm, as the test computes it from what it posted
  const rows = await page.locator('#experiment-result table.data tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  t.ok(rows.length === 2 * PER_FLEET, `the host table has every host of both arms (${rows.length})`);
  let tableOk = 0;
  for (const r of rows) {
    const x = [...truth.values()].find((y) => y.hostname === r[0]);
    if (!x) continue;
    const inA = x.id.startsWith('fifo');
    if (r[inA ? 1 : 3] === fmt.ns(x.p99) && r[inA ? 2 : 4] === fmt.count(x.samples) && r[inA ? 3 : 1] === '–') tableOk++;
    else console.log(`# host row ${JSON.stringify(r)} want p99 ${fmt.ns(x.p99)}, ${fmt.count(x.samples)} samples in arm ${inA ? 'A' : 'B'}`);
  }
  t.ok(tableOk === rows.length, `each host's p99 and samples are in its arm's columns (${tableOk} of ${rows.length} rows right)`);

  // the curves: each arm's own samples (scx_fifo's p50 above eevdf's p99.9 everywhere)
  const cs = await charts(page);
  const bad = cs.filter((c) => !c.chart || c.points === 0 || c.share < 0.005);
  t.ok(cs.length === 3 && bad.length === 0, `the ratio chart and both arms' curves are drawn (${cs.length} charts, ${JSON.stringify(bad)})`);
  const ca = await chartData(page, 'Arm A'), cb = await chartData(page, 'Arm B');
  const ys = (d, l) => (d.find((x) => x.label === l) || { data: [] }).data.map((p) => p.y);
  const aP50 = ys(ca, 'p50'), bP999 = ys(cb, 'p99.9');
  t.ok(aP50.length > 0 && bP999.length > 0 && Math.min(...aP50) > Math.max(...bP999), `arm A's curves hold scx_fifo's samples only, arm B's eevdf's (A p50 min ${fmt.ns(Math.min(...aP50))}, B p99.9 max ${fmt.ns(Math.max(...bP999))})`);
  await screenshot(page, 'experiments-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(50);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  t.ok(bg !== 'rgb(246, 247, 249)', `dark mode switches the page (${bg})`);
  t.ok((await charts(page)).every((c) => c.share >= 0.005), 'the charts are still drawn in dark mode');
  await screenshot(page, 'experiments-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // the URL alone reproduces it
  // (a relative range ends now: the window moved, so the bootstrap's seed and the interval's last digits may too)
  const shared = page.url();
  const reanswered = page.waitForResponse((r) => r.url().includes('/api/v1/compare?'));
  await open(page, shared);
  await settled(page);
  const again = await (await reanswered).json();
  t.ok(await page.inputValue('#a-sched') === 'scx_fifo' && await page.inputValue('#b-sched') === 'eevdf', 'a shared URL brings the arms back into the form');
  t.ok(again.verdict === 'worse' && again.ratio === ans.ratio && await page.locator('#verdict-summary').textContent() === again.summary,
    `and the same verdict and ratio without pressing Compare (${again.summary})`);

  // labels as arms, the other way round: better
  const mirror = await compareIn(page, { label: 'role=web' }, { label: 'role=batch' });
  t.ok(mirror.url.searchParams.get('a') === 'label.role=web' && mirror.url.searchParams.get('b') === 'label.role=batch', `labels become label.K=V terms (${mirror.url.search})`);
  t.ok(mirror.ans.verdict === 'better' && await page.locator('.verdict-line .badge.verdict').getAttribute('data-verdict') === 'better', `web against batch is better (${mirror.ans.summary})`);
  t.ok(Math.abs(mirror.ans.ratio * wantRatio - 1) < 0.01, `and its ratio is the inverse (${mirror.ans.ratio} × ${wantRatio.toFixed(3)})`);

  // before/after: scx_fifo's hosts in two windows are compared as pairs, each arm drawn over its own window
  await page.check('#win-split');
  const [af, at, bf, bt] = [now - 20 * 60e3, now - 8 * 60e3, now - 8 * 60e3, Date.now()].map((ms) => fmt.localInput(ms));
  await page.fill('#a-from', af);
  await page.fill('#a-to', at);
  await page.fill('#b-from', bf);
  await page.fill('#b-to', bt);
  const ba = await compareIn(page, { sched: 'scx_fifo' }, { sched: 'scx_fifo' });
  const bu = new URL(page.url()).searchParams;
  t.ok(bu.get('win') === 'split' && Number(bu.get('a_from')) === new Date(af).getTime() && Number(bu.get('b_to')) === new Date(bt).getTime(), `the two windows are in the URL (${new URL(page.url()).search})`);
  t.ok(ba.url.searchParams.get('a_to') === String(new Date(at).getTime()) && !ba.url.searchParams.has('from'), `the page asks with a_from/a_to/b_from/b_to (${ba.url.search})`);
  t.ok(ba.ans.paired === true && ba.ans.verdict !== 'better' && ba.ans.verdict !== 'worse', `the same hosts in two windows are paired and not called better or worse (${ba.ans.verdict}: ${ba.ans.summary})`);
  const span = (pre) => page.evaluate((x) => {
    const c = [...document.querySelectorAll('canvas')].find((e) => (e.getAttribute('aria-label') || '').startsWith(x));
    const s = window.Chart.getChart(c).options.scales.x;
    return [s.min, s.max];
  }, pre);
  const [sa, sb] = [await span('Arm A'), await span('Arm B')];
  t.ok(sa[0] === ba.ans.a.from && sa[1] === ba.ans.a.to && sb[0] === ba.ans.b.from && sb[1] === ba.ans.b.to, `each arm's curves span its own window (A ${sa}, B ${sb})`);
  const baRows = await page.locator('#experiment-result table.data tbody tr').count();
  t.ok(baRows === PER_FLEET, `a paired comparison has one row per host with both values (${baRows})`);
  await screenshot(page, 'experiments-before-after-light');

  // the fleet page's split links here with the scheduler as arm A
  await open(page, `${srv.url}/?range=1h&refresh=0`);
  const link = page.locator('a.experiment-link[href*="sched%3Dscx_fifo"]');
  t.ok(await link.count() === 1, 'the fleet\'s scheduler split links scx_fifo to the Experiments page');
  await link.click();
  await page.waitForFunction(() => location.pathname === '/experiments' && document.documentElement.dataset.state === 'ready');
  await settled(page);
  t.ok(await page.inputValue('#a-sched') === 'scx_fifo' && await page.inputValue('#b-sched') === '', 'the page opens with scx_fifo as arm A, B left to choose');
  t.ok(await page.locator('nav a[aria-current="page"]').textContent() === 'Experiments', 'the nav marks the Experiments page');

  // the fleet's host filter knows labels: role=web is the EEVDF fleet, and each host shows its labels
  await open(page, `${srv.url}/?range=1h&refresh=0`);
  await settled(page);
  await page.fill('#host-filter', 'role=web');
  const byLabel = await page.locator('section:has(#host-filter) tbody tr a[href^="/host?id="]').evaluateAll((as) => as.map((a) => a.textContent).sort());
  t.ok(byLabel.join() === [...Array(PER_FLEET).keys()].map((k) => `eevdf-${k}.example`).join(),
    `the fleet filter role=web keeps the role=web hosts only (${byLabel})`);
  const shownLabels = await page.locator('section:has(#host-filter) tbody tr').first().locator('.host-label').allTextContents();
  t.ok(shownLabels.includes('role=web') && shownLabels.some((l) => /^rack=r[01]$/.test(l)), `a host's labels are shown beside its name (${shownLabels})`);
  await page.fill('#host-filter', '');

  // saved experiments
  {
    await open(page, shared);
    await settled(page);
    await page.fill('#save-name', 'fifo vs eevdf');
    await page.fill('#save-token', 'not-a-token');
    await page.click('#save');
    await page.waitForSelector('#save-msg.error');
    t.ok(/401|403/.test(await page.locator('#save-msg').textContent()), `a wrong token is refused in words (${await page.locator('#save-msg').textContent()})`);
    const tok = spawnSync(path.join(BIN, 'schedio-server'), ['token', 'add', '--db', srv.db, '--scope', 'admin', 'web-tests-admin'], { encoding: 'utf8' });
    t.ok(tok.status === 0, `an admin token is made (${tok.stderr})`);
    await page.fill('#save-token', tok.stdout.trim().split('\n').pop().trim());
    await page.click('#save');
    await page.waitForSelector('#save-msg.ok');
    const listed = await page.locator('table.data').last().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const row = listed.find((r) => r[0] === 'fifo vs eevdf');
    t.ok(row && row[1] === 'sched=scx_fifo' && row[2] === 'sched=eevdf', `the saved experiment is listed with its arms (${JSON.stringify(row)})`);
    t.ok(row && row[5] === 'A is worse', `with its verdict now (${row && row[5]})`);
    const saved = await (await fetch(`${srv.url}/api/v1/experiments`)).json();
    t.ok(saved.experiments.length === 1 && saved.experiments[0].verdict === 'worse', 'the server keeps it with that verdict');
    // its name links back to the comparison
    await page.locator('table.data').last().locator('a', { hasText: 'fifo vs eevdf' }).click();
    await page.waitForFunction(() => document.documentElement.dataset.state === 'ready' && document.querySelector('#verdict-summary'));
    await settled(page);
    const back = new URL(page.url()).searchParams;
    t.ok(back.get('a') === 'sched=scx_fifo' && back.get('b') === 'sched=eevdf' && back.get('range') === '1h', `the saved name opens its comparison (${new URL(page.url()).search})`);
    t.ok(await page.locator('.verdict-line .badge.verdict').getAttribute('data-verdict') === 'worse', 'with its verdict');
    await screenshot(page, 'experiments-saved-light');

    // deleting one: a second saved, then deleted from the list after its confirmation
    const adminTok = tok.stdout.trim().split('\n').pop().trim();
    const savedRows = () => page.locator('table.data').last().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.cells[0].textContent));
    await page.fill('#save-name', 'to delete');
    await page.fill('#save-token', adminTok);
    await page.click('#save');
    await page.waitForSelector('#save-msg.ok');
    t.ok((await savedRows()).sort().join('|') === 'fifo vs eevdf|to delete', `a second experiment is listed (${await savedRows()})`);
    const delBtn = page.locator('button.delete-experiment[aria-label="Delete the experiment to delete"]');
    t.ok(await delBtn.count() === 1 && await page.locator('button.delete-experiment').count() === 2, 'each listed experiment has a delete button');
    t.ok(!(await page.isVisible('#delete-confirm')), 'no confirmation is asked before a delete button is pressed');
    await delBtn.click();
    t.ok(await page.isVisible('#delete-confirm') && /"to delete"/.test(await page.textContent('#delete-what')),
      `pressing it asks for a confirmation naming the experiment ("${await page.textContent('#delete-what')}")`);
    t.ok(await page.inputValue('#delete-token') === adminTok, 'the admin token typed for saving is offered for deleting');
    await page.click('#delete-no');
    const kept = (await (await fetch(`${srv.url}/api/v1/experiments`)).json()).experiments.map((e) => e.name);
    t.ok(!(await page.isVisible('#delete-confirm')) && kept.length === 2 && (await savedRows()).length === 2, `cancel deletes nothing (server keeps ${kept})`);
    // a token of another scope is refused in words, and nothing is deleted
    const ing = spawnSync(path.join(BIN, 'schedio-server'), ['token', 'add', '--db', srv.db, '--scope', 'ingest', 'web-tests-ingest'], { encoding: 'utf8' });
    t.ok(ing.status === 0, `an ingest token is made (${ing.stderr})`);
    await delBtn.click();
    await page.fill('#delete-token', ing.stdout.trim().split('\n').pop().trim());
    await page.click('#delete-yes');
    await page.waitForSelector('#delete-msg.error');
    const refused = await page.textContent('#delete-msg');
    t.ok(/HTTP 403/.test(refused) && /not of scope admin/.test(refused), `a token of scope ingest is refused in words ("${refused}")`);
    t.ok((await savedRows()).length === 2 && (await (await fetch(`${srv.url}/api/v1/experiments`)).json()).experiments.length === 2, 'and nothing is deleted');
    // the admin token deletes it, and only it
    await page.fill('#delete-token', adminTok);
    await page.click('#delete-yes');
    await page.waitForSelector('#delete-msg.ok');
    t.ok(/Deleted "to delete"/.test(await page.textContent('#delete-msg')), `the deletion is confirmed in words ("${await page.textContent('#delete-msg')}")`);
    const left = await savedRows();
    t.ok(left.length === 1 && left[0] === 'fifo vs eevdf' && !(await page.isVisible('#delete-confirm')), `it leaves the list, the other stays (${left})`);
    const onServer = (await (await fetch(`${srv.url}/api/v1/experiments`)).json()).experiments.map((e) => e.name);
    t.ok(onServer.length === 1 && onServer[0] === 'fifo vs eevdf', `the server keeps only the other (${onServer})`);
    // one deleted behind the page's back: 404 in words, and it leaves the list
    const post = await fetch(`${srv.url}/api/v1/experiments`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminTok}` },
      body: JSON.stringify({ name: 'gone meanwhile', a: 'sched=eevdf', b: 'sched=scx_fifo', metric: 'p50', threshold: 0.05, cgroup: null, window: { last_hours: 1 } }),
    });
    const gone = await post.json();
    t.ok(post.status === 201 && gone.id > 0, `another is saved through the API (HTTP ${post.status}, #${gone.id})`);
    await open(page, page.url());
    await settled(page);
    t.ok((await savedRows()).includes('gone meanwhile'), 'and listed');
    const del = await fetch(`${srv.url}/api/v1/experiments/${gone.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${adminTok}` } });
    t.ok(del.status === 204, `and deleted through the API behind the page's back (HTTP ${del.status})`);
    await page.locator('button.delete-experiment[aria-label="Delete the experiment gone meanwhile"]').click();
    await page.fill('#delete-token', adminTok);
    await page.click('#delete-yes');
    await page.waitForSelector('#delete-msg.error');
    const stale = await page.textContent('#delete-msg');
    t.ok(/HTTP 404/.test(stale) && /deleted already/.test(stale), `deleting it from the page says it was gone already ("${stale}")`);
    await page.waitForFunction(() => ![...document.querySelectorAll('table.data')].pop().textContent.includes('gone meanwhile'));
    const after = await savedRows();
    t.ok(after.length === 1 && after[0] === 'fifo vs eevdf', `and the list is read again without it (${after})`);
    await screenshot(page, 'experiments-deleted-light');
  }

  const st = await states(page);
  t.ok(st.errors.length === 0 && st.loading === 0, `no error or loading state left ${st.errors.join(' | ')}`);
  t.ok(w.problems.length === 0, `no console errors or failed requests ${w.problems.join(' | ')}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();
