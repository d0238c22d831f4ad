// test_dashboard_speed.mjs - how fast the dashboard is usable, measured in
// Chromium against a real server: the fleet page with 1,000 hosts must be
// interactive (data loaded, table and charts drawn) in under 1.5 s, a host
// page over 24 h in under 1 s, and no response a page asks for may exceed
// 1 MiB. "Ready" is the dashboard's own mark (window.schedioReadyAt, ms from
// navigation start to the first refresh settled); the median of 5 loads
// counts, after one warm-up load (browser module cache, server page cache);
// a median past its limit is measured once more, and the better one counts.
// In the sanitizer build the figures are printed but the time limits are not
// held (ASan/UBSan make the server several times slower by design); the
// size limit holds everywhere.
import { filledServer, requireData } from './fixture.mjs';
import { launch, watch, open, checker, MAX_RESPONSE } from './browser.mjs';

const RUNS = 5;
const TIMED = process.env.SCHEDIO_SANITIZE !== '1';
requireData();
const t = checker();
const srv = await filledServer({ fleet: 1000 });
const browser = await launch().catch(async (err) => { await srv.stop(); throw err; });
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

async function measure(name, url, limitMs, check, baseline) {
  const page = await browser.ctx.newPage();
  const w = watch(page);
  await open(page, url); // warm-up
  const loads = async () => {
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      times.push(await open(page, url));
      if (check) await check(page);
    }
    return times;
  };
  let times = await loads();
  // A median past the limit is measured once more before it counts: on a
  // shared 2-core machine a burst of other work can slow all five loads
  // (CI once saw this page at 1.5x its usual time). A page that is really
  // too slow misses both times; both medians are printed.
  if (TIMED && limitMs !== null && median(times) >= limitMs) {
    const again = await loads();
    console.log(`# ${name}: median ${median(times).toFixed(0)} ms missed ${limitMs} ms; measured again: ${median(again).toFixed(0)} ms`);
    if (median(again) < median(times)) times = again;
  }
  const largest = w.sizes.reduce((a, s) => (s.bytes > a.bytes ? s : a), { bytes: 0, url: '' });
  const m = median(times);
  const ratio = baseline ? `, ${(m / baseline).toFixed(2)}x the empty page` : '';
  console.log(`# ${name}: ready median ${m.toFixed(0)} ms (runs ${times.map((x) => x.toFixed(0)).join(', ')} ms${ratio}), limit ${limitMs ?? 'none'} ms; largest response ${largest.bytes} bytes (${largest.url.replace(srv.url, '')})`);
  if (limitMs === null) {
    await page.close();
    return { median: m, largest };
  }
  if (TIMED) t.ok(m < limitMs, `${name}: interactive in ${m.toFixed(0)} ms (< ${limitMs} ms)`);
  else console.log(`# ${name}: time limit not held in the sanitizer build`);
  t.ok(largest.bytes <= MAX_RESPONSE, `${name}: largest response ${largest.bytes} bytes (<= 1 MiB)`);
  t.ok(w.problems.length === 0, `${name}: no console errors or failed requests ${w.problems.join(' | ')}`);
  await page.close();
  return { median: m, largest };
}

try {
  // the baseline: the Submit page loads the shell, the modules and Chart.js but asks for no data
  const base = await measure('empty page (baseline)', `${srv.url}/submit`, null);
  const fleet = await measure('fleet page, 1000 hosts', `${srv.url}/?range=1h`, 1500, async (page) => {
    // the table sorts and filters all hosts and lays out the first page of them (the hosts
    // table is the page's first; the agent cost table below it has a count of its own)
    const count = await page.locator('.table-count').first().textContent();
    const total = Number((/(\d+) in total/.exec(count) || /of (\d+)/.exec(count) || [])[1]);
    if (!(total >= 1000)) throw new Error(`fleet table counts ${count}, not 1000+ hosts`);
  }, base.median);
  const host = await measure('host page, 24 h', `${srv.url}/host?id=${srv.history.id}&range=24h`, 1000, async (page) => {
    const drawn = await page.evaluate(() => !!window.Chart.getChart(document.querySelector('canvas')));
    if (!drawn) throw new Error('host page drew no heatmap');
  }, base.median);
  console.log(`# SUMMARY empty_page_ready_ms=${base.median.toFixed(0)} fleet_1000_hosts_ready_ms=${fleet.median.toFixed(0)} host_24h_ready_ms=${host.median.toFixed(0)} largest_response_bytes=${Math.max(fleet.largest.bytes, host.largest.bytes)}`);
} finally {
  await browser.close();
  await srv.stop();
}
t.done();
