// errors.test.mjs: every kind of bad input throws an Error whose message names the field (and the
// value where there is one), with the class the JS API asks for (RangeError for a bad number,
// TypeError for a wrong type or a missing field), for both builds. Afterwards the module still
// returns the same results as before the errors.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, bitIdentical, load, randomArray, randomWeights } from './helpers.mjs';

const BASE = { variant: 'gqa', seqLen: 4, dModel: 32, nHeads: 4, nKvHeads: 2 };
const X = randomArray(4 * 32, 1);
const MLA = { variant: 'mla', seqLen: 4, dModel: 32, nHeads: 4, latentRank: 8, ropeDim: 4 };
const CAP = /cap|limit|maxWorkBytes|exceed|too (large|big)/i;

const withX = (x) => ({ ...BASE, x });
const without = (obj, key) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};
const poisoned = (arr, i, value) => {
  const copy = arr.slice();
  copy[i] = value;
  return copy;
};

/**
 * The mistakes: [label, (attn) => call, expected class (Error: any Error), patterns the message must
 * contain (strings literally, or regexps), the error's `field` (the path of the field the error is
 * about, the first one the message names; undefined for errors not about one field)].
 */
const CASES = [
  // sizes and their relations
  ['nHeads not divisible by nKvHeads', (a) => a.forward({ ...BASE, dModel: 24, nHeads: 6, nKvHeads: 4, x: randomArray(96, 2) }), RangeError, ['nHeads (6)', 'nKvHeads (4)'], 'nHeads'],
  ['seqLen 0', (a) => a.forward({ ...BASE, seqLen: 0, x: new Float32Array(0) }), RangeError, ['seqLen', /\b0\b/], 'seqLen'],
  ['negative seqLen', (a) => a.forward({ ...BASE, seqLen: -1, x: X }), RangeError, ['seqLen', '-1'], 'seqLen'],
  ['non-integer dModel', (a) => a.forward({ ...BASE, dModel: 32.5, x: X }), RangeError, ['dModel', '32.5'], 'dModel'],
  ['zero nHeads', (a) => a.forward({ ...BASE, nHeads: 0, x: X }), RangeError, ['nHeads', /\b0\b/], 'nHeads'],
  ['negative dHead', (a) => a.forward({ ...BASE, dHead: -8, x: X }), RangeError, ['dHead', '-8'], 'dHead'],
  ['non-integer nKvHeads', (a) => a.forward({ ...BASE, nKvHeads: 1.5, x: X }), RangeError, ['nKvHeads', '1.5'], 'nKvHeads'],
  ['NaN nHeads', (a) => a.forward({ ...BASE, nHeads: NaN, x: X }), RangeError, ['nHeads', 'NaN'], 'nHeads'],
  ['non-integer seed', (a) => a.forward({ ...BASE, seed: 1.5, x: X }), RangeError, ['seed', '1.5'], 'seed'],
  ['nHeads of the wrong type', (a) => a.forward({ ...BASE, nHeads: '4', x: X }), TypeError, ['nHeads'], 'nHeads'],
  ['missing seqLen', (a) => a.forward(without(withX(X), 'seqLen')), TypeError, ['seqLen'], 'seqLen'],
  ['missing dModel', (a) => a.forward(without(withX(X), 'dModel')), TypeError, ['dModel'], 'dModel'],
  ['missing nHeads', (a) => a.forward(without(withX(X), 'nHeads')), TypeError, ['nHeads'], 'nHeads'],
  ['GQA without nKvHeads', (a) => a.forward(without(withX(X), 'nKvHeads')), TypeError, ['nKvHeads'], 'nKvHeads'],
  ['MQA with 2 KV heads', (a) => a.forward({ ...BASE, variant: 'mqa', nKvHeads: 2, x: X }), RangeError, ['nKvHeads', /\b2\b/], 'nKvHeads'],
  ['dModel not divisible by nHeads without dHead', (a) => a.forward({ variant: 'mha', seqLen: 2, dModel: 30, nHeads: 4, x: randomArray(60, 3) }), RangeError, ['dModel', '30', 'nHeads', /\b4\b/], 'dModel'],
  ['a misspelt field (nKVHeads)', (a) => a.forward({ ...BASE, nKVHeads: 2, x: X }), TypeError, ['nKVHeads'], 'nKVHeads'],
  ['returnWeights not a boolean', (a) => a.forward({ ...BASE, returnWeights: 'yes', x: X }), TypeError, ['returnWeights'], 'returnWeights'],
  ['rope a string', (a) => a.forward({ ...BASE, rope: 'yes', x: X }), TypeError, ['rope'], 'rope'],
  // variant
  ['unknown variant', (a) => a.forward({ ...BASE, variant: 'mxa', x: X }), Error, ['variant', 'mxa'], 'variant'],
  ['missing variant', (a) => a.forward(without(withX(X), 'variant')), TypeError, ['variant'], 'variant'],
  // MLA and RoPE
  ['MLA without latentRank', (a) => a.forward({ ...without(MLA, 'latentRank'), x: X }), TypeError, ['latentRank'], 'latentRank'],
  ['MLA with an odd ropeDim', (a) => a.forward({ ...MLA, ropeDim: 3, x: X }), RangeError, ['ropeDim', /\b3\b/], 'ropeDim'],
  ['rope on an odd dHead', (a) => a.forward({ variant: 'mha', seqLen: 2, dModel: 12, nHeads: 4, rope: true, x: randomArray(24, 4) }), RangeError, [/dHead|rope/, /\b3\b/], 'dHead'],
  ['rope base not positive', (a) => a.forward({ ...BASE, rope: { base: -1 }, x: X }), RangeError, ['base', '-1'], 'rope.base'],
  ['rope base tiny (NaN output before; fuzzer find)', (a) => a.forward({ ...BASE, rope: { base: 1e-310 }, x: X }), RangeError, ['rope.base', '>= 1'], 'rope.base'],
  // x
  ['x of the wrong length', (a) => a.forward(withX(randomArray(120, 5))), Error, ['x has 120 elements', '128'], 'x'],
  ['missing x', (a) => a.forward(BASE), TypeError, [/\bx\b/], 'x'],
  ['x a string', (a) => a.forward(withX('abc')), TypeError, [/\bx\b/], 'x'],
  ['x a number', (a) => a.forward(withX(5)), TypeError, [/\bx\b/], 'x'],
  ['x null', (a) => a.forward(withX(null)), TypeError, [/\bx\b/], 'x'],
  ['NaN in x', (a) => a.forward(withX(poisoned(X, 5, NaN))), RangeError, [/\bx\b/, 'NaN'], 'x'],
  ['Infinity in x', (a) => a.forward(withX(poisoned(X, 7, Infinity))), RangeError, [/\bx\b/, /inf/i], 'x'],
  ['-Infinity in x', (a) => a.forward(withX(poisoned(X, 0, -Infinity))), RangeError, [/\bx\b/, /inf/i], 'x'],
  // weights
  ['NaN in wq', (a) => { const w = randomWeights(BASE, 1); w.wq[3] = NaN; return a.forward({ ...withX(X), weights: w }); }, RangeError, ['wq', 'NaN'], 'weights.wq'],
  ['Infinity in MLA wUk', (a) => { const w = randomWeights(MLA, 1); w.wUk[0] = Infinity; return a.forward({ ...MLA, x: X, weights: w }); }, RangeError, ['wUk', /inf/i], 'weights.wUk'],
  ['wk of the wrong length', (a) => { const w = randomWeights(BASE, 1); w.wk = randomArray(100, 6); return a.forward({ ...withX(X), weights: w }); }, Error, ['wk', '100'], 'weights.wk'],
  ['MLA wKr of the wrong length', (a) => { const w = randomWeights(MLA, 1); w.wKr = randomArray(10, 6); return a.forward({ ...MLA, x: X, weights: w }); }, Error, ['wKr', '10'], 'weights.wKr'],
  ['weights without wo', (a) => { const w = randomWeights(BASE, 1); delete w.wo; return a.forward({ ...withX(X), weights: w }); }, TypeError, ['wo'], 'weights.wo'],
  ['wq not an array', (a) => { const w = randomWeights(BASE, 1); w.wq = 'abc'; return a.forward({ ...withX(X), weights: w }); }, TypeError, ['wq'], 'weights.wq'],
  // the spec itself
  ['forward(null)', (a) => a.forward(null), TypeError, [], undefined],
  ['forward()', (a) => a.forward(), TypeError, [], undefined],
  ['forward(42)', (a) => a.forward(42), TypeError, [], undefined],
  ["forward('mha')", (a) => a.forward('mha'), TypeError, [], undefined],
  ['createSession(null)', (a) => a.createSession(null), TypeError, [], undefined],
  // sessions
  ['session without maxLen', (a) => a.createSession(without(BASE, 'seqLen')), TypeError, ['maxLen'], 'maxLen'],
  ['session maxLen 0', (a) => a.createSession({ ...without(BASE, 'seqLen'), maxLen: 0 }), RangeError, ['maxLen', /\b0\b/], 'maxLen'],
  ['session with MLA odd ropeDim', (a) => a.createSession({ ...without(MLA, 'seqLen'), ropeDim: 5, maxLen: 8 }), RangeError, ['ropeDim', /\b5\b/], 'ropeDim'],
  ['session append of the wrong width', (a) => withSession(a, (s) => s.append(randomArray(31, 7))), Error, [/\bx\b/, '31'], 'x'],
  ['session append of no tokens', (a) => withSession(a, (s) => s.append(new Float32Array(0))), Error, [/\bx\b|token/], 'x'],
  ['session append with NaN', (a) => withSession(a, (s) => s.append(poisoned(randomArray(64, 8), 33, NaN))), RangeError, [/\bx\b/, 'NaN'], 'x'],
  ['session append of a string', (a) => withSession(a, (s) => s.append('abc')), TypeError, [/\bx\b/], 'x'],
  // accounting
  ['kvCacheBytes with 0 layers', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 0, nHeads: 8, dHead: 64, seqLen: 1 }), RangeError, ['nLayers', /\b0\b/], 'nLayers'],
  ['kvCacheBytes with negative bytesPerElement', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 2, nHeads: 8, dHead: 64, seqLen: 1, bytesPerElement: -2 }), RangeError, ['bytesPerElement', '-2'], 'bytesPerElement'],
  ['kvCacheBytes without seqLen', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 2, nHeads: 8, dHead: 64 }), TypeError, ['seqLen'], 'seqLen'],
  ['kvCacheBytes GQA 6 heads 4 KV heads', (a) => a.kvCacheBytes({ variant: 'gqa', nLayers: 2, nHeads: 6, nKvHeads: 4, dHead: 64, seqLen: 1 }), RangeError, ['nHeads (6)', 'nKvHeads (4)'], 'nHeads'],
  ['paramCount with negative dModel', (a) => a.paramCount({ variant: 'mha', dModel: -64, nHeads: 8 }), RangeError, ['dModel', '-64'], 'dModel'],
  ['paramCount MLA without latentRank', (a) => a.paramCount({ variant: 'mla', dModel: 64, nHeads: 8 }), TypeError, ['latentRank'], 'latentRank'],
  // nested fields, training, other calls: error.field is the path
  ['rope with an unknown key', (a) => a.forward({ ...BASE, rope: { bass: 2 }, x: X }), TypeError, ['bass'], 'rope.bass'],
  ['weights with an unknown key', (a) => a.forward({ ...withX(X), weights: { ...randomWeights(BASE, 1), wz: X } }), TypeError, ['wz'], 'weights.wz'],
  ['session truncate to a non-integer', (a) => withSession(a, (s) => s.truncate(1.5)), RangeError, ['1.5'], 'n'],
  ['session truncate beyond its length', (a) => withSession(a, (s) => s.truncate(3)), RangeError, [/\b3\b/], 'n'],
  ['trainer model nHeads not dividing', (a) => a.createTrainer({ task: 'copy', model: { variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 3 } }), RangeError, ['nHeads (4)', 'nKvHeads (3)'], 'model.nHeads'],
  ['trainer model nHeads a string', (a) => a.createTrainer({ task: 'copy', model: { variant: 'mha', dModel: 32, nHeads: '4' } }), TypeError, ['nHeads'], 'model.nHeads'],
  ['trainer model unknown key', (a) => a.createTrainer({ task: 'copy', model: { variant: 'mha', dModel: 32, nHeads: 4, nLayer: 2 } }), TypeError, ['nLayer'], 'model.nLayer'],
  ['trainer model nLayers 9', (a) => a.createTrainer({ task: 'copy', model: { variant: 'mha', dModel: 32, nHeads: 4, nLayers: 9 } }), RangeError, ['nLayers', /\b9\b/], 'model.nLayers'],
  ['trainer model activation', (a) => a.createTrainer({ task: 'copy', model: { variant: 'mha', dModel: 32, nHeads: 4, activation: 'tanh' } }), RangeError, ['activation', 'tanh'], 'model.activation'],
  ['trainer without model', (a) => a.createTrainer({ task: 'copy' }), TypeError, ['model'], 'model'],
  ['trainer seqLen 1', (a) => a.createTrainer({ task: 'copy', seqLen: 1, model: { variant: 'mha', dModel: 32, nHeads: 4 } }), RangeError, ['seqLen', /\b1\b/], 'seqLen'],
  ['trainer unknown task', (a) => a.createTrainer({ task: 'sort', model: { variant: 'mha', dModel: 32, nHeads: 4 } }), RangeError, ['task', 'sort'], 'task'],
  ['trainer learningRate 0', (a) => a.createTrainer({ task: 'copy', learningRate: 0, model: { variant: 'mha', dModel: 32, nHeads: 4 } }), RangeError, ['learningRate', /\b0\b/], 'learningRate'],
  ['loadModel of a string', (a) => a.loadModel('abc'), TypeError, ['Uint8Array'], 'bytes'],
  ['recommend with a bad priority', (a) => a.recommend({ paramBudget: 1e8, seqLen: 1024, priority: 'speed' }), RangeError, ['priority', 'speed'], 'priority'],
  ['kvCacheBytes with an unknown key', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 2, nHeads: 8, dHead: 64, seqLen: 1, layers: 2 }), TypeError, ['layers'], 'layers'],
];

/** Runs `fn` on a fresh session (dModel 32, maxLen 8) and disposes it. */
function withSession(attn, fn) {
  const s = attn.createSession({ ...without(BASE, 'seqLen'), maxLen: 8 });
  try {
    return fn(s);
  } finally {
    s.dispose();
  }
}

/** Asserts that `fn` throws an instance of `Class` whose message contains every pattern. */
function assertThrowsNaming(fn, Class, patterns, label) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error !== undefined, `${label}: did not throw`);
  assert.ok(error instanceof Error, `${label}: threw a non-Error: ${String(error)}`);
  assert.ok(error instanceof Class, `${label}: threw ${error.name}, expected ${Class.name}: ${error.message}`);
  for (const p of patterns) {
    const ok = typeof p === 'string' ? error.message.includes(p) : p.test(error.message);
    assert.ok(ok, `${label}: the message does not contain ${p}: "${error.message}"`);
  }
  return error;
}

for (const { simd, name } of BUILDS) {
  describe(`errors (${name})`, () => {
    let attn;
    let before1; // results computed before any error
    const good = { ...BASE, x: X, causal: true, returnWeights: true, seed: 3 };
    const goodMla = { ...MLA, x: X, causal: true, returnWeights: true };
    before(async () => {
      attn = await load(simd);
      before1 = { gqa: attn.forward(good), mla: attn.forward(goodMla) };
    });

    for (const [label, fn, Class, patterns, field] of CASES) {
      test(label, () => {
        const error = assertThrowsNaming(() => fn(attn), Class, patterns, label);
        assert.equal(error.field, field, `${label}: error.field`);
      });
    }

    test('a forward pass above the work cap is refused with an Error naming the cap', () => {
      // returnWeights makes the result alone (H * N * N floats) larger than maxWorkBytes; x stays small.
      const H = 8;
      const N = Math.ceil(1.2 * Math.sqrt(attn.info.maxWorkBytes / (4 * H)));
      const spec = { variant: 'mha', seqLen: N, dModel: H, nHeads: H, returnWeights: true, x: randomArray(N * H, 9) };
      const error = assertThrowsNaming(() => attn.forward(spec), Error, [CAP], `seqLen ${N} with returnWeights`);
      assert.equal(error.field, undefined, 'a cap over several fields has no field');
    });

    test('a session above the work cap is refused with an Error naming the cap', () => {
      // a KV cache of 100,000 tokens of 2 * 4096 floats is 3.3 GB
      const spec = { variant: 'mha', dModel: 4096, nHeads: 32, maxLen: 100000 };
      assertThrowsNaming(() => attn.createSession(spec), Error, [CAP], 'maxLen 100000 at dModel 4096');
    });

    test('after all the errors, forward still returns the same results', () => {
      const gqa = attn.forward(good);
      const mla = attn.forward(goodMla);
      assert.ok(bitIdentical(gqa.output, before1.gqa.output), 'GQA output changed');
      assert.ok(bitIdentical(gqa.weights, before1.gqa.weights), 'GQA weights changed');
      assert.ok(bitIdentical(mla.output, before1.mla.output), 'MLA output changed');
      const s = attn.createSession({ ...without(BASE, 'seqLen'), seed: 3, maxLen: 4 });
      try {
        const r = s.append(X);
        let worst = 0;
        for (let i = 0; i < r.output.length; i++) worst = Math.max(worst, Math.abs(r.output[i] - gqa.output[i]));
        assert.ok(worst <= 1e-4 * Math.max(...gqa.output.map(Math.abs)), `session output differs by ${worst}`);
      } finally {
        s.dispose();
      }
    });
  });
}

describe('an uncaught error in Node', () => {
  test('points at a readable line of the API module, not the minified Emscripten glue', async () => {
    const { spawnSync } = await import('node:child_process');
    const { pathToFileURL } = await import('node:url');
    const path = await import('node:path');
    const { LIB_DIR } = await import('./helpers.mjs');
    const lib = pathToFileURL(path.join(LIB_DIR, 'attention.mjs')).href;
    const script = `import { loadAttention } from ${JSON.stringify(lib)};
      const a = await loadAttention({ simd: false });
      a.forward({ variant: 'gqa', seqLen: 4, dModel: 32, nHeads: 4, nKvHeads: 3, x: new Float32Array(128) });`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.notEqual(r.status, 0, 'the script should fail');
    const stderr = r.stderr;
    assert.match(stderr, /RangeError: nHeads \(4\) must be divisible by nKvHeads \(3\)/);
    assert.match(stderr, /field: 'nHeads'/, 'Node shows error.field');
    const first = stderr.split('\n')[0];
    assert.match(first, /attention-api\.mjs:\d+$/, `the first line names the API module: ${first}`);
    assert.doesNotMatch(stderr, /attention-(simd|scalar)\.mjs/, 'no frame of the glue');
    const longest = Math.max(...stderr.split('\n').map((l) => l.length));
    assert.ok(longest < 200, `a line of ${longest} characters was printed`);
  });
});
