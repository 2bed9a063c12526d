// The notes under a zoo model's maps (web/src/sources/zoo-notes.js): how the models were trained, with
// the curriculum only where the manifest has one, numbers grouped as the page's language groups them,
// and each floor said met or missed with the best head measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EN } from '../../web/src/i18n/index.js';
import { zooNotes } from '../../web/src/sources/zoo-notes.js';

const manifest = (training, scores) => ({
  training: { steps: 700, seeds: [1, 2, 3], cpuHours: 1.59, batchSize: 8, seqLen: 256, ...training },
  geometry: { nHeads: 8 },
  models: [{ id: 'mha', label: 'MHA', variant: 'mha', params: 10, kvBytesPerToken: 64, seeds: [{ seed: 1, bitsPerToken: 5.8 }],
    headScores: scores.map(([previousToken, induction], head) => ({ layer: 1, head, previousToken, induction, firstToken: 0, diagonal: 0 })) }],
});

test('how they were trained: steps of 2,048 tokens, the seeds, the CPU-hours; a curriculum only where there is one', () => {
  const [how] = zooNotes(manifest({}, [[0.3, 0.01]]), EN.t);
  assert.match(how, /700 steps of 2,048 tokens each, 3 seeds \(1, 2, 3\), 1\.59 CPU-hours/);
  assert.doesNotMatch(how, /training windows/);
  const [random] = zooNotes(manifest({ repeatRandomFraction: 0.25 }, [[0.3, 0.01]]), EN.t);
  assert.match(random, /25 % of the training windows hold a stretch of random words written twice/);
  assert.match(random, /measured on other sequences of that kind/);
  assert.doesNotMatch(random, /repeat a stretch of their own text/);
  const [text] = zooNotes(manifest({ repeatFraction: 0.5 }, [[0.3, 0.01]]), EN.t);
  assert.match(text, /50 % of the training windows repeat a stretch of their own text/);
});

test('each floor met or missed, with the best head measured', () => {
  const [, prev, induction] = zooNotes(manifest({}, [[0.42, 0.01], [0.1, 0.62]]), EN.t);
  assert.match(prev, /No head of the zoo reaches 0\.7 on the previous token.*the best is 0\.42 \(MHA, layer 1 head 0\)/);
  assert.match(induction, /A clear induction head \(a score of 0\.5 or more\) is there: the best scores 0\.62 \(MHA, layer 1 head 1\)/);
});
