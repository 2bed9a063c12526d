// wear.test.mjs: nothing wears out. A million refused calls, spread over every entry point of the
// WebAssembly modules (attention, training and configurator), leave the wasm stack pointer, Embind's value handles
// and the heap where they started, and a good call afterwards returns the same bits as before.
// Both builds (SIMD and scalar).
//
// The raw modules are instantiated here (not through loadAttention) so that the test can read what
// the API does not show: `_stackBytesUsed()` (an internal export of js_convert.cpp: bytes of the wasm
// stack in use inside a call) and Embind's `count_emval_handles()`. The Attention object on top is
// the published one (makeAttention of dist/lib/attention-api.mjs), so every call goes the way a
// page's calls go.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { BUILDS, LIB_DIR, bitIdentical, randomArray } from './helpers.mjs';

const REFUSALS = 1_000_000;

/** The raw Emscripten module `name` of dist/lib (e.g. 'attention-simd'), instantiated. */
async function rawModule(name) {
  const factory = (await import(pathToFileURL(path.join(LIB_DIR, `${name}.mjs`)).href)).default;
  return factory({ wasmBinary: fs.readFileSync(path.join(LIB_DIR, `${name}.wasm`)) });
}

/** A Float32Array subclass whose `length` getter throws: the core must not read the override. */
class ThrowingLength extends Float32Array {
  get length() {
    throw new Error('length getter throws');
  }
}
/** A Uint8Array subclass whose subarray() throws (loadModel reads its first bytes with subarray). */
class ThrowingSubarray extends Uint8Array {
  subarray() {
    throw new Error('subarray throws');
  }
}
/** A value on which reading `constructor` throws: describe() reads it inside wasm. */
const HOSTILE = Object.freeze({ get constructor() { throw new Error('constructor getter throws'); } });

const SPEC = { variant: 'gqa', seqLen: 4, dModel: 32, nHeads: 4, nKvHeads: 2, seed: 5 };
const X = randomArray(4 * 32, 7);
const TRAINER = { task: 'copy', seqLen: 8, batchSize: 2, seed: 1, model: { variant: 'mha', dModel: 16, nHeads: 2 } };

for (const { simd, name } of BUILDS) {
  describe(`wear (${name})`, () => {
    test(`${REFUSALS.toLocaleString('en-US')} refused calls over every entry point leave the stack, the handles and the heap as they were`, { timeout: 30 * 60 * 1000 }, async (t) => {
      const build = simd ? 'simd' : 'scalar';
      const { makeAttention } = await import(pathToFileURL(path.join(LIB_DIR, 'attention-api.mjs')).href);
      const M = await rawModule(`attention-${build}`);
      const T = await rawModule(`attention-train-${build}`);
      const C = await rawModule('attention-configurator');
      const attn = makeAttention(M, build, async () => T, { configurator: async () => C });
      await attn.loadTraining();

      const session = attn.createSession({ ...SPEC, seqLen: undefined, maxLen: 8 });
      const layer = attn.createLayer({ ...SPEC, seqLen: undefined });
      const trainer = attn.createTrainer(TRAINER);
      const goodBefore = attn.forward({ ...SPEC, x: X }).output;
      const model = trainer.exportModel();

      // One refused call per entry point (and two that raise a JS exception inside wasm).
      const refusals = [
        ['forward', () => attn.forward({ ...SPEC, nKvHeads: 3, x: X })],
        ['forward returnIntermediates', () => attn.forward({ ...SPEC, dModel: 30, returnIntermediates: true, x: X })],
        ['forward x of the wrong length', () => attn.forward({ ...SPEC, x: X.subarray(1) })],
        ['forward, x a subclass whose length throws', () => attn.forward({ ...SPEC, x: new ThrowingLength(127) })],
        ['forward, x a Proxy of a Float32Array', () => attn.forward({ ...SPEC, x: new Proxy(X, {}) })],
        ['resolveShape', () => attn.resolveShape({ ...SPEC, dModel: -5 })],
        ['createSession', () => attn.createSession({ ...SPEC, seqLen: undefined, maxLen: 0 })],
        ['session.append', () => session.append(X.subarray(0, 31))],
        ['session.truncate', () => session.truncate(99)],
        ['createLayer', () => attn.createLayer({ ...SPEC, seqLen: 4 })],
        ['layer.forward', () => layer.forward(X.subarray(0, 33))],
        ['paramCount', () => attn.paramCount({ variant: 'mqa', dModel: 64, nHeads: 7 })],
        ['kvCacheBytes', () => attn.kvCacheBytes({ variant: 'gqa', nLayers: 0, nHeads: 8, nKvHeads: 2, dHead: 8, seqLen: 4 })],
        ['recommend', () => attn.recommend({ paramBudget: 1, seqLen: 8 })],
        ['createTrainer', () => attn.createTrainer({ ...TRAINER, model: { ...TRAINER.model, nHeads: 3 } })],
        ['trainer.step', () => trainer.step(0)],
        ['trainer.attention', () => trainer.attention(new Float32Array([1, 99]))],
        ['loadModel', () => attn.loadModel(model.subarray(0, 100))],
        ['loadModel, a subclass whose subarray throws', () => attn.loadModel(new ThrowingSubarray(16))],
      ];
      const missing = ['forward', 'resolveShape', 'createSession', 'createLayer', 'paramCount', 'kvCacheBytes', 'recommend',
        'createTrainer', 'loadModel'].filter((k) => typeof attn[k] !== 'function');
      assert.deepEqual(missing, [], 'every entry point is exercised');
      for (const [label, call] of refusals) assert.throws(call, Error, label);  // each one is refused

      const state = () => ({
        stack: [M._stackBytesUsed(), T._stackBytesUsed(), C._stackBytesUsed()],
        handles: [M.count_emval_handles(), T.count_emval_handles(), C.count_emval_handles()],
        heap: attn.heapBytes(),
      });
      const before = state();
      let refused = 0;
      for (let i = 0; refused < REFUSALS; i++) {
        try {
          refusals[i % refusals.length][1]();
        } catch {
          refused++;
          continue;
        }
        assert.fail(`${refusals[i % refusals.length][0]} was accepted`);
      }
      const after = state();
      t.diagnostic(`before: ${JSON.stringify(before)}; after ${refused} refusals: ${JSON.stringify(after)}`);
      assert.deepEqual(after, before, 'after the refusals');

      assert.ok(bitIdentical(attn.forward({ ...SPEC, x: X }).output, goodBefore), 'a good forward afterwards gives the same bits');
      assert.equal(session.append(X.subarray(0, 32)).output.length, 32);
      assert.equal(layer.forward(X).output.length, 128);
      assert.ok(Number.isFinite(trainer.step(1).loss));
      const loaded = attn.loadModel(model);
      assert.equal(loaded.steps, 0);
      for (const h of [session, layer, trainer, loaded]) h.dispose();
    });

    test('a JS exception raised inside wasm leaves the stack pointer where it was', async () => {
      const build = simd ? 'simd' : 'scalar';
      const { makeAttention } = await import(pathToFileURL(path.join(LIB_DIR, 'attention-api.mjs')).href);
      const M = await rawModule(`attention-${build}`);
      // The premise: straight into the raw module, the exception unwinds the wasm frames without
      // their epilogues, and the stack stays lower by their bytes.
      const sp = M.stackSave();
      const used = M._stackBytesUsed();
      assert.throws(() => M.forward({ ...SPEC, x: HOSTILE }), /constructor getter throws/);
      assert.ok(M._stackBytesUsed() > used, 'the raw call lost stack');
      M.stackRestore(sp);
      assert.equal(M._stackBytesUsed(), used);
      // Through the API (whose checks keep such a value out of wasm, so it is slipped past them here):
      // the stack pointer saved before the call is restored.
      const slipped = new Proxy(M, { get: (t, k) => (k === 'forward' ? (s) => t.forward({ ...s, x: HOSTILE }) : t[k]) });
      const attn = makeAttention(slipped, build);
      for (let i = 0; i < 1000; i++) assert.throws(() => attn.forward({ ...SPEC, x: X }), /constructor getter throws/);
      assert.equal(M._stackBytesUsed(), used);
    });
  });
}
