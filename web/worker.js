// Module worker: loads the attention core and runs forward passes on request.
// Messages in:  { id, type: 'info' | 'forward' }
// Messages out: { id, ok: true, info, loadMs, ... } or { id, ok: false, error, name }
import { loadAttention } from './lib/attention.mjs';

// The forward pass this page checks.
const SPEC = {
  variant: 'gqa',
  seqLen: 6,
  dModel: 16,
  nHeads: 4,
  nKvHeads: 2,
  causal: true,
  returnWeights: true,
  seed: 42, // weights are drawn deterministically from the seed
};

// A small deterministic input: smooth, distinct rows in [-1, 1].
function makeInput(n, d) {
  const x = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) x[i * d + j] = Math.sin(0.9 * (i + 1) + 0.37 * j * (1 + (i % 3)));
  }
  return x;
}

let loading = null; // Promise<{ attn, loadMs }>
function core() {
  if (!loading) {
    const t0 = performance.now();
    loading = loadAttention().then(
      (attn) => ({ attn, loadMs: performance.now() - t0 }),
      (err) => {
        loading = null; // let a later request try again
        throw err;
      },
    );
  }
  return loading;
}

// Copy out of wasm memory (a view on it must not be cloned or transferred), as a transferable buffer.
const copy = (a) => (a ? Float32Array.from(a) : null);

self.onmessage = async (event) => {
  const { id, type } = event.data || {};
  try {
    const { attn, loadMs } = await core();
    const info = { ...attn.info };
    if (type === 'info') {
      self.postMessage({ id, ok: true, info, loadMs });
    } else if (type === 'forward') {
      const x = makeInput(SPEC.seqLen, SPEC.dModel);
      const t0 = performance.now();
      const result = attn.forward({ ...SPEC, x });
      const ms = performance.now() - t0;
      const output = copy(result.output);
      const weights = copy(result.weights);
      const transfer = [output.buffer];
      if (weights) transfer.push(weights.buffer);
      self.postMessage({ id, ok: true, info, loadMs, ms, spec: SPEC, output, weights }, transfer);
    } else {
      throw new Error(`unknown request type: ${type}`);
    }
  } catch (err) {
    self.postMessage({
      id,
      ok: false,
      name: (err && err.name) || 'Error',
      error: err && err.message ? err.message : String(err),
    });
  }
};
