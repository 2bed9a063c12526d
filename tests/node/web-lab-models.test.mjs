// web-lab-models.test.mjs: the labs' trained models in the worker (web/src/worker-methods.js, the
// core built in dist/lib): the one training call (trainerTrain = the core's trainer.train) reports
// progress and stops on the page's AbortSignal; a refused file leaves no trainer behind; a loaded
// file says its spec (labs/model-file.js), and a lab refuses a model trained on another lab's task
// (labs/tasks.js). Browser side of the same: tests/e2e/lab-a.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { load } from './helpers.mjs';
import { methods } from '../../web/src/worker-methods.js';
import { specFromModelFile } from '../../web/src/labs/model-file.js';
import { INDUCTION_TASK, LAB_TASKS, MQA_TASK, checkImport, describeTask } from '../../web/src/labs/tasks.js';
import { loadI18n } from '../../web/src/i18n/index.js';

const attn = await load(true);
const job = (signal = new AbortController().signal, seen = []) => ({ signal, progress: (p) => seen.push(p) });
const MQA_MODEL = { variant: 'gqa', dModel: 16, nHeads: 4, nKvHeads: 2, nLayers: 1 };

test('trainerTrain is the core\'s training loop: progress after each chunk, the steps asked for', async () => {
  methods.trainerCreate(attn, 't-run', { ...MQA_TASK, batchSize: 4, model: MQA_MODEL });
  const seen = [];
  const last = await methods.trainerTrain(attn, 't-run', { steps: 12 }, job(undefined, seen));
  assert.equal(last.steps, 12);
  assert.ok(seen.length >= 1, 'at least one progress report');
  assert.equal(seen.at(-1).step, 12);
  assert.ok(seen.every((p, i) => Number.isFinite(p.loss) && p.step > (seen[i - 1]?.step ?? 0)), JSON.stringify(seen));
  assert.equal(last.loss, seen.at(-1).loss);
  methods.trainerDispose(attn, 't-run');
});

test('trainerTrain stops when the page aborts: AbortError, and the trainer keeps the steps it took', async () => {
  // 256 tokens a step: maxStepsPerCall is 128, so 1,000 steps take several chunks.
  methods.trainerCreate(attn, 't-stop', { ...MQA_TASK, batchSize: 8, model: MQA_MODEL });
  const controller = new AbortController();
  const seen = [];
  const running = methods.trainerTrain(attn, 't-stop', { steps: 1000 }, {
    signal: controller.signal,
    progress: (p) => { seen.push(p); controller.abort(); },
  });
  await assert.rejects(running, (e) => e.name === 'AbortError');
  const steps = methods.trainerInfo(attn, 't-stop').steps;
  assert.ok(steps > 0 && steps < 1000, `stopped after ${steps} steps`);
  assert.equal(steps, seen.at(-1).step, 'no step after the last progress report');
  methods.trainerDispose(attn, 't-stop');
});

test('a refused file leaves no trainer under its key; a loaded one says its spec', async () => {
  await assert.rejects(methods.trainerLoad(attn, 't-bad', new Uint8Array(64).fill(7)), (e) => e.field === 'bytes');
  assert.throws(() => methods.trainerInfo(attn, 't-bad'), /no trainer 't-bad'/);

  methods.trainerCreate(attn, 't-src', { ...MQA_TASK, batchSize: 4, model: MQA_MODEL });
  methods.trainerStep(attn, 't-src', 2);
  const bytes = methods.trainerExport(attn, 't-src').bytes;
  const loaded = await methods.trainerLoad(attn, 't-copy', bytes);
  assert.equal(loaded.steps, 2);
  assert.equal(loaded.spec.task, 'copy');
  assert.equal(loaded.spec.seqLen, MQA_TASK.seqLen);
  assert.equal(loaded.spec.vocabSize, MQA_TASK.vocabSize);
  assert.deepEqual([loaded.spec.model.variant, loaded.spec.model.nHeads, loaded.spec.model.nKvHeads, loaded.spec.model.nLayers], ['gqa', 4, 2, 1]);
  assert.deepEqual(methods.trainerInfo(attn, 't-copy').spec, loaded.spec, 'kept for the attention view (trainerInfo)');
  for (const k of ['t-src', 't-copy']) methods.trainerDispose(attn, k);
});

test('specFromModelFile reads a Llama-block model\'s block and MLP width into its model', () => {
  const model = { ...MQA_MODEL, block: 'llama', mlpWidth: 24, tiedEmbeddings: true };
  methods.trainerCreate(attn, 't-llama', { ...MQA_TASK, batchSize: 4, model });
  const spec = specFromModelFile(methods.trainerExport(attn, 't-llama').bytes);
  methods.trainerDispose(attn, 't-llama');
  assert.deepEqual([spec.model.block, spec.model.mlpWidth, spec.model.tiedEmbeddings, spec.model.nKvHeads], ['llama', 24, true, 2]);
  assert.equal(spec.block, undefined, 'the block is the model\'s, not the task\'s');
  assert.equal(spec.mlpWidth, undefined);
});

test('specFromModelFile: null for what is not a trainer\'s .safetensors file', () => {
  assert.equal(specFromModelFile(new Uint8Array(4)), null);
  assert.equal(specFromModelFile(new TextEncoder().encode('ATTNTRN2........')), null);
  const json = new TextEncoder().encode('{"__metadata__":{"format":"something else"}}');
  const file = new Uint8Array(8 + json.length);
  new DataView(file.buffer).setUint32(0, json.length, true);
  file.set(json, 8);
  assert.equal(specFromModelFile(file), null);
});

test('checkImport: a lab takes its own task, refuses another lab\'s and names it, labels an unknown one', async () => {
  assert.deepEqual(checkImport('lab-induction', { ...INDUCTION_TASK, vocabSize: 32, model: {} }), { ok: true, note: '' });
  const refused = checkImport('lab-induction', { ...MQA_TASK, model: {} });
  assert.equal(refused.ok, false);
  assert.equal(refused.message, `it holds a model trained on ${describeTask(MQA_TASK)}, Lab 2's task; `
    + `this lab trains on ${describeTask(INDUCTION_TASK)}: import it in Lab 2.`);
  assert.equal(describeTask(MQA_TASK), 'the copy task (32 tokens, vocabulary 64)');
  // Lab 1 and Lab 2 both copy, on different data: not the same task.
  assert.equal(checkImport('lab-heads', { ...MQA_TASK }).ok, false);
  assert.equal(checkImport('lab-mqa', { ...LAB_TASKS['lab-heads'].task }).ok, false);
  assert.match(checkImport('lab-rank', { task: 'copy', seqLen: 99 }).message, /^it holds a model trained on the copy task \(99 tokens\); this lab trains on the character task \(32 tokens\)\.$/);
  assert.deepEqual(checkImport('lab-mqa', null), { ok: true, note: 'task not recorded in the file' });
  // In the page's language: the same decision, said in Hindi, with the lab it belongs to.
  const hi = await loadI18n('hi');
  assert.equal(describeTask(MQA_TASK, hi), 'copy टास्क (32 टोकन, शब्दावली 64)');
  assert.equal(checkImport('lab-induction', { ...MQA_TASK, model: {} }, hi).message, 'इसमें copy टास्क (32 टोकन, शब्दावली 64) पर ट्रेन किया गया मॉडल है, '
    + 'जो लैब 2 का टास्क है; यह लैब इंडक्शन टास्क (32 टोकन) पर ट्रेन करती है: इसे लैब 2 में इम्पोर्ट करें।');
  assert.equal(checkImport('lab-rank', { task: 'copy', seqLen: 99 }, hi).ok, false);
  assert.deepEqual(checkImport('lab-mqa', null, hi), { ok: true, note: 'फ़ाइल में टास्क दर्ज नहीं है' });
});
