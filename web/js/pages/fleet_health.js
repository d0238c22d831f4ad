// fleet_health.js - the fleet page's issue 17 parts: the hosts whose sched_ext
// scheduler was ejected in the range (with the kernel's reason, each linking
// to its host page), and what the agents themselves cost, fleet-wide and per
// host, against the budgets the server returns (BENCHMARKS.md's figures).
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill, empty, failure, section } from '../dom.js';
import { dataTable } from '../table.js';
import { exitKind, pct3 } from '../health.js';

const hostLink = (r) => h('a', { href: `/host?id=${encodeURIComponent(r.host_id)}` }, r.hostname || r.host_id);

// A value against its budget: the value, then a badge saying within or over.
function against(value, budget, format, what) {
  if (value === null || value === undefined || !Number.isFinite(value)) return h('span', {}, '–');
  if (!(budget > 0)) return h('span', {}, format(value));
  const over = value > budget;
  return h('span', {}, format(value), ' ',
    h('span', { class: `badge ${over ? 'warn' : 'ok'}`, title: `${what} budget: ${format(budget)}` }, over ? 'over budget' : 'within',
      h('span', { class: 'sr-only' }, ` (${what} budget ${format(budget)})`)));
}

const cpuPct = (share) => pct3(100 * share);

// Hosts listed by name; a fleet-wide incident would bury the page otherwise.
const MAX_EJECTED = 20;

// The ejected hosts, most ejections first.
function ejectionList(hosts) {
  const ejected = hosts.filter((x) => x.ejections > 0).sort((a, b) => b.ejections - a.ejections || (b.last_exit?.t_ms ?? 0) - (a.last_exit?.t_ms ?? 0));
  if (!ejected.length) return empty('No host\'s sched_ext scheduler was ejected in this time range.');
  const more = ejected.length - MAX_EJECTED;
  const list = h('ul', { class: 'ejections', id: 'fleet-ejections' }, ejected.slice(0, MAX_EJECTED).map((x) => {
    const e = x.last_exit;
    return h('li', { dataset: { host: x.host_id } },
      hostLink(x), ' ', h('span', { class: 'badge err' }, `${x.ejections} ejection${x.ejections === 1 ? '' : 's'}`),
      e ? [' — last exit: ', h('strong', {}, e.ops || '?'), ` ${exitKind(e.kind).text} `, h('code', {}, e.kind || 'unknown'),
        ` at ${fmt.dateTime(e.t_ms)}: `, h('span', { class: 'exit-reason' }, e.reason || 'no reason given')] : null);
  }));
  return [h('p', { class: 'muted', role: 'status' }, `${fmt.count(ejected.length)} host${ejected.length === 1 ? '' : 's'} had a scheduler ejected in this range.`), list,
    more > 0 ? h('p', { class: 'muted' }, `${fmt.count(more)} more not listed; the hosts table marks every one of them.`) : null];
}

// Returns {ejectSec, costSec, load(signal) -> the answer or null, ejections(id),
// lastExit(id)}: load fills both sections; ejections(id) and lastExit(id)
// are the host's figures once loaded.
export function fleetHealth(ctx) {
  const ejectSec = section('sched_ext ejections');
  ejectSec.el.id = 'fleet-health-ejections';
  const costSec = section('Agent cost');
  costSec.el.id = 'fleet-agent-cost';
  let byId = new Map();
  let budgets = {};
  const table = dataTable([
    { key: 'hostname', label: 'Host', value: (r) => r.hostname || r.host_id, render: hostLink },
    { key: 'agent_cpu_share', label: 'Agent CPU (of a core)', num: true, render: (r) => against(r.agent_cpu_share, budgets.agent_cpu_share, cpuPct, 'CPU') },
    { key: 'agent_rss_bytes', label: 'Agent memory', num: true, render: (r) => against(r.agent_rss_bytes, budgets.agent_rss_bytes, fmt.bytes, 'memory') },
    { key: 'bpf_cpu_share', label: 'BPF (of a core)', num: true, render: (r) => against(r.bpf_cpu_share, budgets.bpf_cpu_share, cpuPct, 'BPF') },
    { key: 'ejections', label: 'Ejections', num: true, render: (r) => fmt.count(r.ejections || 0) },
  ], {
    caption: 'What each host\'s agent cost over the range: its CPU and its BPF programs\' run time as a share of one core, its latest resident memory, against the budgets',
    sort: 'agent_cpu_share', dir: 'desc', pageSize: 10,
    text: (r) => [r.hostname, r.host_id].join(' '),
    emptyText: 'No agent reported its own cost in this range.',
  });
  const totals = h('dl', { class: 'facts', id: 'fleet-agent-totals' });

  async function load(signal) {
    const r = ctx.range();
    try {
      const resp = await api.fleetHealth({ from: Math.round(r.from), to: Math.round(r.to) }, signal);
      const hosts = resp.hosts || [];
      byId = new Map(hosts.map((x) => [x.host_id, x]));
      budgets = resp.budgets || {};
      fill(ejectSec.body, ejectionList(hosts));
      const t = resp.totals || {};
      const costed = hosts.filter((x) => Number.isFinite(x.agent_cpu_share) || Number.isFinite(x.agent_rss_bytes));
      if (!costed.length) {
        fill(costSec.body, empty('No agent reported its own cost in this time range.'));
        return resp;
      }
      const over = costed.filter((x) => (budgets.agent_cpu_share > 0 && x.agent_cpu_share > budgets.agent_cpu_share) ||
        (budgets.agent_rss_bytes > 0 && x.agent_rss_bytes > budgets.agent_rss_bytes)).length;
      fill(totals,
        h('dt', {}, 'Hosts'), h('dd', {}, `${fmt.count(t.hosts ?? hosts.length)} reporting, ${fmt.count(costed.length)} with figures of their agent's cost`),
        h('dt', {}, 'Agents\' CPU'), h('dd', {}, `${Number((t.agent_cpu_cores ?? 0).toPrecision(3))} cores in total`),
        h('dt', {}, 'Agents\' memory'), h('dd', {}, `${fmt.bytes(t.agent_rss_bytes)} in total`),
        h('dt', {}, 'BPF programs'), h('dd', {}, `${Number((t.bpf_cpu_cores ?? 0).toPrecision(3))} cores in total`),
        h('dt', {}, 'Budget per host'), h('dd', {}, [
          budgets.agent_cpu_share > 0 ? `CPU ${cpuPct(budgets.agent_cpu_share)} of a core` : null,
          budgets.agent_rss_bytes > 0 ? `memory ${fmt.bytes(budgets.agent_rss_bytes)}` : null,
          budgets.bpf_cpu_share > 0 ? `BPF ${cpuPct(budgets.bpf_cpu_share)} of a core` : null,
        ].filter(Boolean).join(', ') || 'none given'),
        h('dt', {}, 'Over budget'), h('dd', { id: 'fleet-agent-over' }, `${fmt.count(over)} of ${fmt.count(costed.length)} hosts`));
      if (!costSec.body.contains(table.el)) fill(costSec.body, totals, table.el);
      table.setRows(costed);
      return resp;
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      fill(ejectSec.body, failure('the ejections', err));
      fill(costSec.body, failure('the agent cost', err));
      return null;
    }
  }

  return { ejectSec, costSec, load, ejections: (id) => (byId.get(id) || {}).ejections || 0, lastExit: (id) => (byId.get(id) || {}).last_exit || null };
}
