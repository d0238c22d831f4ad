// table.js - a sortable, filterable table: headers are buttons (keyboard and
// screen reader friendly, aria-sort tells the order), the filter matches a
// text per row, and only the body is rebuilt when either changes. Sorting and
// filtering run over every row, but only the first pageSize rows are put in
// the page until asked for more: laying out a thousand-row table costs the
// browser far more than sorting it, and the rows that matter (the worst
// hosts, the filter's matches) come first.
import { h } from './dom.js';

// columns: [{key, label, value(row) -> sort key, render(row) -> node|string, num, wrap}]
// opts: {caption, sort, dir ('asc'|'desc'), text(row) -> filter text, onSort(key, dir), emptyText}
export function dataTable(columns, opts) {
  let rows = [], filter = '', sort = opts.sort, dir = opts.dir || 'asc';
  const pageSize = opts.pageSize || 100;
  let limit = pageSize;
  const tbody = h('tbody');
  const countText = h('span', { role: 'status' });
  const more = h('button', { type: 'button', class: 'more' });
  const all = h('button', { type: 'button', class: 'more' });
  const count = h('p', { class: 'table-count' }, countText, ' ', more, ' ', all);
  more.addEventListener('click', () => { limit += pageSize; draw(); });
  all.addEventListener('click', () => { limit = Infinity; draw(); });
  const heads = columns.map((c) => {
    const btn = h('button', { type: 'button', class: 'sort' }, c.label);
    const th = h('th', { scope: 'col', class: c.num ? 'num' : null }, btn);
    btn.addEventListener('click', () => {
      dir = sort === c.key && dir === 'asc' ? 'desc' : 'asc';
      if (sort !== c.key) dir = c.num ? 'desc' : 'asc';
      sort = c.key;
      limit = pageSize;
      if (opts.onSort) opts.onSort(sort, dir);
      draw();
    });
    return { c, th };
  });
  const table = h('table', { class: 'data' },
    opts.caption ? h('caption', {}, opts.caption) : null,
    h('thead', {}, h('tr', {}, heads.map((x) => x.th))), tbody);

  function draw() {
    for (const { c, th } of heads) {
      if (c.key === sort) th.setAttribute('aria-sort', dir === 'asc' ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
    const needle = filter.trim().toLowerCase();
    let shown = needle ? rows.filter((r) => opts.text(r).toLowerCase().includes(needle)) : rows.slice();
    const col = columns.find((c) => c.key === sort);
    if (col) {
      const key = col.value || ((r) => r[col.key]);
      const sign = dir === 'asc' ? 1 : -1;
      shown.sort((a, b) => {
        const x = key(a), y = key(b);
        // rows without a value sort last whatever the direction
        if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
        if (y === null || y === undefined) return -1;
        return (typeof x === 'string' ? x.localeCompare(y) : x - y) * sign;
      });
    }
    const frag = document.createDocumentFragment();
    for (const r of shown.slice(0, limit)) {
      const tr = document.createElement('tr');
      if (opts.rowClass) tr.className = opts.rowClass(r) || '';
      for (const c of columns) {
        const td = document.createElement('td');
        if (c.num) td.className = 'num';
        else if (c.wrap) td.className = 'wrap';
        const v = c.render ? c.render(r) : r[c.key];
        if (v instanceof Node) td.append(v); else td.textContent = v ?? '–';
        tr.append(td);
      }
      frag.append(tr);
    }
    if (!shown.length) {
      const td = h('td', { colspan: columns.length, class: 'state state-empty' }, rows.length ? 'No row matches the filter.' : (opts.emptyText || 'Nothing here yet.'));
      frag.append(h('tr', {}, td));
    }
    tbody.replaceChildren(frag);
    const n = Math.min(limit, shown.length);
    countText.textContent = (n < shown.length ? `Showing ${n} of ${shown.length}` : `${shown.length}`) +
      (needle ? ` matching, ${rows.length} in total` : ' in total');
    more.hidden = all.hidden = n >= shown.length;
    more.textContent = `Show ${Math.min(pageSize, shown.length - n)} more`;
    all.textContent = `Show all ${shown.length}`;
  }

  return {
    el: h('div', { class: 'table-wrap' }, table, count),
    setRows(r) { rows = r; draw(); },
    setFilter(f) { filter = f; limit = pageSize; draw(); },
  };
}
