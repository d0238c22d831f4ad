// test_dashboard_ssd_list.mjs - the SSD models page against a real server
// holding 20,000 models (small synthetic resctl-bench results submitted over
// HTTP): the page shows the first page and the total, "Show more" brings the
// next page from the server, the search box asks the server (q, after a
// pause in typing: one request, not one per key), ?q= in the URL is the
// search, a search without matches shows the empty state, a model page
// fetches only its own hwdb entries; no console error, no failed request and
// no response over 1 MiB anywhere, the API's largest page included.
import zlib from 'node:zlib';
import { startServer, pool, need } from './fixture.mjs';
import { launch, watch, open, states, screenshot, checker, MAX_RESPONSE } from './browser.mjs';

const NMODELS = Number(process.env.SCHEDIO_WEB_SSD_MODELS || 20000);
const t = checker();

function result(i) {
  const m = { rbps: 1000 + i, rseqiops: 10, rrandiops: 20, wbps: 500, wseqiops: 5, wrandiops: 6 };
  const q = { rpct: 95.0, rlat: 1000, wpct: 95.0, wlat: 2000, min: 60.0, max: 100.0 };
  const si = { bench_version: '2.2.3', sysreqs_report: { scr_dev_model: `Fleet SSD ${String(i).padStart(5, '0')} ${'KLMNOPQR'[i % 8]}`, scr_dev_fwrev: `FW${i % 13}`, scr_dev_size: 1000, kernel_version: '6.1.0' } };
  return zlib.gzipSync(JSON.stringify([{ spec: { kind: 'iocost-tune' }, sysinfo: si, result: { solutions: { naive: { model: m, qos: q }, 'isolated-bandwidth': { model: m, qos: q } } } }]), { level: 1 });
}

// submissions by token: --open-submissions would rate-limit the fill per address
const srv = await startServer({ openSubmissions: false });
const t0 = Date.now();
await pool(Array.from({ length: NMODELS }, (_, i) => i), 8, async (i) => {
  const res = await fetch(`${srv.url}/api/v1/ssd/results`, { method: 'POST', headers: { Authorization: `Bearer ${srv.token}` }, body: result(i) });
  need(res.status === 201, `POST result ${i}: ${res.status} ${await res.text()}`);
});
console.log(`# fixture: ${NMODELS} SSD models submitted in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
try {
  // the API itself: the largest page it gives stays under 1 MiB, and the old unparameterized call is one page
  for (const query of ['', '?limit=1000', '?limit=1000&offset=19000']) {
    const res = await fetch(`${srv.url}/api/v1/ssd/models${query}`);
    const body = Buffer.from(await res.arrayBuffer());
    const doc = JSON.parse(body);
    t.ok(res.status === 200 && body.length < MAX_RESPONSE && doc.total === NMODELS,
      `GET /api/v1/ssd/models${query}: ${body.length} bytes, ${doc.models.length} models, total ${doc.total}`);
  }

  const page = await browser.ctx.newPage();
  const w = watch(page);
  const listRequests = () => w.sizes.filter((s) => s.url.includes('/api/v1/ssd/models'));
  const rows = () => page.locator('table.data tbody tr').count();
  const count = () => page.locator('#model-count').textContent();

  await open(page, `${srv.url}/ssd`);
  t.ok((await rows()) === 200, `first page: ${await rows()} rows`);
  t.ok(/Showing 200 of 20,000|Showing 200 of 20000/.test(await count()) || NMODELS !== 20000, `first page count: "${await count()}"`);
  const first = await page.locator('table.data tbody tr td a').first().textContent();
  t.ok(first === 'Fleet SSD 00000 K', `rows in id order from the start (${first})`);
  await screenshot(page, 'ssd-list-20000');

  // "Show more" asks the server for the next page
  await page.click('#model-more');
  await page.waitForFunction(() => document.querySelectorAll('table.data tbody tr').length === 400);
  t.ok(listRequests().some((s) => /offset=200\b/.test(s.url)), 'Show more fetched offset=200');
  t.ok(/Showing 400 of/.test(await count()), `after Show more: "${await count()}"`);
  const names = await page.locator('table.data tbody tr td a').allTextContents();
  t.ok(new Set(names).size === 400 && names[399] === 'Fleet SSD 00399 R', `400 distinct rows, the last ${names[399]}`);

  // typing a search: one request after the pause, the server's matches, the URL keeps it
  const before = listRequests().length;
  await page.locator('#model-search').pressSequentially('ssd 1234', { delay: 40 });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === 'ssd 1234' && !document.querySelector('.state-loading'));
  await page.waitForTimeout(400);
  const searched = listRequests().slice(before);
  t.ok(searched.length === 1 && /q=ssd(\+|%20)1234/.test(searched[0].url), `one request for the typed search: ${searched.map((s) => s.url).join(' ')}`);
  // "ssd 1234" is in Fleet SSD 12340 to 12349 (names are zero-padded; no firmware has it)
  const found = await page.locator('table.data tbody tr td a').allTextContents();
  const want = Array.from({ length: NMODELS }, (_, i) => `Fleet SSD ${String(i).padStart(5, '0')} ${'KLMNOPQR'[i % 8]}`).filter((n) => n.toLowerCase().includes('ssd 1234'));
  t.ok(JSON.stringify(found) === JSON.stringify(want), `search matches: ${found.join(', ')}`);
  t.ok(/matching/.test(await count()), `search count: "${await count()}"`);
  await screenshot(page, 'ssd-list-search');

  // a firmware matches too, with more matches than one page
  await page.fill('#model-search', 'fw12');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === 'fw12' && !document.querySelector('.state-loading'));
  const fw = Math.floor((NMODELS - 1 - 12) / 13) + 1;
  await page.waitForFunction((n) => document.querySelector('#model-count')?.textContent.includes(n), fw.toLocaleString('en'));
  t.ok((await rows()) === 200 && (await count()).includes(fw.toLocaleString('en')), `firmware search: ${await rows()} rows, "${await count()}"`);

  // hostile text and no match: the empty state, no error
  for (const q of ['100%_\'"\\', 'nothing like this']) {
    await page.fill('#model-search', q);
    await page.waitForFunction((v) => new URLSearchParams(location.search).get('q') === v && !document.querySelector('.state-loading'), q);
    await page.waitForSelector('.state-empty');
    const st = await states(page);
    t.ok(st.errors.length === 0 && (await page.locator('.state-empty').textContent()).includes('No SSD model matches'), `search ${JSON.stringify(q)}: empty state`);
  }

  // ?q= in the URL is the search on arrival
  await open(page, `${srv.url}/ssd?q=${encodeURIComponent('19999')}`);
  t.ok((await page.locator('#model-search').inputValue()) === '19999' && (await rows()) === 1, `?q=19999 on arrival: ${await rows()} row`);

  // a model page reads only its own hwdb entries
  const bigLists = w.sizes.filter((s) => s.bytes > MAX_RESPONSE);
  w.sizes.length = 0;
  await open(page, `${srv.url}/ssd?model=Fleet_SSD_00007_R`);
  await page.waitForFunction(() => !document.querySelector('.state-loading'));
  const hwdb = w.sizes.filter((s) => s.url.includes('/api/v1/ssd/hwdb'));
  t.ok(hwdb.length === 1 && hwdb[0].bytes < 4096, `model page hwdb request: ${JSON.stringify(hwdb)}`);
  t.ok((await page.locator('.copy-block pre').allTextContents()).some((x) => x.includes('Fleet SSD 00007 R')), 'the model page shows its hwdb entry');

  const st = await states(page);
  t.ok(st.errors.length === 0, `no error state ${st.errors.join(' | ')}`);
  const big = [...bigLists, ...w.sizes.filter((s) => s.bytes > MAX_RESPONSE)];
  t.ok(w.problems.length === 0, `no console errors or failed requests ${w.problems.join(' | ')}`);
  t.ok(big.length === 0, `no response over 1 MiB ${JSON.stringify(big)}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();
