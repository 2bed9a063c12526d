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
 * contain (strings literally, or regexps)].
 */
const CASES = [
  // sizes and their relations
  ['nHeads not divisible by nKvHeads', (a) => a.forward({ ...BASE, dModel: 24, nHeads: 6, nKvHeads: 4, x: randomArray(96, 2) }), RangeError, ['nHeads (6)', 'nKvHeads (4)']],
  ['seqLen 0', (a) => a.forward({ ...BASE, seqLen: 0, x: new Float32Array(0) }), RangeError, ['seqLen', /\b0\b/]],
  ['negative seqLen', (a) => a.forward({ ...BASE, seqLen: -1, x: X }), RangeError, ['seqLen', '-1']],
  ['non-integer dModel', (a) => a.forward({ ...BASE, dModel: 32.5, x: X }), RangeError, ['dModel', '32.5']],
  ['zero nHeads', (a) => a.forward({ ...BASE, nHeads: 0, x: X }), RangeError, ['nHeads', /\b0\b/]],
  ['negative dHead', (a) => a.forward({ ...BASE, dHead: -8, x: X }), RangeError, ['dHead', '-8']],
  ['non-integer nKvHeads', (a) => a.forward({ ...BASE, nKvHeads: 1.5, x: X }), RangeError, ['nKvHeads', '1.5']],
  ['NaN nHeads', (a) => a.forward({ ...BASE, nHeads: NaN, x: X }), RangeError, ['nHeads', 'NaN']],
  ['non-integer seed', (a) => a.forward({ ...BASE, seed: 1.5, x: X }), RangeError, ['seed', '1.5']],
  ['nHeads of the wrong type', (a) => a.forward({ ...BASE, nHeads: '4', x: X }), TypeError, ['nHeads']],
  ['missing seqLen', (a) => a.forward(without(withX(X), 'seqLen')), TypeError, ['seqLen']],
  ['missing dModel', (a) => a.forward(without(withX(X), 'dModel')), TypeError, ['dModel']],
  ['missing nHeads', (a) => a.forward(without(withX(X), 'nHeads')), TypeError, ['nHeads']],
  ['GQA without nKvHeads', (a) => a.forward(without(withX(X), 'nKvHeads')), TypeError, ['nKvHeads']],
  ['MQA with 2 KV heads', (a) => a.forward({ ...BASE, variant: 'mqa', nKvHeads: 2, x: X }), RangeError, ['nKvHeads', /\b2\b/]],
  ['dModel not divisible by nHeads without dHead', (a) => a.forward({ variant: 'mha', seqLen: 2, dModel: 30, nHeads: 4, x: randomArray(60, 3) }), RangeError, ['dModel', '30', 'nHeads', /\b4\b/]],
  ['a misspelt field (nKVHeads)', (a) => a.forward({ ...BASE, nKVHeads: 2, x: X }), TypeError, ['nKVHeads']],
  ['returnWeights not a boolean', (a) => a.forward({ ...BASE, returnWeights: 'yes', x: X }), TypeError, ['returnWeights']],
  ['rope a string', (a) => a.forward({ ...BASE, rope: 'yes', x: X }), TypeError, ['rope']],
  // variant
  ['unknown variant', (a) => a.forward({ ...BASE, variant: 'mxa', x: X }), Error, ['variant', 'mxa']],
  ['missing variant', (a) => a.forward(without(withX(X), 'variant')), TypeError, ['variant']],
  // MLA and RoPE
  ['MLA without latentRank', (a) => a.forward({ ...without(MLA, 'latentRank'), x: X }), TypeError, ['latentRank']],
  ['MLA with an odd ropeDim', (a) => a.forward({ ...MLA, ropeDim: 3, x: X }), RangeError, ['ropeDim', /\b3\b/]],
  ['rope on an odd dHead', (a) => a.forward({ variant: 'mha', seqLen: 2, dModel: 12, nHeads: 4, rope: true, x: randomArray(24, 4) }), RangeError, [/dHead|rope/, /\b3\b/]],
  ['rope base not positive', (a) => a.forward({ ...BASE, rope: { base: -1 }, x: X }), RangeError, ['base', '-1']],
  // x
  ['x of the wrong length', (a) => a.forward(withX(randomArray(120, 5))), Error, ['x has 120 elements', '128']],
  ['missing x', (a) => a.forward(BASE), TypeError, [/\bx\b/]],
  ['x a string', (a) => a.forward(withX('abc')), TypeError, [/\bx\b/]],
  ['x a number', (a) => a.forward(withX(5)), TypeError, [/\bx\b/]],
  ['x null', (a) => a.forward(withX(null)), TypeError, [/\bx\b/]],
  ['NaN in x', (a) => a.forward(withX(poisoned(X, 5, NaN))), RangeError, [/\bx\b/, 'NaN']],
  ['Infinity in x', (a) => a.forward(withX(poisoned(X, 7, Infinity))), RangeError, [/\bx\b/, /inf/i]],
  ['-Infinity in x', (a) => a.forward(withX(poisoned(X, 0, -Infinity))), RangeError, [/\bx\b/, /inf/i]],
  // weights
  ['NaN in wq', (a) => { const w = randomWeights(BASE, 1); w.wq[3] = NaN; return a.forward({ ...withX(X), weights: w }); }, RangeError, ['wq', 'NaN']],
  ['Infinity in MLA wUk', (a) => { const w = randomWeights(MLA, 1); w.wUk[0] = Infinity; return a.forward({ ...MLA, x: X, weights: w }); }, RangeError, ['wUk', /inf/i]],
  ['wk of the wrong length', (a) => { const w = randomWeights(BASE, 1); w.wk = randomArray(100, 6); return a.forward({ ...withX(X), weights: w }); }, Error, ['wk', '100']],
  ['MLA wKr of the wrong length', (a) => { const w = randomWeights(MLA, 1); w.wKr = randomArray(10, 6); return a.forward({ ...MLA, x: X, weights: w }); }, Error, ['wKr', '10']],
  ['weights without wo', (a) => { const w = randomWeights(BASE, 1); delete w.wo; return a.forward({ ...withX(X), weights: w }); }, TypeError, ['wo']],
  ['wq not an array', (a) => { const w = randomWeights(BASE, 1); w.wq = 'abc'; return a.forward({ ...withX(X), weights: w }); }, TypeError, ['wq']],
  // the spec itself
  ['forward(null)', (a) => a.forward(null), TypeError, []],
  ['forward()', (a) => a.forward(), TypeError, []],
  ['forward(42)', (a) => a.forward(42), TypeError, []],
  ["forward('mha')", (a) => a.forward('mha'), TypeError, []],
  ['createSession(null)', (a) => a.createSession(null), TypeError, []],
  // sessions
  ['session without maxLen', (a) => a.createSession(without(BASE, 'seqLen')), TypeError, ['maxLen']],
  ['session maxLen 0', (a) => a.createSession({ ...without(BASE, 'seqLen'), maxLen: 0 }), RangeError, ['maxLen', /\b0\b/]],
  ['session with MLA odd ropeDim', (a) => a.createSession({ ...without(MLA, 'seqLen'), ropeDim: 5, maxLen: 8 }), RangeError, ['ropeDim', /\b5\b/]],
  ['session append of the wrong width', (a) => withSession(a, (s) => s.append(randomArray(31, 7))), Error, [/\bx\b/, '31']],
  ['session append of no tokens', (a) => withSession(a, (s) => s.append(new Float32Array(0))), Error, [/\bx\b|token/]],
  ['session append with NaN', (a) => withSession(a, (s) => s.append(poisoned(randomArray(64, 8), 33, NaN))), RangeError, [/\bx\b/, 'NaN']],
  ['session append of a string', (a) => withSession(a, (s) => s.append('abc')), TypeError, [/\bx\b/]],
  // accounting
  ['kvCacheBytes with 0 layers', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 0, nHeads: 8, dHead: 64, seqLen: 1 }), RangeError, ['nLayers', /\b0\b/]],
  ['kvCacheBytes with negative bytesPerElement', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 2, nHeads: 8, dHead: 64, seqLen: 1, bytesPerElement: -2 }), RangeError, ['bytesPerElement', '-2']],
  ['kvCacheBytes without seqLen', (a) => a.kvCacheBytes({ variant: 'mha', nLayers: 2, nHeads: 8, dHead: 64 }), TypeError, ['seqLen']],
  ['kvCacheBytes GQA 6 heads 4 KV heads', (a) => a.kvCacheBytes({ variant: 'gqa', nLayers: 2, nHeads: 6, nKvHeads: 4, dHead: 64, seqLen: 1 }), RangeError, ['nHeads (6)', 'nKvHeads (4)']],
  ['paramCount with negative dModel', (a) => a.paramCount({ variant: 'mha', dModel: -64, nHeads: 8 }), RangeError, ['dModel', '-64']],
  ['paramCount MLA without latentRank', (a) => a.paramCount({ variant: 'mla', dModel: 64, nHeads: 8 }), TypeError, ['latentRank']],
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

    for (const [label, fn, Class, patterns] of CASES) {
      test(label, () => {
        assertThrowsNaming(() => fn(attn), Class, patterns, label);
      });
    }

    test('a forward pass above the work cap is refused with an Error naming the cap', () => {
      // returnWeights makes the result alone (H * N * N floats) larger than maxWorkBytes; x stays small.
      const H = 8;
      const N = Math.ceil(1.2 * Math.sqrt(attn.info.maxWorkBytes / (4 * H)));
      const spec = { variant: 'mha', seqLen: N, dModel: H, nHeads: H, returnWeights: true, x: randomArray(N * H, 9) };
      assertThrowsNaming(() => attn.forward(spec), Error, [CAP], `seqLen ${N} with returnWeights`);
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
