// test_dashboard_csp.mjs - the dashboard under the server's
// Content-Security-Policy (issue 19) in a real browser. The page receives the
// policy and works under it: charts are drawn, chart boxes get their heights
// (set through the CSSOM, which style-src does not govern), and no violation
// is reported on any page. The watcher that every browser test relies on
// (browser.mjs: securitypolicyviolation) is shown to see what the policy
// refuses: an inline script (which does not run), a style attribute (which
// does not apply), a connection and an image from elsewhere. And no page
// can frame the dashboard (frame-ancestors 'none').
import { startServer, postFleet } from './fixture.mjs';
import { launch, watch, open, charts, checker } from './browser.mjs';

const t = checker();
const srv = await startServer({ submitToken: false });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  await postFleet(srv.url, 6);
  const page = await browser.ctx.newPage();
  const w = watch(page);

  // the dashboard page as the browser receives it
  const docAnswer = page.waitForResponse((r) => new URL(r.url()).pathname === '/');
  await open(page, `${srv.url}/?range=1h`);
  const h = (await docAnswer).headers();
  const policy = h['content-security-policy'] || '';
  t.ok(/(^|;)\s*script-src 'self'\s*(;|$)/.test(policy) && /frame-ancestors 'none'/.test(policy) && !/unsafe-/.test(policy),
    `the page carries the dashboard's policy, nothing unsafe in it (${policy})`);
  t.ok(h['x-content-type-options'] === 'nosniff' && h['referrer-policy'] === 'same-origin', 'and nosniff and a Referrer-Policy');

  // it works under the policy
  const cs = await charts(page);
  t.ok(cs.length >= 2 && cs.every((c) => c.chart && c.points > 0 && c.share >= 0.005), `the fleet charts are drawn under the policy (${cs.length})`);
  const heights = await page.evaluate(() => [...document.querySelectorAll('.chart-box')].map((b) => Math.round(b.getBoundingClientRect().height)));
  t.ok(heights[0] === 260, `a chart box gets its height through the CSSOM (${heights.join(', ')} px; the fleet chart's is 260)`);
  for (const p of ['/experiments?range=1h', '/ssd', '/submit', `/host?id=${encodeURIComponent('synthetic-00001')}&range=1h`]) await open(page, srv.url + p);
  t.ok(w.problems.length === 0, `no CSP violation, console error or failed request on the pages ${w.problems.join(' | ')}`);

  // the watcher sees what the policy refuses
  w.reset();
  const probe = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.inlineRan = true;';
    document.body.append(s);
    const d = document.createElement('div');
    d.setAttribute('style', 'color: rgb(255, 0, 0)');
    d.textContent = 'probe';
    document.body.append(d);
    const color = getComputedStyle(d).color;
    let fetched = true;
    try { await fetch('http://example.invalid/x'); } catch { fetched = false; }
    await new Promise((resolve) => { const i = new Image(); i.onload = i.onerror = resolve; i.src = 'http://example.invalid/i.png'; });
    await new Promise((r) => setTimeout(r, 300)); // the violation events are queued
    d.remove();
    s.remove();
    return { ran: window.inlineRan === true, color, fetched };
  });
  t.ok(!probe.ran, 'an inline script does not run');
  t.ok(probe.color !== 'rgb(255, 0, 0)', `a style attribute does not apply (${probe.color})`);
  t.ok(!probe.fetched, 'a connection elsewhere is refused');
  for (const d of ['script-src-elem', 'style-src-attr', 'connect-src', 'img-src'])
    t.ok(w.problems.some((p) => p.startsWith(`CSP violation: ${d} `)), `the watcher reports the refused ${d}`);
  console.log(`# reported: ${w.problems.filter((p) => p.startsWith('CSP')).join(' | ')}`);

  // nothing frames it (a blank page without a policy of its own tries)
  const other = await browser.ctx.newPage();
  let appLoads = 0;
  other.on('request', (r) => { if (r.url().startsWith(srv.url) && new URL(r.url()).pathname === '/app.js') appLoads++; });
  await other.setContent(`<iframe src="${srv.url}/" title="framed"></iframe>`);
  await other.waitForTimeout(1500);
  const child = other.frames().find((f) => f !== other.mainFrame());
  t.ok(appLoads === 0 && (!child || !child.url().startsWith(srv.url)), `the dashboard refuses to be framed (frame at ${child && child.url()}, app.js loaded ${appLoads} times)`);
  await other.close();
} finally {
  await browser.close();
  await srv.stop();
}
t.done();
