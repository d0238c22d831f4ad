// test_dashboard_upload.mjs - the Submit page against a real server: a real
// resctl-bench result chosen with the file picker is stored and what the
// server parsed is shown (model, firmware, solutions), the same file again
// is a duplicate, and a file that is not a result, dropped on the drop zone,
// shows the server's refusal in words; the progress bar is shown meanwhile.
// A schedio bench result (a quick bench, tests/fixtures/ssdbench) goes the
// same way: stored as kind quick, its model page shows it with a kind badge,
// a rate-over-time line chart per unit (drawn, with the phases' points), its
// warnings, a model line and no io.cost.qos line; the models list shows the kind.
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import zlib from 'node:zlib';
import { startServer, resultFiles, requireData } from './fixture.mjs';
import { launch, watch, open, screenshot, checker, charts, states } from './browser.mjs';

const QUICK = path.join(path.dirname(url.fileURLToPath(import.meta.url)), '..', 'fixtures', 'ssdbench', 'quick-result.json');

requireData();
const t = checker();
const srv = await startServer();
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  const page = await browser.ctx.newPage();
  // the refused upload is expected to be logged by Chromium as a 4xx
  const w = watch(page, (url, what) => url.endsWith('/api/v1/ssd/results') && /4\d\d/.test(what));
  await open(page, `${srv.url}/submit`);
  const good = resultFiles().find((f) => f.includes('INTEL_SSDPEKKA256G7'));
  const expected = JSON.parse(zlib.gunzipSync(fs.readFileSync(good)).toString('utf8')).find((j) => j.sysinfo && j.sysinfo.sysreqs_report).sysinfo.sysreqs_report;

  let sawProgress = false;
  await page.exposeFunction('sawProgress', () => { sawProgress = true; });
  await page.evaluate(() => {
    new MutationObserver(() => { if (!document.getElementById('progress').hidden) window.sawProgress(); })
      .observe(document.getElementById('progress'), { attributes: true });
  });

  await page.setInputFiles('#file', good);
  await page.waitForSelector('.result');
  let text = await page.locator('.result').first().textContent();
  t.ok(await page.locator('.result.ok').count() === 1, `a good file is stored: ${text.slice(0, 200)}`);
  t.ok(text.includes(expected.scr_dev_model.trim()), `the parsed model is shown (${expected.scr_dev_model.trim()})`);
  t.ok(text.includes(expected.scr_dev_fwrev.trim()), `the parsed firmware is shown (${expected.scr_dev_fwrev.trim()})`);
  t.ok(/naive/.test(text), 'the parsed solutions are shown');
  t.ok(sawProgress, 'the progress bar is shown while sending');

  await page.setInputFiles('#file', good);
  await page.waitForFunction(() => document.querySelectorAll('.result').length === 2);
  text = await page.locator('.result').first().textContent();
  t.ok(/already in the database/.test(text), 'the same file again is reported as a duplicate');

  // a bad file, dropped on the drop zone
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File(['this is not a resctl-bench result'], 'notes.json', { type: 'application/json' }));
    return d;
  });
  await page.dispatchEvent('#drop', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => document.querySelectorAll('.result').length === 3);
  const err = page.locator('.result').first();
  text = await err.textContent();
  t.ok(await err.evaluate((e) => e.classList.contains('error')), `a bad file is refused: ${text}`);
  t.ok(/HTTP 4\d\d/.test(text) && text.replace(/.*refused \(HTTP \d+\)/, '').trim().length > 5, 'the server\'s reason is shown in words');
  await screenshot(page, 'submit-after-upload');

  // the stored result is in the database the SSD pages read
  const models = await (await fetch(`${srv.url}/api/v1/ssd/models`)).json();
  const list = Array.isArray(models) ? models : models.models;
  t.ok(list.some((m) => m.id === 'INTEL_SSDPEKKA256G7'), 'the uploaded model is listed by the server');
  await page.click('.result.ok a');
  await page.waitForFunction(() => location.search.includes('model=') && document.documentElement.dataset.state === 'ready');
  t.ok((await page.locator('h1').textContent()).includes('INTEL'), 'the result links to its model page');
  t.ok(await page.locator('.quick-bench').count() === 0, 'a model without quick benches shows none');

  // a quick bench (schedio bench --output), chosen with the file picker
  const quick = JSON.parse(fs.readFileSync(QUICK, 'utf8'));
  await open(page, `${srv.url}/submit`);
  await page.setInputFiles('#file', QUICK);
  await page.waitForSelector('.result');
  text = await page.locator('.result').first().textContent();
  t.ok(await page.locator('.result.ok').count() === 1, `a quick bench is stored: ${text.slice(0, 200)}`);
  t.ok(text.includes(quick.device.model) && /quick bench/.test(text), 'the Submit page shows its model and kind');
  await page.click('.result.ok a');
  await page.waitForFunction(() => location.search.includes('model=') && document.documentElement.dataset.state === 'ready');
  await page.waitForSelector('.quick-bench canvas');
  await page.waitForTimeout(300);
  const card = page.locator('.quick-bench');
  t.ok(await card.count() === 1 && await card.locator('.badge.kind.quick').count() === 1, 'the model page shows the quick bench with its kind badge');
  const drawn = (await charts(page)).filter((c) => /rate over time per phase/.test(c.label || ''));
  const seriesPoints = quick.phases.reduce((n, p) => n + p.series.length, 0);
  t.ok(drawn.length === 2 && drawn.every((c) => c.chart && c.painted > 0) && drawn.reduce((n, c) => n + c.points, 0) === seriesPoints,
    `a bandwidth and an IOPS rate-over-time chart, drawn, with every series point (${drawn.map((c) => `${c.points} points, ${c.painted} px`).join('; ')}; want ${seriesPoints} points)`);
  const warnText = await card.locator('ul.warnings').textContent();
  t.ok(quick.warnings.every((x) => warnText.includes(x.message)), 'its warnings are listed');
  t.ok(await card.locator('table tbody tr').count() === quick.phases.length, 'one row per phase');
  const cfgText = await page.locator('section', { hasText: 'Configuration lines' }).textContent();
  t.ok(/model=linear rbps=3180000000/.test(cfgText) && /No io.cost.qos line/.test(cfgText) && !/enable=1/.test(cfgText),
    'the configuration shows the median model line and no QoS line');
  t.ok(/no QoS/.test(await page.locator('.basis').textContent()), 'the recommendation says it comes from quick benches without QoS');
  t.ok((await page.locator('table.data tbody .badge.kind.quick').count()) === 1, 'the submissions table marks the quick bench');
  const st = await states(page);
  t.ok(st.loading === 0 && st.errors.length === 0, `no loading or error states (${st.errors.join(' | ')})`);
  await screenshot(page, 'ssd-model-quick');
  await open(page, `${srv.url}/ssd?q=${encodeURIComponent(quick.device.model)}`);
  await page.waitForSelector('table.data tbody tr');
  t.ok(/1 quick/.test(await page.locator('table.data tbody tr').first().textContent()), 'the models list shows the kinds');
  t.ok(w.problems.length === 0, `no unexpected console errors or failed requests ${w.problems.join(' | ')}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();

