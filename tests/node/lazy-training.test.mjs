// lazy-training.test.mjs: the training module as a second WebAssembly module, loaded on demand
// (docs/api.md, "A lighter load"). loadAttention({ training: false }) gives the attention module
// only: createTrainer / loadModel throw an Error with field 'training' until attn.loadTraining(), recommend /
// deploymentTargets until attn.loadConfigurator() (a small module of its own, which loadTraining() loads too);
// loadTraining() resolves to the same object, after which the lab trains and reports bad input with
// error.field exactly like the attention module. Runs on both builds (SIMD and scalar).
//
// This file must load each build light first: loadAttention memoises one object per build, and a
// full load (the default) loads the training module into it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { BUILDS, importLib, randomArray } from './helpers.mjs';

const SPEC = { task: 'copy', seqLen: 8, batchSize: 4, seed: 3,
  model: { variant: 'gqa', dModel: 16, nHeads: 4, nKvHeads: 2, nLayers: 1 } };

test('options.training must be a boolean (TypeError naming it)', async () => {
  const { loadAttention } = await importLib();
  await assert.rejects(loadAttention({ training: 'no' }), (e) => e instanceof TypeError && /options\.training/.test(e.message));
  await assert.rejects(loadAttention({ training: 0 }), (e) => e instanceof TypeError && /options\.training/.test(e.message));
  await assert.rejects(loadAttention({ trainig: false }), (e) => e instanceof TypeError && /unknown option 'trainig'.*training/.test(e.message));
});

for (const { simd, name } of BUILDS) {
  describe(`lazy training module, ${name}`, () => {
    test('the light load has no training until loadTraining(), then the same object trains', async () => {
      const { loadAttention } = await importLib();
      const attn = await loadAttention({ simd, training: false });
      assert.equal(attn.info.build, simd ? 'simd' : 'scalar');
      assert.equal(attn.trainingLoaded, false);
      const heapBefore = attn.heapBytes();

      // Everything but training works on the attention module alone.
      const out = attn.forward({ variant: 'gqa', seqLen: 4, dModel: 16, nHeads: 4, nKvHeads: 2, x: randomArray(64, 1) });
      assert.equal(out.output.length, 64);
      assert.ok(attn.presets().length > 0);

      // Training before loading: a clear Error naming what to do, with error.field.
      const trainingCalls = [
        ['createTrainer', () => attn.createTrainer(SPEC)],
        ['loadModel', () => attn.loadModel(new Uint8Array(16))],
      ];
      const refusedUntil = (calls, module, load) => {
        for (const [what, call] of calls) {
          assert.throws(call, (e) => {
            assert.equal(e.constructor, Error, `${what}: ${e}`);
            assert.equal(e.field, 'training');
            assert.match(e.message, new RegExp(`^${what}: the ${module} module is not loaded`));
            assert.match(e.message, load);
            return true;
          });
        }
      };
      refusedUntil(trainingCalls, 'training', /await attn\.loadTraining\(\)/);
      // the configurator's search lives in a small on-demand module of its own
      refusedUntil([
        ['recommend', () => attn.recommend({ paramBudget: 1e8, seqLen: 1024 })],
        ['deploymentTargets', () => attn.deploymentTargets()],
      ], 'configurator', /await attn\.loadConfigurator\(\)/);
      assert.equal(attn.trainingLoaded, false, 'a refused call does not load anything');
      assert.equal(attn.configuratorLoaded, false);
      assert.equal(attn.heapBytes(), heapBefore);

      // The configurator alone: the search works, training still waits for its module.
      assert.equal(await attn.loadConfigurator(), attn);
      assert.equal(attn.configuratorLoaded, true);
      assert.equal(attn.trainingLoaded, false);
      assert.ok(attn.recommend({ paramBudget: 1e8, seqLen: 1024 }).nHeads > 0, 'recommend works with the configurator module');
      assert.ok(attn.heapBytes() > heapBefore, 'heapBytes counts the configurator module too');
      refusedUntil(trainingCalls, 'training', /await attn\.loadTraining\(\)/);
      const heapWithConfigurator = attn.heapBytes();

      // Loading: memoised, the same object, of the same build.
      const [a, b] = await Promise.all([attn.loadTraining(), attn.loadTraining()]);
      assert.equal(a, attn);
      assert.equal(b, attn);
      assert.equal(attn.trainingLoaded, true);
      assert.equal(await loadAttention({ simd }), attn, 'the full load resolves to the same object');
      assert.ok(attn.recommend({ paramBudget: 1e8, seqLen: 1024 }).nHeads > 0, 'recommend works once loaded');
      assert.ok(attn.deploymentTargets().length > 0);
      assert.equal(await loadAttention({ simd, training: false }), attn);
      assert.ok(attn.heapBytes() > heapWithConfigurator, 'heapBytes counts the training module too');

      // The lab trains, exports and reloads.
      const t = attn.createTrainer(SPEC);
      const before = t.evaluate().loss;
      const r = t.step(20);
      assert.equal(r.step, 20);
      assert.ok(Number.isFinite(r.loss));
      assert.ok(t.evaluate().loss < before, 'loss goes down');
      const copy = attn.loadModel(t.exportModel());
      assert.equal(copy.steps, 20);
      assert.equal(copy.evaluate().loss, t.evaluate().loss);
      t.dispose();
      copy.dispose();
    });

    test('both modules report bad input the same way (error class, message, error.field)', async () => {
      const { loadAttention } = await importLib();
      const attn = await loadAttention({ simd });  // the full load
      assert.equal(attn.trainingLoaded, true);
      const fieldError = (fn) => {
        try {
          fn();
        } catch (e) {
          return { name: e.name, field: e.field, message: e.message };
        }
        assert.fail('expected an error');
      };
      // The same check (a typed field) through each module's copy of js_convert.cpp.
      const fwd = fieldError(() => attn.forward({ variant: 'mha', seqLen: 4, dModel: '16', nHeads: 4, x: randomArray(64, 1) }));
      const trn = fieldError(() => attn.createTrainer({ ...SPEC, model: { ...SPEC.model, dModel: '16' } }));
      assert.deepEqual([fwd.name, fwd.field], ['TypeError', 'dModel']);
      assert.deepEqual([trn.name, trn.field], ['TypeError', 'model.dModel']);
      assert.equal(trn.message.replace('model.', ''), fwd.message, 'one message format for both modules');
      // Unknown keys, value checks in the core, method arguments.
      const typo = fieldError(() => attn.forward({ variant: 'gqa', seqLen: 4, dModel: 16, nHeads: 4, nKVHeads: 2, x: randomArray(64, 1) }));
      assert.deepEqual([typo.name, typo.field], ['TypeError', 'nKVHeads']);
      assert.equal(fieldError(() => attn.createTrainer({ ...SPEC, model: { ...SPEC.model, nLayer: 1 } })).field, 'model.nLayer');
      // A value check in the core (the same spec code behind forward and the trainer's model).
      const gqa = fieldError(() => attn.createTrainer({ ...SPEC, model: { ...SPEC.model, nKvHeads: 3 } }));
      const gqaFwd = fieldError(() => attn.forward({ variant: 'gqa', seqLen: 4, dModel: 16, nHeads: 4, nKvHeads: 3, x: randomArray(64, 1) }));
      assert.deepEqual([gqa.name, gqa.field], ['RangeError', `model.${gqaFwd.field}`]);
      assert.equal(gqaFwd.name, 'RangeError');
      const t = attn.createTrainer(SPEC);
      const step = fieldError(() => t.step(0));
      assert.deepEqual([step.name, step.field], ['RangeError', 'n']);
      assert.deepEqual(fieldError(() => attn.loadModel(new Uint8Array(4))).field, 'bytes');
      t.dispose();
      // Both modules keep working after errors.
      assert.equal(attn.createTrainer(SPEC).step(1).step, 1);
      assert.equal(attn.forward({ variant: 'mha', seqLen: 2, dModel: 8, nHeads: 2, x: randomArray(16, 2) }).output.length, 16);
    });
  });
}
