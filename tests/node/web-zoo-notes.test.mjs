// The notes under a zoo model's maps (web/src/sources/zoo-notes.js): how the models were trained, with
// the curriculum only where the manifest has one, numbers grouped as the page's language groups them,
// and each floor said met or missed with the best head measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EN, createI18n, loadI18n } from '../../web/src/i18n/index.js';
import { zooNotes } from '../../web/src/sources/zoo-notes.js';

const manifest = (training, scores) => ({
  training: { steps: 700, seeds: [1, 2, 3], cpuHours: 1.59, batchSize: 8, seqLen: 256, ...training },
  geometry: { nHeads: 8 },
  models: [{ id: 'mha', label: 'MHA', variant: 'mha', params: 10, kvBytesPerToken: 64, seeds: [{ seed: 1, bitsPerToken: 5.8 }],
    headScores: scores.map(([previousToken, induction], head) => ({ layer: 1, head, previousToken, induction, firstToken: 0, diagonal: 0 })) }],
});

test('how they were trained: steps of 2,048 tokens, the seeds, the hours of runs; a curriculum only where there is one', () => {
  const [how] = zooNotes(manifest({}, [[0.3, 0.01]]), EN.t);
  assert.match(how, /700 steps of 2,048 tokens each, 3 seeds \(1, 2, 3\), 1\.59 hours of training runs \(one core each\)/);
  assert.doesNotMatch(how, /training windows/);
  const [random] = zooNotes(manifest({ repeatRandomFraction: 0.25 }, [[0.3, 0.01]]), EN.t);
  assert.match(random, /25 % of the training windows hold a stretch of random words written twice/);
  assert.match(random, /measured on other sequences of that kind/);
  assert.doesNotMatch(random, /repeat a stretch of their own text/);
  const [text] = zooNotes(manifest({ repeatFraction: 0.5 }, [[0.3, 0.01]]), EN.t);
  assert.match(text, /50 % of the training windows repeat a stretch of their own text/);
});

test('a start whose windows lengthen (zoo.mjs --lengthen): its stages\' lengths, cap and score, in English and Hindi', async () => {
  const synthetic = { task: 'induction', seqLen: 32, batchSize: 64, steps: 1500, untilInduction: 0.9,
    lengthen: [64, 128, 256].map((seqLen) => ({ seqLen, batchSize: 2048 / seqLen, minSegment: 2, steps: 500, untilInduction: 0.9 })) };
  const m = manifest({ synthetic }, [[0.9, 0.8]]);
  m.models[0].synthetic = { steps: 3000, stretches: [2, 16] };
  const [how] = zooNotes(m, EN.t, 'mha');
  assert.match(how, /windows of 32 words \(stretches of 2 to 16\), then of 64, 128, 256 words in turn, each until one head's induction score on them reached 0\.9 \(at most 3,000 steps on the first, 500 on each of the others\), then the text\./);
  assert.doesNotMatch(how, /\{/, 'every placeholder filled');
  await loadI18n('hi');
  const [hiHow] = zooNotes(m, createI18n('hi').t, 'mha');
  assert.match(hiHow, /64, 128, 256/);
  assert.doesNotMatch(hiHow, /\{|undefined/, 'every placeholder filled');
});

test('one seed: said so, with the steps\' tokens and the spread not measured yet', () => {
  const [how] = zooNotes(manifest({ seeds: [1], cpuHours: 2.1 }, [[0.9, 0.8]]), EN.t, 'mha');
  assert.match(how, /^How they were trained: 700 steps of 2,048 tokens each, one seed \(1; the spread over seeds is not measured yet\), 2\.1 CPU-hours/);
});

test('each floor met or missed by the drawn model, with its best head measured', () => {
  const [, prev, induction] = zooNotes(manifest({}, [[0.42, 0.01], [0.1, 0.62]]), EN.t, 'mha');
  assert.match(prev, /^This model has no clear previous-token head: its best scores 0\.42 \(layer 1 head 0\), and a clear one scores 0\.7 or more\.$/);
  assert.match(induction, /^This model has a clear induction head: layer 1 head 1 scores 0\.62 \(a clear one scores 0\.5 or more\)\.$/);
});

test('the floors name the other models that miss them', () => {
  const model = (id, label, variant, extra, [previousToken, induction]) => ({ id, label, variant, params: 10, kvBytesPerToken: 64, ...extra,
    seeds: [{ seed: 1, bitsPerToken: 5.8 }], headScores: [{ layer: 0, head: 0, previousToken, induction, firstToken: 0, diagonal: 0 }] });
  const zoo = { ...manifest({}, [[0.8, 0.7]]) };
  zoo.models = [model('mha', 'MHA', 'mha', {}, [0.8, 0.7]), model('mqa', 'MQA', 'mqa', {}, [0.75, 0.6]),
    model('mla16', 'MLA, latent 16', 'mla', { latentRank: 16 }, [0.3, 0.02])];
  const [, prev, induction] = zooNotes(zoo, EN.t, 'mha');
  assert.match(prev, /clear previous-token head: layer 0 head 0 scores 0\.80.* Models of the zoo without one: MLA, latent 16\.$/);
  assert.match(induction, /Models of the zoo without one: MLA, latent 16\.$/);
  const [, prevMla] = zooNotes(zoo, EN.t, 'mla16');
  assert.match(prevMla, /^This model has no clear previous-token head: its best scores 0\.30/);
  assert.doesNotMatch(prevMla, /without one/);  // every other model has one
  const [, , none] = zooNotes({ ...zoo, models: zoo.models.map((m) => ({ ...m, headScores: m.headScores.map((h) => ({ ...h, induction: 0.01 })) })) }, EN.t, 'mqa');
  assert.match(none, /no induction head: none scores enough for a label\..* No other model of the zoo has one either\.$/);
});

test('a synthetic start is said before the text, with its steps and window', () => {
  const [how] = zooNotes(manifest({ synthetic: { task: 'induction', seqLen: 32, batchSize: 64, steps: 1000 } }, [[0.3, 0.01]]), EN.t, 'mha');
  assert.match(how, /Each model first learned to copy: 1,000 steps on short windows of 32 random words/);
});

test('the drawn model\'s own stretches of its synthetic start, where the manifest has them', async () => {
  const zoo = manifest({ synthetic: { task: 'induction', seqLen: 32, batchSize: 64, steps: 1500 } }, [[0.3, 0.01]]);
  zoo.models = [{ ...zoo.models[0], synthetic: { stretches: [8, 16] } }, { ...zoo.models[0], id: 'gqa4', synthetic: { steps: 3000, stretches: [2, 16] } }];
  assert.match(zooNotes(zoo, EN.t, 'mha')[0], /This model first learned to copy: 1,500 steps on short windows of 32 random words in which a stretch of 8 to 16 words is written twice, then the text\./);
  assert.match(zooNotes(zoo, EN.t, 'gqa4')[0], /3,000 steps on short windows of 32 random words in which a stretch of 2 to 16 words is written twice/);
  await loadI18n('hi');
  assert.match(zooNotes(zoo, createI18n('hi').t, 'gqa4')[0], /2 से 16 शब्दों का एक हिस्सा/);
});

test('a best head below the bar a label needs is said to be none, with that bar and the uniform level', async () => {
  // 256-token windows: a uniform head puts 0.02 on the previous token, 0.005 on the key after a copy in the second half
  const [, prev, induction] = zooNotes(manifest({}, [[0.05, 0.01], [0.3, 0.004]]), EN.t, 'mha');
  assert.match(prev, /^This model has no clear previous-token head: its best scores 0\.30 \(layer 1 head 1\)/);
  assert.match(induction, /^This model has no induction head: none scores enough for a label\. Its best, layer 1 head 0, scores 0\.01, below the 0\.25 a label needs \(uniform attention scores 0\.01 here\)/);
  await loadI18n('hi');
  const [, , hi] = zooNotes(manifest({}, [[0.3, 0.004]]), createI18n('hi').t, 'mha');
  assert.match(hi, /किसी हेड का स्कोर लेबल के लायक नहीं/);
});
