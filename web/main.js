// Page script: starts the worker, shows the build, runs one forward pass on request and renders it.
const $ = (id) => document.getElementById(id);
const ui = {
  build: $('build'),
  version: $('version'),
  loadTime: $('load-time'),
  runTime: $('run-time'),
  run: $('run'),
  error: $('error'),
  results: $('results'),
  output: $('output'),
  weights: $('weights'),
};

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = false;
}
function clearError() {
  ui.error.hidden = true;
  ui.error.textContent = '';
}
const ms = (t) => (t < 1 ? `${t.toFixed(3)} ms` : `${t.toFixed(1)} ms`);

// ---- worker and request/response plumbing --------------------------------------------------
let worker;
const pending = new Map();
let nextId = 1;

function failAll(message) {
  for (const { reject } of pending.values()) reject(new Error(message));
  pending.clear();
}

function startWorker() {
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker = w;
  w.onmessage = (event) => {
    const msg = event.data;
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg);
    else p.reject(Object.assign(new Error(msg.error), { name: msg.name }));
  };
  w.onerror = (event) => {
    // Fires when the worker or one of its imports fails to load or throws outside a request.
    event.preventDefault();
    w.terminate();
    if (worker === w) worker = null; // the next request starts a fresh worker
    const where = event.filename ? ` (${event.filename}${event.lineno ? ':' + event.lineno : ''})` : '';
    failAll(`The worker failed${where}: ${event.message || 'could not load worker.js or lib/attention.mjs'}`);
  };
  w.onmessageerror = () => failAll('A message from the worker could not be read.');
}

function request(type) {
  const id = nextId++;
  if (!worker) startWorker();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, type });
  });
}

// ---- rendering ----------------------------------------------------------------------------
function el(tag, props = {}, children = []) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const c of children) e.append(c);
  return e;
}

// A table with a header row of column labels and a label cell per row.
// cell(i, j, td) fills one cell.
function table(rows, cols, { rowLabel, colLabel, corner = '', caption, cell }) {
  const head = el('tr', {}, [el('th', { scope: 'col', textContent: corner })]);
  for (let j = 0; j < cols; j++) head.append(el('th', { scope: 'col', textContent: colLabel(j) }));
  const body = el('tbody');
  for (let i = 0; i < rows; i++) {
    const tr = el('tr', {}, [el('th', { scope: 'row', textContent: rowLabel(i) })]);
    for (let j = 0; j < cols; j++) {
      const td = el('td');
      cell(i, j, td);
      tr.append(td);
    }
    body.append(tr);
  }
  const t = el('table', {}, [el('thead', {}, [head]), body]);
  if (caption) t.setAttribute('aria-label', caption);
  return t;
}

function renderOutput(output, n, d) {
  ui.output.replaceChildren(
    table(n, d, {
      caption: 'Output matrix',
      corner: 'token',
      rowLabel: (i) => `t${i}`,
      colLabel: (j) => String(j),
      cell: (i, j, td) => {
        td.textContent = output[i * d + j].toFixed(3);
      },
    }),
  );
}

function renderWeights(weights, spec) {
  const { seqLen: n, nHeads: h, nKvHeads: g, causal } = spec;
  const perGroup = h / g;
  const figures = [];
  for (let head = 0; head < h; head++) {
    const base = head * n * n;
    const t = table(n, n, {
      caption: `Attention weights of head ${head}`,
      corner: 'q \\ k',
      rowLabel: (i) => `q${i}`,
      colLabel: (j) => `k${j}`,
      cell: (i, j, td) => {
        const w = weights[base + i * n + j];
        td.textContent = w.toFixed(2);
        td.title = `head ${head}: query ${i} → key ${j}: ${w.toFixed(4)}`;
        if (causal && j > i) {
          td.className = 'masked';
        } else {
          const a = Math.min(1, Math.max(0, w));
          td.style.backgroundColor = `rgba(var(--heat), ${(0.08 + 0.92 * a).toFixed(3)})`;
          if (a > 0.6) td.className = 'hot';
        }
      },
    });
    const caption = el('figcaption', {}, [
      `Head ${head} `,
      el('span', { textContent: `(key/value head ${Math.floor(head / perGroup)})` }),
    ]);
    figures.push(el('figure', {}, [caption, el('div', { className: 'scroll' }, [t])]));
  }
  ui.weights.replaceChildren(...figures);
}

function showInfo(msg) {
  const { info } = msg;
  const build = info.build || (info.simd ? 'simd' : 'scalar');
  ui.build.textContent =
    build === 'simd' ? 'SIMD (WebAssembly SIMD128, attention-simd.wasm)' : 'scalar (no SIMD, attention-scalar.wasm)';
  ui.version.textContent = info.version || '–';
  ui.loadTime.textContent = ms(msg.loadMs);
}

// ---- wiring --------------------------------------------------------------------------------
async function runForward() {
  ui.run.disabled = true;
  clearError();
  try {
    const msg = await request('forward');
    showInfo(msg);
    ui.runTime.textContent = `${ms(msg.ms)} (in the worker, after loading)`;
    renderOutput(msg.output, msg.spec.seqLen, msg.spec.dModel);
    if (msg.weights) renderWeights(msg.weights, msg.spec);
    else ui.weights.replaceChildren(el('p', { className: 'note', textContent: 'No weights returned.' }));
    ui.results.hidden = false;
  } catch (err) {
    showError(`Forward pass failed: ${err.name && err.name !== 'Error' ? err.name + ': ' : ''}${err.message}`);
  } finally {
    ui.run.disabled = false;
  }
}

async function init() {
  try {
    startWorker();
  } catch (err) {
    ui.build.textContent = 'not available';
    showError(`Could not start the worker: ${err.message}`);
    return;
  }
  ui.run.addEventListener('click', runForward);
  try {
    showInfo(await request('info'));
  } catch (err) {
    ui.build.textContent = 'failed to load';
    showError(`Loading the core failed: ${err.message}`);
  } finally {
    ui.run.disabled = false; // a click retries the load
  }
}

init();
