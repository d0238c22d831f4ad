// copy.js - a button that copies a text (a config line, an hwdb entry) and
// says so. The clipboard API needs a secure context; a plain-http dashboard
// on a LAN address is not one, so a hidden textarea is the fallback.
import { h } from './dom.js';

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return true; } catch { /* fall back */ }
  }
  const ta = h('textarea', { class: 'sr-only', readonly: true });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  ta.remove();
  return ok;
}

// text: a string or a function giving it at click time.
export function copyButton(text, label = 'Copy') {
  const said = h('span', { class: 'copy-said', role: 'status' });
  const btn = h('button', { type: 'button', class: 'copy' }, label);
  btn.addEventListener('click', async () => {
    const ok = await copyText(typeof text === 'function' ? text() : text);
    said.textContent = ok ? 'Copied' : 'Select the text and copy it by hand';
    setTimeout(() => { said.textContent = ''; }, 2000);
  });
  return h('span', { class: 'copy-wrap' }, btn, said);
}

// A read-only block of text with its copy button.
export function copyBlock(text, label) {
  return h('div', { class: 'copy-block' }, h('pre', { tabindex: 0 }, text), copyButton(text, label));
}
