// timerange.js - the time range every chart shows, kept in the URL so a view
// can be shared: ?range=1h (presets 15m .. 30d, relative to now and
// auto-refreshed) or ?from=MS&to=MS (a fixed custom window, not refreshed).
// ?refresh=0 turns auto-refresh off, ?refresh=N refreshes every N >= 5 s.
import { h } from './dom.js';
import { localInput } from './format.js';

export const PRESETS = [
  ['15m', 15 * 60e3, 'Last 15 minutes'],
  ['1h', 3600e3, 'Last hour'],
  ['6h', 6 * 3600e3, 'Last 6 hours'],
  ['24h', 86400e3, 'Last 24 hours'],
  ['7d', 7 * 86400e3, 'Last 7 days'],
  ['30d', 30 * 86400e3, 'Last 30 days'],
];
export const DEFAULT_RANGE = '1h';
export const REFRESH_MS = 30e3;

// The range the URL asks for, resolved against the current time.
export function current(search = location.search) {
  const p = new URLSearchParams(search);
  const from = Number(p.get('from')), to = Number(p.get('to'));
  const refresh = p.get('refresh') !== '0';
  const every = Math.max(5, Number(p.get('refresh')) || REFRESH_MS / 1000) * 1000;
  if (from > 0 && to > from)
    return { key: 'custom', from, to, span: to - from, live: false, refresh: false, every };
  const preset = PRESETS.find(([k]) => k === p.get('range')) || PRESETS.find(([k]) => k === DEFAULT_RANGE);
  const now = Date.now();
  return { key: preset[0], from: now - preset[1], to: now, span: preset[1], live: true, refresh, every };
}

// Changes some URL query parameters in place (no new history entry).
export function setParams(changes) {
  const u = new URL(location.href);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === undefined || v === '') u.searchParams.delete(k);
    else u.searchParams.set(k, String(v));
  }
  history.replaceState(history.state, '', u.pathname + u.search);
}

// The picker in the page header. onChange() is called after the URL changed.
export function control(onChange) {
  const r = current();
  const select = h('select', { id: 'range', 'aria-label': 'Time range' },
    PRESETS.map(([k, , label]) => h('option', { value: k, selected: k === r.key }, label)),
    h('option', { value: 'custom', selected: r.key === 'custom' }, 'Custom…'));
  const fromIn = h('input', { type: 'datetime-local', id: 'range-from', 'aria-label': 'From', value: localInput(r.from) });
  const toIn = h('input', { type: 'datetime-local', id: 'range-to', 'aria-label': 'To', value: localInput(r.to) });
  const apply = h('button', { type: 'button' }, 'Apply');
  const custom = h('span', { class: 'range-custom', hidden: r.key !== 'custom' }, fromIn, toIn, apply);
  const refresh = h('input', { type: 'checkbox', id: 'refresh', checked: r.refresh, disabled: r.key === 'custom' });

  select.addEventListener('change', () => {
    if (select.value === 'custom') {
      custom.hidden = false;
      fromIn.focus();
      return;
    }
    custom.hidden = true;
    refresh.disabled = false;
    setParams({ range: select.value, from: null, to: null });
    onChange();
  });
  apply.addEventListener('click', () => {
    const from = new Date(fromIn.value).getTime(), to = new Date(toIn.value).getTime();
    if (!(from > 0 && to > from)) {
      toIn.setCustomValidity('The end must be after the start');
      toIn.reportValidity();
      return;
    }
    toIn.setCustomValidity('');
    refresh.disabled = true;
    setParams({ range: null, from, to });
    onChange();
  });
  refresh.addEventListener('change', () => {
    setParams({ refresh: refresh.checked ? null : '0' });
    onChange();
  });
  // A navigation may have changed the URL: show what it holds now.
  const sync = () => {
    const now = current();
    select.value = now.key;
    custom.hidden = now.key !== 'custom';
    fromIn.value = localInput(now.from);
    toIn.value = localInput(now.to);
    refresh.checked = now.refresh;
    refresh.disabled = now.key === 'custom';
  };
  const el = h('div', { class: 'range', role: 'group', 'aria-label': 'Time range and refresh' },
    select, custom,
    h('label', { class: 'refresh' }, refresh, ' Auto-refresh'));
  return { el, sync };
}
