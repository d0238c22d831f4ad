// test_dashboard_a11y.mjs - every dashboard page judged by axe-core (the
// WCAG 2.0/2.1 A and AA rules, @axe-core/playwright pinned in
// web/package.json), in the light and the dark theme, filled with the data
// that makes it show all its parts: a real agent's report, a fleet, a host's
// day, the shared resctl-bench results (SSD list, model pages with their
// curves), sched_ext health (an ejected scheduler, a calm host, an agent
// that predates the fields), a comparison and a saved experiment, an empty
// range and an error. A serious or critical violation fails the test and is
// printed with the elements it concerns; moderate and minor ones are
// counted. Every page is also watched for console errors, CSP violations and
// failed requests.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { filledServer, requireData, postReport, BIN } from './fixture.mjs';
import { healthHost, healthReport, REPORTS, STEP } from './health_reports.mjs';
import { launch, watch, open, states, checker } from './browser.mjs';

// ESM ignores NODE_PATH: resolve axe from the build's npm tree (as playwright-core).
const require = createRequire(path.join(process.env.SCHEDIO_BUILD || '.', 'web-npm', 'node_modules', 'x.js'));
const { AxeBuilder } = require('@axe-core/playwright');

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const BLOCKING = new Set(['serious', 'critical']);

requireData();
const t = checker();
const srv = await filledServer({ fleet: 60 });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  // sched_ext health: a host whose scheduler was ejected, a calm one, one from an older agent
  const now = Date.now() - 5000;
  const end0 = now - (REPORTS - 1) * STEP;
  const ejected = healthHost(0, 'ejected-1'), calm = healthHost(1, 'calm-1'), legacy = healthHost(2, 'legacy-1');
  for (let k = 0; k < REPORTS; k++)
    for (const [h, opts] of [[ejected, { ejected: true }], [calm, {}], [legacy, { legacy: true }]])
      await postReport(srv.url, healthReport(h, k, end0 + k * STEP, opts));
  const range = `from=${now - 3600e3}&to=${now + 60e3}`;
  await waitFor('the health points', async () => {
    const res = await fetch(`${srv.url}/api/v1/hosts/${ejected.id}/health?${range}`);
    return res.ok && (await res.json()).points.length === REPORTS;
  });

  // a saved experiment, so the Experiments page lists one
  const tok = spawnSync(path.join(BIN, 'schedio-server'), ['token', 'add', '--db', srv.db, '--scope', 'admin', 'a11y-admin'], { encoding: 'utf8' });
  t.ok(tok.status === 0, `an admin token is made ${tok.stderr}`);
  const saved = await fetch(`${srv.url}/api/v1/experiments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tok.stdout.trim().split('\n').pop().trim()}` },
    body: JSON.stringify({ name: 'rusty vs lavd', a: 'sched=scx_rusty', b: 'sched=scx_lavd', metric: 'p99', threshold: 0.05, cgroup: null, window: { last_hours: 1 } }),
  });
  t.ok(saved.ok, `an experiment is saved (${saved.status} ${saved.ok ? '' : await saved.text()})`);

  const models = [...new Set(srv.results.map((r) => String(r.model || '').trim().replace(/\s+/g, '_')))];
  const day = 86400e3;
  const pages = [
    { name: 'fleet', url: '/?range=1h' },
    { name: 'fleet-by-kernel', url: '/?range=1h&group_by=kernel' },
    { name: 'fleet-custom-range', url: `/?from=${now - 2 * 3600e3}&to=${now}` },
    { name: 'fleet-empty', url: `/?from=${Date.UTC(2020, 0, 1)}&to=${Date.UTC(2020, 0, 2)}` },
    { name: 'host-24h', url: `/host?id=${srv.history.id}&range=24h` },
    { name: 'host-cgroup', url: `/host?id=${srv.history.id}&range=6h&scope=${encodeURIComponent('cg:/system.slice')}` },
    { name: 'host-l3', url: `/host?id=${srv.history.id}&range=1h&scope=l3:0` },
    { name: 'host-agent', url: `/host?id=${fs.readFileSync('/etc/machine-id', 'utf8').trim()}&range=15m` },
    { name: 'host-ejected', url: `/host?id=${ejected.id}&range=1h` },
    { name: 'host-calm', url: `/host?id=${calm.id}&range=1h` },
    { name: 'host-legacy', url: `/host?id=${legacy.id}&range=1h` },
    { name: 'host-unknown', url: '/host?id=no-such-host', allow: (u) => u.includes('/api/v1/hosts/no-such-host') },
    { name: 'no-such-page', url: '/no-such-page' },
    { name: 'experiments', url: '/experiments?range=1h' },
    { name: 'experiments-compared', url: '/experiments?range=1h&a=sched%3Dscx_rusty&b=sched%3Dscx_lavd' },
    { name: 'experiments-split', url: `/experiments?range=1h&a=sched%3Dscx_rusty&b=sched%3Dscx_rusty&win=split&a_from=${now - day / 12}&a_to=${now - day / 24}&b_from=${now - day / 24}&b_to=${now}` },
    { name: 'ssd', url: '/ssd' },
    { name: 'ssd-search', url: '/ssd?q=samsung' },
    ...models.map((m) => ({ name: `ssd-${m}`, url: `/ssd?model=${encodeURIComponent(m)}` })),
    { name: 'ssd-curves', url: '/ssd?model=KXG6AZNV512G_TOSHIBA', act: loadCurves },
    { name: 'ssd-device', url: '/ssd?model=Samsung_SSD_970_EVO_500GB&dev=8:16' },
    { name: 'submit', url: '/submit' },
  ];

  const page = await browser.ctx.newPage();
  let blocking = 0, lesser = 0, runs = 0;
  for (const p of pages) {
    const w = watch(page, p.allow || (() => false));
    await page.emulateMedia({ colorScheme: 'light' });
    await open(page, srv.url + p.url);
    await page.waitForFunction(() => !document.querySelector('.state-loading'), null, { timeout: 30000 }).catch(() => {});
    if (p.act) await p.act(page);
    for (const theme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: theme });
      await page.waitForTimeout(50);
      const res = await new AxeBuilder({ page }).withTags(TAGS).analyze();
      runs++;
      const bad = res.violations.filter((v) => BLOCKING.has(v.impact));
      const minor = res.violations.filter((v) => !BLOCKING.has(v.impact));
      blocking += bad.length;
      lesser += minor.length;
      for (const v of bad) {
        console.log(`# ${p.name} (${theme}): ${v.impact} ${v.id}: ${v.help} (${v.helpUrl})`);
        for (const n of v.nodes.slice(0, 8)) console.log(`#   ${n.target.join(' ')}: ${(n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 300)}`);
        if (v.nodes.length > 8) console.log(`#   ... and ${v.nodes.length - 8} more`);
      }
      for (const v of minor) console.log(`# ${p.name} (${theme}): (${v.impact}) ${v.id}: ${v.nodes.length} element(s)`);
      t.ok(bad.length === 0, `${p.name} (${theme}): no serious or critical axe violation (${res.passes.length} rules pass, ${bad.map((v) => v.id).join(', ') || 'none failing'})`);
    }
    const st = await states(page);
    t.ok(st.loading === 0, `${p.name}: nothing left loading when judged`);
    t.ok(w.problems.length === 0, `${p.name}: no console error, CSP violation or failed request ${w.problems.join(' | ')}`);
  }
  console.log(`# axe: ${runs} runs over ${pages.length} pages, ${blocking} serious/critical and ${lesser} moderate/minor violations`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();

async function waitFor(what, pred, timeoutMs = 60000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    if (await pred()) return;
  throw new Error(`timed out waiting for ${what}`);
}

// The model page's submissions: their MOF/aMOF and latency curves, drawn on request.
async function loadCurves(page) {
  const button = page.locator('#load-curves');
  t.ok((await button.count()) > 0, 'the model page offers the submissions\' curves');
  if (!(await button.count())) return;
  const before = await page.locator('canvas').count();
  const sec = await button.evaluateHandle((b) => b.closest('section')); // only its own states end the wait
  await button.click();
  await page.waitForFunction(([n, s]) => document.querySelectorAll('canvas').length > n || s.querySelector('.state-error, .state-empty'), [before, sec]);
}
