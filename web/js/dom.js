// dom.js - the few DOM helpers every page uses: an element builder and the
// loading / empty / error states, so each page shows the same wording and
// roles (screen readers hear status changes through role="status"/"alert").

// h('a', {href: '/x', class: 'link'}, 'text', child) -> element. Attributes
// starting with "on" become listeners; null/false children are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// Replaces everything inside el with the given children.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function loading(what) {
  return h('p', { class: 'state state-loading', role: 'status' }, `Loading ${what}…`);
}

export function empty(text) {
  return h('p', { class: 'state state-empty', role: 'status' }, text);
}

export function failure(what, err) {
  return h('p', { class: 'state state-error', role: 'alert' }, `Could not load ${what}: ${err.message || err}`);
}

// A titled section of a page: returns {el, body} so callers fill the body.
export function section(title, ...extra) {
  const body = h('div', { class: 'section-body' });
  const el = h('section', { class: 'card' }, h('div', { class: 'section-head' }, h('h2', {}, title), ...extra), body);
  return { el, body };
}

// A canvas in a fixed-height box: Chart.js sizes itself to the box.
export function chartBox(label, height = 240) {
  const canvas = h('canvas', { role: 'img', 'aria-label': label });
  const box = h('div', { class: 'chart-box' }, canvas);
  // through the CSSOM: the server's CSP (style-src 'self') refuses a style attribute
  box.style.height = `${height}px`;
  return { box, canvas };
}

// A wrapper that scrolls a wide table sideways, for a table with nothing
// focusable in it: a keyboard user scrolls it by focusing the wrapper, which
// is named (label) so a screen reader says what got focus. A table with
// buttons or links needs no such stop: focusing those scrolls it.
export function scrollRegion(label, ...children) {
  return h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': label }, ...children);
}

// Runs the async fn; if it fails, the failure is shown in target instead
// (an abort is passed on: the page is going away or being reloaded).
export async function guard(target, what, fn) {
  try {
    await fn();
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    fill(target, failure(what, err));
  }
}
