// submit.js - upload a resctl-bench result (JSON or gzip, as resctl-bench
// wrote it) or a schedio bench result (schedio bench --output, a quick
// bench) by drag and drop or the file picker, with upload progress, then
// show what the server parsed from it or the server's refusal in its words.
// Several files can be dropped at once; they go one after the other.
import * as api from '../api.js';
import * as fmt from '../format.js';
import { h, fill } from '../dom.js';

function describe(file, res) {
  const b = res.body || {};
  if (res.status === 200 || res.status === 201) {
    const link = h('a', { href: `/ssd?model=${encodeURIComponent(api.ssdModelId(b.model))}` }, b.model || 'the model');
    return h('div', { class: 'result ok', role: 'status' },
      h('h3', {}, `${file.name}: ${b.duplicate ? 'already in the database' : 'stored'}`),
      h('dl', { class: 'facts' },
        h('dt', {}, 'Result id'), h('dd', { class: 'mono' }, b.id || '–'),
        h('dt', {}, 'Model'), h('dd', {}, link),
        h('dt', {}, 'Firmware'), h('dd', {}, b.fwrev || '–'),
        h('dt', {}, 'Kind'), h('dd', {}, b.kind === 'quick' ? 'quick bench (schedio bench): io.cost model only' : 'full resctl-bench run'),
        h('dt', {}, 'Bench version'), h('dd', {}, b.bench_version || '–'),
        h('dt', {}, 'Solutions'), h('dd', {}, (b.solutions || []).join(', ') || 'none')));
  }
  const why = {
    401: 'This server needs a submit token: paste one above (schedio-server token add --scope submit NAME).',
    413: 'The file is larger than the server accepts.',
    429: 'Too many submissions from this address: wait a minute and try again.',
  }[res.status];
  return h('div', { class: 'result error', role: 'alert' },
    h('h3', {}, `${file.name}: refused (HTTP ${res.status})`),
    h('p', {}, b.error || 'The server gave no reason.'),
    why ? h('p', { class: 'muted' }, why) : null);
}

export function mount(ctx) {
  ctx.setTitle('Submit a result');
  const input = h('input', { type: 'file', id: 'file', accept: '.json,.gz,application/json,application/gzip', multiple: true, class: 'sr-only' });
  const pick = h('label', { for: 'file', class: 'button' }, 'Choose files…');
  const zone = h('div', { class: 'drop', id: 'drop' },
    h('p', {}, 'Drop resctl-bench result files (', h('code', {}, 'result-….json.gz'), ' or JSON) or schedio bench results (', h('code', {}, 'schedio bench --output FILE'), ') here, or '), input, pick);
  const token = h('input', { type: 'password', id: 'token', autocomplete: 'off', placeholder: 'only if the server asks for one', 'aria-label': 'Submit token' });
  const progress = h('progress', { id: 'progress', max: 1, value: 0, hidden: true, 'aria-label': 'Upload progress' });
  const progressText = h('span', { class: 'muted', role: 'status' });
  const out = h('div', { id: 'results' });

  async function send(files) {
    for (const file of files) {
      progress.hidden = false;
      progress.value = 0;
      progressText.textContent = `Sending ${file.name} (${fmt.bytes(file.size)})…`;
      let el;
      try {
        const res = await api.uploadResult(file, token.value.trim(), (f) => {
          progress.value = f;
          progressText.textContent = `Sending ${file.name}: ${fmt.pct(100 * f, 0)}`;
        });
        progress.value = 1;
        el = describe(file, res);
      } catch (err) {
        el = h('div', { class: 'result error', role: 'alert' }, h('h3', {}, `${file.name}: not sent`), h('p', {}, err.message));
      }
      out.prepend(el);
    }
    progressText.textContent = `Done: ${files.length} file${files.length === 1 ? '' : 's'}.`;
    progress.hidden = true;
  }

  input.addEventListener('change', () => {
    if (input.files.length) send([...input.files]);
    input.value = '';
  });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const files = [...(e.dataTransfer.files || [])];
    if (files.length) send(files);
  });

  fill(ctx.root, h('h1', {}, 'Submit a resctl-bench result'),
    h('p', { class: 'lead' }, 'Run ', h('code', {}, 'resctl-bench -r result.json.gz run iocost-tune'),
      ' on the SSD, then upload the result. The server reads the device model, firmware and the iocost solutions from it and adds it to the ',
      h('a', { href: '/ssd' }, 'SSD database'), '.'),
    h('p', {}, 'No six hours to spare? ', h('code', {}, 'schedio bench --output bench.json /dev/nvme0n1'),
      ' measures the io.cost model in minutes (a quick bench: no QoS); upload its file the same way, or send it with ',
      h('code', {}, '--submit'), '.'),
    zone,
    h('p', {}, h('label', { for: 'token' }, 'Submit token '), token),
    h('p', {}, progress, ' ', progressText),
    out);

  return { refresh() { return Promise.resolve(); }, destroy() {} };
}
