// api.js - the dashboard's only door to the server: the JSON API under
// /api/v1 (contract in notes/api.md and schema/openapi.yaml). Errors carry
// the server's own words ({"error": ...}) so pages can show them as they are.

import * as token from './token.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function url(path, params) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(params || {}))
    if (v !== null && v !== undefined && v !== '') u.searchParams.set(k, String(v));
  return u.pathname + u.search;
}

async function errorOf(res) {
  let text = '';
  try {
    const body = await res.text();
    try { text = JSON.parse(body).error || body; } catch { text = body; }
  } catch { /* no body */ }
  return new ApiError(res.status, `${text || res.statusText || 'request failed'} (HTTP ${res.status})`);
}

// A read, with the read token when there is one (token.js); refused for want
// of one (401, or 403 for a token of another scope), it asks and tries again.
async function get(path, params, signal) {
  for (;;) {
    const sent = token.current();
    const headers = { Accept: 'application/json', ...(sent ? { Authorization: `Bearer ${sent}` } : {}) };
    let res;
    try {
      res = await fetch(url(path, params), { signal, headers });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, 'the server cannot be reached');
    }
    if (res.ok) return res;
    const err = await errorOf(res);
    if ((res.status === 401 || (res.status === 403 && sent)) && !signal?.aborted && await token.renew(sent, err.message))
      continue;
    throw err;
  }
}

export async function getJson(path, params, signal) {
  return (await get(path, params, signal)).json();
}

export async function getText(path, params, signal) {
  const res = await get(path, params, signal);
  return { text: await res.text(), headers: res.headers };
}

const enc = encodeURIComponent;

export const hosts = (signal) => getJson('/api/v1/hosts', null, signal);
export const host = (id, signal) => getJson(`/api/v1/hosts/${enc(id)}`, null, signal);
export const hostRunqlat = (id, params, signal) => getJson(`/api/v1/hosts/${enc(id)}/runqlat`, params, signal);
export const hostIocost = (id, params, signal) => getJson(`/api/v1/hosts/${enc(id)}/iocost`, params, signal);
export const fleetRunqlat = (params, signal) => getJson('/api/v1/fleet/runqlat', params, signal);
// Issue 17: sched_ext health, work conservation per L3 domain and the agent's
// own cost over a range (params: {from, to}; the server's default is the last hour).
export const hostHealth = (id, params, signal) => getJson(`/api/v1/hosts/${enc(id)}/health`, params, signal);
export const fleetHealth = (params, signal) => getJson('/api/v1/fleet/health', params, signal);
// Issue 15: is arm A better than B? params: {a, b, metric, from, to,
// a_from, a_to, b_from, b_to, cgroup, threshold} (schema/openapi.yaml).
export const compare = (params, signal) => getJson('/api/v1/compare', params, signal);
// Saved experiments: the list with each one's verdict computed now, one
// saved (POST) and one deleted (DELETE), both with a token of scope admin.
// saveExperiment and deleteExperiment resolve {status, body} for any HTTP
// answer (body {} when there is none, as for 204), so the page can say why
// the server refused.
export const experiments = (signal) => getJson('/api/v1/experiments', null, signal);
async function adminSend(method, path, token, payload) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: { Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json' } : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: payload ? JSON.stringify(payload) : undefined,
    });
  } catch {
    throw new ApiError(0, 'the server cannot be reached');
  }
  const text = await res.text();
  let body = {};
  if (text) try { body = JSON.parse(text); } catch { body = { error: text }; }
  return { status: res.status, body };
}
export const saveExperiment = (definition, token) => adminSend('POST', '/api/v1/experiments', token, definition);
export const deleteExperiment = (id, token) => adminSend('DELETE', `/api/v1/experiments/${enc(id)}`, token, null);
// params: {q, limit, offset}; answers {models, total, next_offset} (next_offset null on the last page).
export const ssdModels = (params, signal) => getJson('/api/v1/ssd/models', params, signal);
export const ssdModel = (id, fwrev, signal) => getJson(`/api/v1/ssd/models/${enc(id)}`, { fwrev }, signal);
export const ssdResult = (id, signal) => getJson(`/api/v1/ssd/results/${enc(id)}`, null, signal);
export const ssdConfig = (id, params, signal) => getText(`/api/v1/ssd/models/${enc(id)}/config`, params, signal);
export const ssdHwdb = (params, signal) => getText('/api/v1/ssd/hwdb', params, signal);
export const ssdResultFileUrl = (id) => `/api/v1/ssd/results/${enc(id)}/file`;
export const ssdHwdbUrl = '/api/v1/ssd/hwdb';

// The iocost-tune curves (result.data) of a stored result, read from its
// original file (gzip or plain JSON; gzip is inflated by the browser's own
// DecompressionStream). Resolves null when the file has none.
export async function ssdResultCurves(id, signal) {
  const res = await get(ssdResultFileUrl(id), null, signal);
  const buf = new Uint8Array(await res.arrayBuffer());
  let text;
  if (buf[0] === 0x1f && buf[1] === 0x8b) {
    const stream = new Blob([buf]).stream().pipeThrough(new DecompressionStream('gzip'));
    text = await new Response(stream).text();
  } else {
    text = new TextDecoder().decode(buf);
  }
  const jobs = JSON.parse(text);
  const tune = Array.isArray(jobs) && jobs.find((j) => j && j.spec && j.spec.kind === 'iocost-tune' && j.result && j.result.data);
  return tune ? tune.result.data : null;
}

// The SSD database names a model by its name with spaces as underscores
// (as upstream names its folders); the agents report the raw sysfs string.
export function ssdModelId(model) {
  return String(model || '').trim().replace(/\s+/g, '_');
}

// Uploads a resctl-bench result with XMLHttpRequest (fetch has no upload
// progress). Resolves {status, body} for any HTTP answer; rejects only when
// no answer came. onProgress(fraction) is called while the body is sent.
export function uploadResult(file, token, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/ssd/results');
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch { body = { error: xhr.responseText }; }
      resolve({ status: xhr.status, body });
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'the upload did not reach the server')));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'the upload was cancelled')));
    xhr.send(file);
  });
}
