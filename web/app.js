// app.js - the dashboard's shell: a client-side router over plain ES module
// pages (the server answers index.html for any extension-less path, so every
// URL can be shared and reloaded), the time range picker, and auto-refresh.
//
// A page module exports mount(ctx) -> {refresh(signal), destroy()}. The shell
// calls refresh on arrival, when the time range changes and every 30 s (or
// ?refresh=N s) while a relative range is shown; each refresh gets a fresh AbortSignal and the
// previous one is aborted, so a slow answer never overwrites a newer one.
// When the first refresh has settled, <html data-state="ready"> and
// window.schedioReadyAt (ms since navigation start) say the page is usable.
import * as timerange from './js/timerange.js';
import { ChartSet } from './js/charts/base.js';
import { failure, fill, h } from './js/dom.js';
import * as token from './js/token.js';

const ROUTES = [
  { path: '/', nav: 'fleet', load: () => import('./js/pages/fleet.js') },
  { path: '/host', nav: 'fleet', load: () => import('./js/pages/host.js') },
  { path: '/experiments', nav: 'experiments', load: () => import('./js/pages/experiments.js') },
  { path: '/ssd', nav: 'ssd', timeless: true, load: () => import('./js/pages/ssd.js') },
  { path: '/submit', nav: 'submit', timeless: true, load: () => import('./js/pages/submit.js') },
];

const root = document.getElementById('app');
let page = null, charts = null, controller = null, generation = 0;

async function refresh() {
  if (!page) return;
  if (controller) controller.abort();
  controller = new AbortController();
  const signal = controller.signal;
  try {
    await page.refresh(signal);
  } catch (err) {
    if (err.name !== 'AbortError') fill(root, failure('this page', err));
  }
}

async function show() {
  const gen = ++generation;
  document.documentElement.dataset.state = 'loading';
  if (controller) controller.abort();
  if (page) page.destroy();
  if (charts) charts.destroyAll();
  page = null;
  rangeControl.sync();
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const route = ROUTES.find((r) => r.path === path);
  for (const a of document.querySelectorAll('nav a'))
    if (a.dataset.nav === (route && route.nav)) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  root.replaceChildren();
  rangeControl.el.hidden = !!(route && route.timeless); // pages without time series
  if (!route) {
    fill(root, failure('this page', new Error(`there is no page at ${path}`)));
    document.documentElement.dataset.state = 'ready';
    return;
  }
  const mod = await route.load();
  if (gen !== generation) return;
  charts = new ChartSet();
  page = mod.mount({
    root,
    charts,
    params: new URLSearchParams(location.search),
    range: () => timerange.current(),
    setTitle: (t) => { document.title = t ? `${t} · schedio` : 'schedio'; },
    setParams: timerange.setParams,
  });
  await refresh();
  if (gen !== generation) return;
  document.documentElement.dataset.state = 'ready';
  window.schedioReadyAt = performance.now();
}

// Same-origin links to pages go through the router; downloads, API links
// and modified clicks (new tab) keep their normal behaviour.
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const u = new URL(a.href, location.href);
  if (u.origin === location.origin && u.pathname.startsWith('/api/') && a.hasAttribute('download') && token.current()) {
    e.preventDefault();
    token.download(a).catch((err) => a.after(h('span', { class: 'state-error', role: 'alert' }, ` ${err.message}`)));
    return;
  }
  if (u.origin !== location.origin || a.hasAttribute('download') || a.target || u.pathname.startsWith('/api/')) return;
  e.preventDefault();
  if (u.pathname + u.search !== location.pathname + location.search) history.pushState(null, '', u.pathname + u.search + u.hash);
  show();
});
window.addEventListener('popstate', show);

const rangeControl = timerange.control(refresh);
document.getElementById('range-slot').replaceWith(rangeControl.el);

// Auto-refresh: while a relative range is shown, the page is visible and
// the last refresh has settled (a slow server is not piled up on).
let refreshing = false;
function tick() {
  const r = timerange.current();
  setTimeout(tick, r.every);
  if (!r.live || !r.refresh || refreshing || document.visibilityState !== 'visible' || document.documentElement.dataset.state !== 'ready') return;
  refreshing = true;
  refresh().finally(() => { refreshing = false; });
}
setTimeout(tick, timerange.current().every);

fetch('/healthz').then((r) => r.json()).then((hz) => {
  document.getElementById('version').textContent = `server ${hz.version}`;
}).catch(() => { /* the pages say it when the server is unreachable */ });

show();
