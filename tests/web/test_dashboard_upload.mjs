// test_dashboard_upload.mjs - the Submit page against a real server: a real
// resctl-bench result chosen with the file picker is stored and what the
// server parsed is shown (model, firmware, solutions), the same file again
// is a duplicate, and a file that is not a result, dropped on the drop zone,
// shows the server's refusal in words; the progress bar is shown meanwhile.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { startServer, resultFiles, requireData } from './fixture.mjs';
import { launch, watch, open, screenshot, checker } from './browser.mjs';

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
  t.ok(w.problems.length === 0, `no unexpected console errors or failed requests ${w.problems.join(' | ')}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();

