// fixture.mjs - a real schedio-server for the browser tests, filled the way
// production fills it: a real agent's report, synthetic reports in the
// documented format for many hosts and for one host over a day, and every
// resctl-bench result of the shared data set submitted over HTTP.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { fleetHost, report } from './reports.mjs';

export const BIN = process.env.SCHEDIO_BIN;
export const BUILD = process.env.SCHEDIO_BUILD;
export const DATA = process.env.SCHEDIO_DATA;

export function need(cond, msg) {
  if (!cond) throw new Error(msg);
}

// The shared resctl-bench data is not part of the repository: without it
// (e.g. on a user's machine) the browser tests skip, saying why (ctest: 77).
export function requireData() {
  const root = path.join(DATA || '', 'resctl-bench');
  if (!DATA || !fs.existsSync(root)) {
    console.log(`# SKIP: the shared resctl-bench data is not at ${root} (set SCHEDIO_DATA)`);
    process.exit(77);
  }
}

// A server on 127.0.0.1:0 with a fresh database; resolves {url, stop, ...}.
// Without openSubmissions, submissions need the token (and are not rate limited).
// With readToken, reads need a token (--require-read-token): srv.readToken is
// one of scope read, srv.ingestToken one that must not read.
export async function startServer({ submitToken = true, openSubmissions = true, readToken = false } = {}) {
  need(BIN && fs.existsSync(path.join(BIN, 'schedio-server')), 'SCHEDIO_BIN must point at the built binaries (run through ctest)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schedio-web-'));
  const db = path.join(dir, 'schedio.db');
  const addToken = (scope, name) => {
    const r = spawnSync(path.join(BIN, 'schedio-server'), ['token', 'add', '--db', db, '--scope', scope, name], { encoding: 'utf8' });
    need(r.status === 0, `token add failed: ${r.stderr}`);
    return r.stdout.trim().split('\n').pop().trim();
  };
  // a submit token lifts the per-address limit of --open-submissions
  const token = submitToken ? addToken('submit', 'web-tests') : null;
  const reads = readToken ? { readToken: addToken('read', 'web-reader'), ingestToken: addToken('ingest', 'web-agent') } : {};
  const stderr = fs.openSync(path.join(dir, 'server.stderr'), 'w');
  const proc = spawn(path.join(BIN, 'schedio-server'),
    ['--listen', '127.0.0.1:0', '--db', db, '--open-ingest', ...(openSubmissions ? ['--open-submissions'] : []),
      ...(readToken ? ['--require-read-token'] : [])],
    { stdio: ['ignore', 'pipe', stderr] });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start in 20 s')), 20000);
    const lines = readline.createInterface({ input: proc.stdout });
    lines.on('line', (line) => {
      const m = /schedio-server listening on (http:\/\/\S+?)\/?$/.exec(line.trim());
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${fs.readFileSync(path.join(dir, 'server.stderr'), 'utf8').slice(-2000)}`));
    });
  });
  proc.removeAllListeners('exit');
  // never leave a server behind, whatever way the test ends
  const reap = () => { if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL'); };
  process.on('exit', reap);
  return {
    url, dir, db, token, proc, ...reads,
    async stop() {
      const done = new Promise((resolve) => proc.once('exit', (code, sig) => resolve(code ?? sig)));
      proc.kill('SIGTERM');
      const rc = await done;
      process.off('exit', reap);
      const log = fs.readFileSync(path.join(dir, 'server.stderr'), 'utf8');
      fs.rmSync(dir, { recursive: true, force: true });
      need(rc === 0, `server exited ${rc}: ${log.slice(-3000)}`);
    },
  };
}

// POSTs one report as the agent does (gzip JSON): a 503 (the server's writer is behind, e.g. a slow
// fsync on a busy machine) is sent again after its Retry-After, as the agent does, up to 10 times;
// throws on any other non-2xx.
export async function postReport(url, rep) {
  const body = zlib.gzipSync(JSON.stringify(rep), { level: 1 });
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${url}/api/v1/reports`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body,
    });
    const text = await res.text();
    if (res.status === 503 && attempt < 10) {
      const wait = Math.min(Number(res.headers.get('retry-after')) || 1, 5);
      await new Promise((done) => setTimeout(done, wait * 1000));
      continue;
    }
    need(res.ok, `POST /api/v1/reports (${rep.host.id} seq ${rep.seq}): ${res.status} ${text.slice(0, 300)}`);
    return;
  }
}

// Runs fn over items with at most `width` in flight.
export async function pool(items, width, fn) {
  let next = 0;
  const workers = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

// The real agent, once: `schedio-agent --once --duration 2 --server URL`.
export function runAgent(url) {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'schedio-agent-'));
  const r = spawnSync(path.join(BIN, 'schedio-agent'), ['--once', '--duration', '2', '--server', url, '--state-dir', state], { encoding: 'utf8', timeout: 60000 });
  fs.rmSync(state, { recursive: true, force: true });
  need(r.status === 0, `schedio-agent --once failed (${r.status}): ${r.stderr}`);
}

// n fleet hosts, each with two reports: one somewhere in the last hour and a
// recent one (a third of them older than 60 s, so that share is stale). Host 0's
// agent restarts in between: a new incarnation whose seq goes back to 1.
export async function postFleet(url, n, opts = {}) {
  const now = Date.now();
  const hosts = Array.from({ length: n }, (_, i) => fleetHost(i, opts));
  await pool(hosts, 8, async (h, i) => {
    const early = now - (5 + ((i * 37) % 55)) * 60e3;
    const life = (rep, incarnation) => (i === 0 ? { ...rep, agent: { ...rep.agent, incarnation } } : rep);
    await postReport(url, life(report(h, i === 0 ? 2 : 1, early - 60e3, early), 'a'.repeat(32)));
    const recent = now - ((i * 13) % 90) * 1000; // a third older than 60 s: stale
    // a 10 s interval (the agent's default): stale after 60 s without a report
    await postReport(url, i === 0 ? life(report(h, 1, recent - 10e3, recent), 'b'.repeat(32)) : report(h, 2, recent - 10e3, recent));
  });
  return hosts;
}

// One host with a report every `intervalMs` over the last `spanMs`.
export async function postHistory(url, index, spanMs, intervalMs, opts = {}) {
  const h = fleetHost(index, opts);
  h.id = `history-${index}`;
  h.hostname = `history-${index}.example`;
  const now = Date.now();
  const count = Math.floor(spanMs / intervalMs);
  const reps = Array.from({ length: count }, (_, k) => {
    const end = now - (count - 1 - k) * intervalMs;
    return () => report(h, k + 1, end - intervalMs, end);
  });
  // strictly in seq order: the server may take a lower seq for a replay
  for (const make of reps) await postReport(url, make());
  return h;
}

export function resultFiles() {
  const root = path.join(DATA || '', 'resctl-bench');
  need(DATA && fs.existsSync(root), `the shared resctl-bench data is missing at ${root}`);
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json.gz')) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

// Submits every shared resctl-bench result; returns the server's answers.
export async function postResults(url, token) {
  const answers = [];
  for (const file of resultFiles()) {
    const res = await fetch(`${url}/api/v1/ssd/results`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: fs.readFileSync(file),
    });
    const body = await res.json().catch(() => ({}));
    need(res.status === 201 || res.status === 200, `POST /api/v1/ssd/results ${path.basename(file)}: ${res.status} ${JSON.stringify(body)}`);
    answers.push({ file, ...body });
  }
  return answers;
}

// Everything the page tests need in one server.
export async function filledServer({ fleet = 1000, historySpan = 86400e3, historyInterval = 60e3, readToken = false } = {}) {
  const srv = await startServer({ readToken });
  try {
    const t0 = Date.now();
    runAgent(srv.url);
    const history = await postHistory(srv.url, 1, historySpan, historyInterval, { cgroups: 20 });
    const results = await postResults(srv.url, srv.token);
    // last: which fleet hosts are stale (no report for 60 s) is set from the time they are posted
    const hosts = await postFleet(srv.url, fleet, { cgroups: 20 });
    console.log(`# fixture: agent report, ${fleet} hosts x 2 reports, ${Math.floor(historySpan / historyInterval)} reports over ${historySpan / 3600e3} h for ${history.id}, ${results.length} SSD results in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return { ...srv, hosts, history, results };
  } catch (err) {
    await srv.stop().catch(() => {});
    throw err;
  }
}
