// test_dashboard_pages.mjs - every dashboard page against a real server
// filled by a real agent, synthetic reports in the documented format and the
// shared resctl-bench results: each page loads with no console error, no
// failed request and no response over 1 MiB, every chart draws (a chart with
// data and painted pixels), the time range and filters live in the URL, the
// pages work from the keyboard, and each page is screenshotted in light and
// dark (build/web-screenshots/). With SCHEDIO_WEB_READ_TOKEN=1 (ctest
// web/test_dashboard_pages_read_token) the server needs a read token
// (--require-read-token): the dashboard must ask for it once (a cancelled
// prompt leaves an error naming the token, an ingest token is refused with
// the server's reason) and every check below then passes as before.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { filledServer, requireData } from './fixture.mjs';
import { launch, watch, open, charts, states, screenshot, checker, MAX_RESPONSE } from './browser.mjs';

requireData();
const t = checker();
const READ_TOKEN = process.env.SCHEDIO_WEB_READ_TOKEN === '1';
const srv = await filledServer({ fleet: 60, readToken: READ_TOKEN });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  const page = await browser.ctx.newPage();
  const w = watch(page);
  if (READ_TOKEN) await enterToken(page);
  const agentHost = fs.readFileSync('/etc/machine-id', 'utf8').trim();
  const models = [...new Set(srv.results.map((r) => String(r.model || '').trim().replace(/\s+/g, '_')))];

  // stale hosts are marked in the fleet table (checked first: staleness moves with the clock)
  await open(page, `${srv.url}/?range=1h&sort=seen&dir=asc`);
  const staleRows = await page.locator('table.data tr.stale').count();
  t.ok(staleRows > 0 && (await page.locator('table.data tr.stale .badge', { hasText: 'stale' }).count()) === staleRows, `stale hosts are marked (${staleRows} rows)`);

  // an agent restart (new incarnation, seq back to 1: fixture host 0) shows as one, not as a stale host
  const restarted = srv.hosts[0];
  await open(page, `${srv.url}/?range=1h&q=${encodeURIComponent(restarted.hostname)}`);
  const restartRow = page.locator('table.data tbody tr', { hasText: restarted.hostname });
  t.ok((await restartRow.locator('.badge.restart', { hasText: /agent restarted .* ago/ }).count()) === 1 &&
    (await restartRow.locator('.badge', { hasText: 'stale' }).count()) === 0, 'an agent restart is marked as a restart, not as stale');
  t.ok((await page.locator('table.data .badge.restart').count()) === 1, 'only the restarted host is marked');
  await open(page, `${srv.url}/host?id=${restarted.id}&range=1h`);
  t.ok((await page.locator('dl.facts .badge.restart', { hasText: /restarted .* ago/ }).count()) === 1, 'the host page shows the agent restart');

  const pages = [
    { name: 'fleet', url: '/?range=1h', minCharts: 2 },
    { name: 'fleet-by-kernel', url: '/?range=1h&group_by=kernel', minCharts: 2 },
    { name: 'host-24h', url: `/host?id=${srv.history.id}&range=24h`, minCharts: 6 },
    { name: 'host-cgroup', url: `/host?id=${srv.history.id}&range=6h&scope=${encodeURIComponent('cg:/system.slice')}`, minCharts: 6 },
    { name: 'host-l3', url: `/host?id=${srv.history.id}&range=1h&scope=l3:0`, minCharts: 6 },
    { name: 'host-agent', url: `/host?id=${agentHost}&range=15m`, minCharts: 0 },
    { name: 'ssd', url: '/ssd', minCharts: 0 },
    ...models.map((m) => ({ name: `ssd-${m}`, url: `/ssd?model=${encodeURIComponent(m)}`, minCharts: 4 })),
    // a small result file: its MOF/aMOF and latency curves are drawn from the file on request
    { name: 'ssd-curves', url: '/ssd?model=KXG6AZNV512G_TOSHIBA', minCharts: 4, act: loadCurves },
    { name: 'submit', url: '/submit', minCharts: 0 },
  ];

  for (const p of pages) {
    w.reset();
    await page.emulateMedia({ colorScheme: 'light' });
    const ms = await open(page, srv.url + p.url);
    if (p.act) await p.act(page);
    const st = await states(page);
    const cs = await charts(page);
    const bad = cs.filter((c) => !c.chart || c.points === 0 || c.share < 0.005);
    t.ok(st.errors.length === 0, `${p.name}: no error state ${st.errors.join(' | ')}`);
    t.ok(st.loading === 0, `${p.name}: nothing left loading`);
    t.ok(cs.length >= p.minCharts, `${p.name}: ${cs.length} charts (at least ${p.minCharts})`);
    t.ok(bad.length === 0, `${p.name}: every chart has data and paint ${JSON.stringify(bad)}`);
    if (p.name === 'host-24h') {
      const tiles = await heatTiles(page);
      t.ok(tiles && tiles.pairs > 100 && tiles.gaps.length === 0,
        `host-24h: the heatmap's cells tile its plot, each touching its neighbour in time and in latency (${JSON.stringify(tiles)})`);
    }
    await screenshot(page, `${p.name}-light`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(50);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    t.ok(bg !== 'rgb(246, 247, 249)', `${p.name}: dark mode switches the page (${bg})`);
    const csDark = await charts(page);
    t.ok(csDark.every((c) => c.share >= 0.005), `${p.name}: charts still drawn in dark mode`);
    await screenshot(page, `${p.name}-dark`);
    const big = w.sizes.filter((s) => s.bytes > MAX_RESPONSE);
    t.ok(w.problems.length === 0, `${p.name}: no console errors or failed requests ${w.problems.join(' | ')}`);
    t.ok(big.length === 0, `${p.name}: no response over 1 MiB ${JSON.stringify(big)}`);
    console.log(`# ${p.name}: ready in ${Math.round(ms)} ms, ${cs.length} charts, ${w.sizes.length} responses, largest ${Math.max(0, ...w.sizes.map((s) => s.bytes))} bytes`);
  }

  // the time range picker writes the URL and the page follows it
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, `${srv.url}/?range=1h`);
  await page.selectOption('#range', '24h');
  await page.waitForFunction(() => location.search.includes('range=24h'));
  t.ok(new URL(page.url()).searchParams.get('range') === '24h', 'time range: choosing 24 h puts range=24h in the URL');
  await page.selectOption('#range', 'custom');
  await page.fill('#range-from', '2026-01-01T00:00');
  await page.fill('#range-to', '2026-01-02T00:00');
  await page.click('.range-custom button');
  await page.waitForFunction(() => new URLSearchParams(location.search).has('from'));
  const q = new URL(page.url()).searchParams;
  t.ok(Number(q.get('to')) - Number(q.get('from')) === 86400e3, 'time range: a custom range is kept as from/to in the URL');

  // filter and sort from the keyboard, both kept in the URL
  await open(page, `${srv.url}/?range=1h`);
  // how many hosts match: "Showing 100 of 334 matching, 1001 in total", "20 matching, 60 in total", "60 in total"
  const rows = async () => {
    const text = await page.locator('.table-count').first().textContent();
    return Number((/of (\d+)/.exec(text) || /^(\d+)/.exec(text))[1]);
  };
  const all = await rows();
  await page.focus('#host-filter');
  await page.keyboard.type('dc1');
  t.ok((await rows()) < all && (await rows()) > 0, `host filter narrows the table (${all} -> ${await rows()})`);
  t.ok(new URL(page.url()).searchParams.get('q') === 'dc1', 'host filter is kept in the URL');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.activeElement.tagName + ':' + document.activeElement.textContent);
  t.ok(/^BUTTON:Host/.test(focused), `Tab from the filter reaches the first sort button (${focused})`);
  await page.keyboard.press('Enter');
  const sorted = await page.evaluate(() => document.activeElement.closest('th').getAttribute('aria-sort'));
  t.ok(sorted === 'ascending', `Enter on a column header sorts by it (${sorted})`);
  const names = await page.locator('table.data tbody tr td:first-child').allTextContents();
  t.ok(names.join() === [...names].sort().join(), 'rows are sorted by hostname');

  // the host link leads to the host page, client-side
  await page.click('table.data tbody tr td:first-child a');
  await page.waitForFunction(() => location.pathname === '/host' && document.documentElement.dataset.state === 'ready');
  t.ok((await page.locator('h1').textContent()).startsWith('node-'), 'a host link opens its host page');
  // the host's disk is matched to the SSD database: config in force against the recommended one
  await open(page, `${srv.url}/host?id=${srv.history.id}&range=1h`);
  const disk = await page.locator('article.disk').first().textContent();
  t.ok(/differs from the recommended config/.test(disk), 'the disk card says the config in force differs from the recommended one');
  t.ok(/259:0 ctrl=user model=linear rbps=\d+/.test(disk) && /259:0 enable=1 ctrl=user rpct=/.test(disk), 'the disk card shows the recommended lines for its device');

  // a cgroup chosen from the table drives the heatmap and the URL
  await open(page, `${srv.url}/host?id=${srv.history.id}&range=1h`);
  await page.click('table.data tbody tr td:first-child button');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('scope')?.startsWith('cg:') && !document.querySelector('.state-loading'));
  const scope = new URL(page.url()).searchParams.get('scope');
  t.ok((await page.inputValue('#scope')) === scope, `choosing a cgroup in the table selects it for the heatmap (${scope})`);
  t.ok((await charts(page))[0].points > 0, 'the heatmap is redrawn for the cgroup');

  // copy buttons put the config lines on the clipboard
  await browser.ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  await open(page, `${srv.url}/ssd?model=Samsung_SSD_970_EVO_500GB&dev=8:16`);
  await page.click('.copy-block button');
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  t.ok(/^8:16 ctrl=user model=linear rbps=\d+/.test(clip), `the io.cost.model copy button copies the line (${clip})`);
  t.ok(w.problems.length === 0, `interactions: no console errors or failed requests ${w.problems.join(' | ')}`);

  // auto-refresh asks again while a relative range is shown
  let asked = 0;
  const count = (r) => { if (r.url().includes('/api/v1/hosts')) asked++; };
  page.on('request', count);
  await open(page, `${srv.url}/?range=15m&refresh=5`);
  await page.waitForTimeout(6500);
  page.off('request', count);
  t.ok(asked >= 2, `auto-refresh reloads the data (${asked} host list requests in 6.5 s at refresh=5)`);

  // empty and error states say what is going on
  await open(page, `${srv.url}/?from=${Date.UTC(2020, 0, 1)}&to=${Date.UTC(2020, 0, 2)}`);
  t.ok(/No runqueue latency reported/.test(await page.locator('.state-empty').first().textContent()), 'a range with no data shows an empty state');
  w.reset();
  await open(page, `${srv.url}/host?id=no-such-host`);
  const errText = await page.locator('.state-error').first().textContent();
  t.ok(/Could not load the host: .*404/.test(errText), `an unknown host shows the server's error (${errText})`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();

// The first read is refused: the dashboard asks for a token in a dialog.
async function enterToken(page) {
  const dialog = page.locator('dialog.token-dialog[open]');
  await page.goto(`${srv.url}/?range=1h`, { waitUntil: 'domcontentloaded' });
  await dialog.waitFor({ timeout: 30000 });
  t.ok((await dialog.count()) === 1, 'read token: one dialog asks for it, however many reads were refused');
  t.ok(await page.evaluate(() => document.activeElement && document.activeElement.id === 'read-token'), 'read token: the dialog has the focus');
  await dialogA11y(page);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.documentElement.dataset.state === 'ready');
  const err = await page.locator('.state-error').first().textContent();
  t.ok(/token/.test(err) && /401/.test(err), `read token: cancelled, the page says the server wants one (${err})`);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await dialog.waitFor({ timeout: 30000 });
  await page.fill('#read-token', srv.ingestToken);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /scope is ingest/.test(document.querySelector('dialog.token-dialog[open]')?.textContent || ''), null, { timeout: 30000 });
  t.ok(true, 'read token: an ingest token is refused and the dialog gives the server\'s reason');
  await page.fill('#read-token', srv.readToken);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.documentElement.dataset.state === 'ready', null, { timeout: 30000 });
  t.ok((await page.locator('dialog.token-dialog').count()) === 0 && (await page.locator('.state-error').count()) === 0, 'read token: with a read token the fleet page loads');
  const kept = await page.evaluate(() => sessionStorage.getItem('schedio.readToken'));
  t.ok(kept === srv.readToken, 'read token: kept for the session');
}

// The token dialog is judged by axe-core as test_dashboard_a11y judges the pages
// (WCAG 2.0/2.1 A and AA, light and dark): no serious or critical violation.
async function dialogA11y(page) {
  // ESM ignores NODE_PATH: resolve axe from the build's npm tree (as test_dashboard_a11y does).
  const require = createRequire(path.join(process.env.SCHEDIO_BUILD || '.', 'web-npm', 'node_modules', 'x.js'));
  const { AxeBuilder } = require('@axe-core/playwright');
  for (const theme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: theme });
    const res = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    for (const v of bad) console.log(`# token dialog (${theme}): ${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')}`);
    t.ok(bad.length === 0, `read token: the dialog has no serious or critical axe violation (${theme}; ${bad.map((v) => v.id).join(', ') || 'none failing'})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function loadCurves(page) {
  const button = page.locator('#load-curves');
  // The model API lists each submission, so the page must offer their curves and files.
  t.ok((await button.count()) > 0, 'the model page offers the submissions\' curves');
  if (!(await button.count())) return;
  const before = await page.locator('canvas').count();
  // Only the curves' own section can end the wait with an error or empty state: another section of
  // the page may show one already, which ended the wait before the curves were drawn.
  const sec = await button.evaluateHandle((b) => b.closest('section'));
  await button.click();
  await page.waitForFunction(([n, s]) => document.querySelectorAll('canvas').length > n || s.querySelector('.state-error, .state-empty'), [before, sec]);
  const after = await page.locator('canvas').count();
  t.ok(after >= before + 2, `the MOF/aMOF and latency curves are drawn from the result file (${before} -> ${after} charts)`);
  const links = await page.locator('a[href*="/api/v1/ssd/results/"][download]').count();
  t.ok(links > 0, `the submissions are listed with download links (${links})`);
  if (READ_TOKEN && links > 0) {
    // a plain link cannot send the token: the dashboard fetches the file with it
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), page.locator('a[href*="/api/v1/ssd/results/"][download]').first().click()]);
    const file = await dl.path();
    const bytes = file ? fs.statSync(file).size : 0;
    t.ok(bytes > 0 && !(await dl.failure()), `read token: a result file downloads with the token (${dl.suggestedFilename()}, ${bytes} bytes)`);
  }
}

// How the heatmap's cells lie on its canvas: for every pair of cells next to
// each other in time (one step apart) or in latency (one row apart), whether
// they touch without a gap and overlap by at most a pixel. The step and the
// row are read off the data (the smallest distance between cells), not from
// the chart's own arithmetic. Returns {pairs, gaps: the first few that do not}.
function heatTiles(page) {
  return page.evaluate(() => {
    const c = document.querySelector('canvas[aria-label^="Runqueue latency heatmap"]');
    const chart = c && window.Chart.getChart(c);
    if (!chart) return null;
    const i = chart.data.datasets.findIndex((d) => d.data[0] && 'v' in d.data[0]);
    const cells = chart.data.datasets[i].data, els = chart.getDatasetMeta(i).data;
    const least = (vals) => {
      const s = [...new Set(vals)].sort((a, b) => a - b);
      let d = Infinity;
      for (let k = 1; k < s.length; k++) d = Math.min(d, s[k] - s[k - 1]);
      return d;
    };
    const step = least(cells.map((p) => p.x)), row = least(cells.map((p) => p.y));
    const key = (x, y) => `${x}|${Math.round(y / row)}`;
    const at = new Map(cells.map((p, k) => [key(p.x, p.y), els[k]]));
    let pairs = 0;
    const gaps = [];
    cells.forEach((p, k) => {
      const a = els[k];
      const right = at.get(key(p.x + step, p.y)), up = at.get(key(p.x, p.y + row));
      if (right) {
        pairs++;
        const d = a.x + a.width - right.x;
        if (d < 0 || d > 1) gaps.push({ t: p.x, y: p.y, dx: +d.toFixed(2) });
      }
      if (up) { // a higher latency is higher on the canvas: a smaller pixel y
        pairs++;
        const d = up.y + up.height - a.y;
        if (d < 0 || d > 1) gaps.push({ t: p.x, y: p.y, dy: +d.toFixed(2) });
      }
    });
    return { pairs, step, gaps: gaps.slice(0, 5) };
  });
}
