// token.js - the read token, for a server that needs one (--require-read-token,
// the default off loopback). When an API read answers 401 (or 403 for a token
// of another scope), the dashboard asks once in a modal dialog; the token is
// kept for the browser session (sessionStorage, never localStorage) and api.js
// sends it on every call. Concurrent reads share one prompt.
import { h } from './dom.js';

const KEY = 'schedio.readToken';
let pending = null, declined = false; // declined: the user cancelled; this page load asks no more

export function current() {
  try { return sessionStorage.getItem(KEY) || ''; } catch { return ''; }
}

function keep(token) {
  try { sessionStorage.setItem(KEY, token); } catch { /* private mode: this page only */ }
}

// Shows the dialog; resolves the token entered, or '' when the user gives up.
function prompt(why) {
  const input = h('input', { type: 'password', id: 'read-token', autocomplete: 'off', required: '', 'aria-describedby': 'read-token-why' });
  const dlg = h('dialog', { class: 'token-dialog', 'aria-labelledby': 'read-token-title' },
    h('form', { method: 'dialog' },
      h('h2', { id: 'read-token-title' }, 'This server needs a read token'),
      h('p', { id: 'read-token-why' }, why, ' Ask its operator for a token of scope read ',
        h('code', {}, 'schedio-server token add --scope read NAME'), '.'),
      h('p', {}, h('label', { for: 'read-token' }, 'Read token '), input),
      h('p', { class: 'token-actions' },
        h('button', { type: 'submit', value: 'ok' }, 'Use this token'),
        h('button', { type: 'button', value: 'cancel', onclick: () => dlg.close('cancel') }, 'Cancel'))));
  document.body.append(dlg);
  return new Promise((resolve) => {
    dlg.addEventListener('close', () => {
      const t = dlg.returnValue === 'ok' ? input.value.trim() : '';
      dlg.remove();
      resolve(t);
    }, { once: true });
    dlg.showModal();
    input.focus();
  });
}

// After a read was refused with `sent` as its token (why: the server's words):
// true when there is a new token to try, false when the user gave up.
export async function renew(sent, why) {
  if (pending) await pending;
  else if (current() === sent && !declined) {
    pending = prompt(why).then((t) => { if (t) keep(t); else declined = true; }).finally(() => { pending = null; });
    await pending;
  }
  return current() !== '' && current() !== sent;
}

// A download link under /api/ cannot send the token itself: the file is
// fetched with it and saved from memory under the link's own file name.
export async function download(a) {
  const res = await fetch(a.href, { headers: { Authorization: `Bearer ${current()}` } });
  if (!res.ok) throw new Error(`download refused (HTTP ${res.status})`);
  const blob = URL.createObjectURL(await res.blob());
  const save = h('a', { href: blob, download: a.getAttribute('download') || new URL(a.href).pathname.split('/').pop(), hidden: true });
  document.body.append(save);
  save.click();
  save.remove();
  setTimeout(() => URL.revokeObjectURL(blob), 60000);
}
