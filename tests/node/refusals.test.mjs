// refusals.test.mjs: refusals cost nothing, and the small promises hold. Both builds.
//   - a refusal leaves attn.heapBytes() as it was, also for inputs of hundreds of MiB: sizes are
//     checked before anything is copied (a model file is read piece by piece; a 'chars' text and
//     trainer.attention's tokens by their length first);
//   - the model file's duplicate-key check is linear (200,000 keys are refused at once);
//   - a trainer that could not be exported and loaded again is refused at creation;
//   - a message quotes a value whole, an embedded NUL included;
//   - an object imitating a Float32Array (a Proxy) is named as such;
//   - train(): a plain { aborted } object works as a signal, an abort after the last chunk changes
//     nothing; without `chunk`, chunks are sized by time.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load, randomArray, throwsField } from './helpers.mjs';

const TRAINER = { task: 'copy', seqLen: 8, batchSize: 4, seed: 3, model: { variant: 'mha', dModel: 16, nHeads: 2 } };
const MiB = 1024 * 1024;

for (const { simd, name } of BUILDS) {
  describe(`refusals cost nothing (${name})`, () => {
    let attn;
    let file;
    before(async () => {
      attn = await load(simd);
      const t = attn.createTrainer(TRAINER);
      t.step(2);
      file = t.exportModel();
      t.dispose();
    });

    test('a 512 MiB model file refused on its header is not copied: the heap keeps its size', () => {
      const big = new Uint8Array(512 * MiB);
      const json = new TextEncoder().encode('{"__metadata__":{"format":"attention-playground.trainer"'); // unterminated
      new DataView(big.buffer).setBigUint64(0, BigInt(json.length), true);
      big.set(json, 8);
      const heap = attn.heapBytes();
      throwsField(() => attn.loadModel(big), RangeError, 'bytes', [/not valid JSON/]);
      assert.equal(attn.heapBytes(), heap);
      // and a file whose header is fine but whose data was damaged: read through, nothing kept
      const damaged = file.slice();
      damaged[damaged.length - 3] ^= 0x40;
      throwsField(() => attn.loadModel(damaged), RangeError, 'bytes', [/checksum does not match/]);
      assert.equal(attn.heapBytes(), heap);
    });

    test('a header with 200,000 duplicate-free metadata keys and then a duplicate is refused (a linear check)',
      { timeout: 60_000 }, () => {
        const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":"v"`).join(',');
        const json = new TextEncoder().encode(`{"__metadata__":{${keys},"k7":"again"}}`);
        const bytes = new Uint8Array(8 + json.length);
        new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
        bytes.set(json, 8);
        throwsField(() => attn.loadModel(bytes), RangeError, 'bytes', [/'k7' appears twice/]);
      });

    test("a 'chars' text above the cap is refused by its length before it is copied", () => {
      const text = 'ab'.repeat(150_000_000 / 2 + 1);  // 150 M characters
      const heap = attn.heapBytes();
      throwsField(() => attn.createTrainer({ ...TRAINER, task: 'chars', text, vocabSize: undefined }), RangeError, 'text',
        [/150000002 characters/, /16000000 bytes/]);
      assert.equal(attn.heapBytes(), heap);
    });

    test("trainer.attention's tokens are counted before they are copied", () => {
      const t = attn.createTrainer(TRAINER);
      const heap = attn.heapBytes();
      try {
        throwsField(() => t.attention(new Float32Array(2 ** 28)), RangeError, 'tokens', [/268435456 elements/, /seqLen \(8\)/]);
        assert.equal(attn.heapBytes(), heap);
      } finally {
        t.dispose();
      }
    });

    test('a trainer that could not be exported and loaded again is refused at creation, naming dModel', () => {
      const heap = attn.heapBytes();
      throwsField(() => attn.createTrainer({ task: 'copy', seqLen: 2, batchSize: 1, allowLongWork: true,
        model: { variant: 'mha', dModel: 1088, nHeads: 17, nLayers: 4, mlp: true } }), RangeError, 'model.dModel',
      [/could not be exported and loaded again/]);
      assert.equal(attn.heapBytes(), heap);
    });

    test('a forward refused on time copies nothing', () => {
      const heap = attn.heapBytes();
      throwsField(() => attn.forward({ variant: 'mha', seqLen: 131072, dModel: 8, nHeads: 1, x: new Float32Array(131072 * 8) }),
        RangeError, 'seqLen', [/would take about/]);
      assert.equal(attn.heapBytes(), heap);
    });

    test('a message quotes the value whole: an embedded NUL does not cut it', () => {
      throwsField(() => attn.forward({ variant: 'mh\0a', seqLen: 2, dModel: 4, nHeads: 2, x: new Float32Array(8) }), RangeError,
        'variant', [/variant \('mh\\u0000a'\) must be one of 'mha', 'mqa', 'gqa', 'mla'/]);
      throwsField(() => attn.createTrainer({ ...TRAINER, task: 'co\0py' }), RangeError, 'task', [/'co\\u0000py'\) must be one of/]);
    });

    test('a Proxy of a Float32Array is named as an imitation, not "got a Float32Array"', () => {
      const x = randomArray(8, 1);
      const e = throwsField(() => attn.forward({ variant: 'mha', seqLen: 2, dModel: 4, nHeads: 2, x: new Proxy(x, {}) }), TypeError, 'x',
        [/x must be a Float32Array itself, got an object imitating one/]);
      assert.doesNotMatch(e.message, /got a Float32Array$/);
      // a subclass is a real Float32Array: it is read through the typed array's own accessors
      class Sub extends Float32Array {}
      assert.equal(attn.forward({ variant: 'mha', seqLen: 2, dModel: 4, nHeads: 2, x: Sub.from(x) }).output.length, 8);
    });
  });

  describe(`train() (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    test('a plain { aborted: false } object is a signal that never aborts; anything else is refused', async () => {
      const t = attn.createTrainer(TRAINER);
      try {
        assert.deepEqual(Object.keys(await t.train({ steps: 3, signal: { aborted: false } })), ['step', 'loss']);
        assert.equal(t.steps, 3);
        const flag = { aborted: false };
        await assert.rejects(t.train({ steps: 1000, chunk: 1, signal: flag, onProgress: (p) => { if (p.done === 2) flag.aborted = true; } }),
          (e) => e.name === 'AbortError');
        assert.equal(t.steps, 5);
        await assert.rejects(t.train({ steps: 1, signal: {} }), (e) => e instanceof TypeError && e.field === 'signal');
        await assert.rejects(t.train({ steps: 1, signal: { aborted: 'no' } }), (e) => e instanceof TypeError && e.field === 'signal');
      } finally {
        t.dispose();
      }
    });

    test('an abort after the last chunk changes nothing: every step ran, the promise resolves', async () => {
      const t = attn.createTrainer(TRAINER);
      try {
        const ac = new AbortController();
        const last = await t.train({ steps: 4, chunk: 2, signal: ac.signal, onProgress: (p) => p.done === 4 && ac.abort() });
        assert.equal(last.step, 4);
        assert.equal(t.steps, 4);
      } finally {
        t.dispose();
      }
    });

    test('without chunk, chunks are sized by time: a step estimate within the cap, and small chunks for a slow step', async () => {
      const t = attn.createTrainer({ ...TRAINER, seqLen: 64, batchSize: 16, allowLongWork: true,
        model: { variant: 'mha', dModel: 128, nHeads: 4, nLayers: 2, mlp: true } });
      try {
        const progress = [];
        await t.train({ steps: 12, onProgress: (p) => progress.push(p.done) });
        assert.equal(progress.at(-1), 12);
        assert.ok(progress.length > 1, `12 steps of this trainer in one chunk: ${progress}`);
      } finally {
        t.dispose();
      }
    });
  });
}
