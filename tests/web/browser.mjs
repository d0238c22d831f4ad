// browser.mjs - Debian's Chromium driven by playwright-core, and the checks
// every page test shares: no console errors, no Content-Security-Policy
// violation, no failed requests, no response over 1 MiB, every chart drawn
// (a Chart.js instance with data and a canvas with enough painted pixels),
// and a screenshot in light and dark.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// ESM ignores NODE_PATH: resolve playwright-core from the build's npm tree.
const require = createRequire(path.join(process.env.SCHEDIO_BUILD || '.', 'web-npm', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

export const MAX_RESPONSE = 1 << 20;
export const SHOTS = path.join(process.env.SCHEDIO_BUILD || os.tmpdir(), 'web-screenshots');

export async function launch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedio-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  // Every page reports what its CSP refused (the securitypolicyviolation
  // event) to the watcher of that page: the server's policy (issue 19) is
  // checked on every page every browser test opens.
  try {
    await ctx.exposeBinding('__schedioCspViolation', ({ page }, what) => {
      const w = watchers.get(page);
      if (w) w.problems.push(`CSP violation: ${what}`);
      else console.log(`# CSP violation on a page nobody watches: ${what}`);
    });
    await ctx.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        window.__schedioCspViolation(`${e.effectiveDirective} refused ${e.blockedURI || '(inline)'} at ${e.sourceFile || e.documentURI}:${e.lineNumber} ${e.sample || ''}`);
      });
    });
  } catch (err) {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    ctx,
    async close() {
      await ctx.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Watches a page: console errors, CSP violations, page errors, failed or
// 4xx/5xx requests and every response's size. allow(url) exempts expected
// refusals.
const watchers = new WeakMap();

export function watch(page, allow = () => false) {
  const w = { problems: [], sizes: [] };
  watchers.set(page, w);
  page.on('console', (m) => {
    if (m.type() === 'error' && !allow(m.location().url || '', m.text())) w.problems.push(`console error: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => w.problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    const why = r.failure() ? r.failure().errorText : '';
    if (why !== 'net::ERR_ABORTED' && !allow(r.url(), why)) w.problems.push(`request failed: ${r.url()} ${why}`);
  });
  page.on('requestfinished', async (r) => {
    const res = await r.response();
    if (!res) return;
    if (res.status() >= 400 && !allow(r.url(), String(res.status()))) w.problems.push(`HTTP ${res.status()}: ${r.url()}`);
    try {
      const s = await r.sizes();
      w.sizes.push({ url: r.url(), bytes: s.responseBodySize });
    } catch { /* page gone */ }
  });
  w.reset = () => { w.problems.length = 0; w.sizes.length = 0; };
  return w;
}

// Navigates and waits until the dashboard says the page is ready; returns
// the ms from navigation start to ready (window.schedioReadyAt).
export async function open(page, url) {
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => document.documentElement.dataset.state === 'ready', null, { timeout: 30000 });
  return page.evaluate(() => window.schedioReadyAt);
}

// Every canvas on the page: its chart, its data points and painted pixels.
export function charts(page) {
  return page.evaluate(() => [...document.querySelectorAll('canvas')].map((c) => {
    const chart = window.Chart.getChart(c);
    const points = chart ? chart.data.datasets.reduce((n, d) => n + (d.data || []).filter((v) => v !== null && v !== undefined).length, 0) : 0;
    let painted = 0;
    const w = c.width, h = c.height;
    if (w && h) {
      const px = c.getContext('2d').getImageData(0, 0, w, h).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) painted++;
    }
    return { label: c.getAttribute('aria-label'), chart: !!chart, points, painted, share: w && h ? painted / (w * h) : 0 };
  }));
}

// The page's state boxes: loading ones must be gone, error ones absent.
export function states(page) {
  return page.evaluate(() => ({
    loading: document.querySelectorAll('.state-loading').length,
    errors: [...document.querySelectorAll('.state-error')].map((e) => e.textContent),
  }));
}

export async function screenshot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  // the whole page, but at most 3000 px tall (the fleet table runs long)
  const height = await page.evaluate(() => { window.scrollTo(0, 0); return document.documentElement.scrollHeight; });
  const width = page.viewportSize().width;
  await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, 3000) } });
  return file;
}

// A tiny test runner: named checks, failures collected, exit code set.
export function checker() {
  const failures = [];
  return {
    ok(cond, what) {
      if (cond) console.log(`ok - ${what}`);
      else { console.log(`not ok - ${what}`); failures.push(what); }
    },
    done() {
      if (failures.length) {
        console.log(`# ${failures.length} check(s) failed`);
        process.exitCode = 1;
      } else console.log('# all checks passed');
    },
  };
}
