// The compare view's table of the zoo (web/src/sources/zoo-stats.js): mean ± sd of bits per token over
// the seeds and the difference from MHA with its standard error, on a small manifest worked by hand
// (and with one seed: no spread, nothing settled), and on the shipped one (every variant's row, MHA's
// without a difference).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { SETTLED_SEEDS, zooRows } from '../../web/src/sources/zoo-stats.js';
import { runsDiffer, verdictText, verdictWords } from '../../web/src/parts/compare-zoo.js';

const seeds = (...bits) => bits.map((b, i) => ({ seed: i + 1, bitsPerToken: b }));

test('mean ± sd and the difference from MHA, worked by hand', () => {
  const rows = zooRows({ geometry: { nHeads: 8 }, models: [
    { id: 'mha', label: 'MHA', variant: 'mha', params: 10, kvBytesPerToken: 64, seeds: seeds(2.0, 2.2, 2.4) },
    { id: 'mqa', label: 'MQA', variant: 'mqa', params: 8, kvBytesPerToken: 8, seeds: seeds(3.0, 3.2, 3.4) },
    { id: 'gqa2', label: 'GQA', variant: 'gqa', nKvHeads: 2, params: 9, kvBytesPerToken: 16, seeds: seeds(2.1, 2.3, 2.5) },
  ] });
  assert.deepEqual(rows.map((r) => r.kvHeads), [8, 1, 2]);
  assert.ok(Math.abs(rows[0].bits.mean - 2.2) < 1e-12 && Math.abs(rows[0].bits.sd - 0.2) < 1e-12);
  assert.equal(rows[0].vsMha, null);
  assert.deepEqual(rows[1].seedBits, [3.0, 3.2, 3.4], 'each seed\'s figure, for the scatter\'s bars');
  // MQA: +1.0 with se sqrt(0.04/3 + 0.04/3) = 0.1633: measurable. GQA: +0.1, same se: not.
  assert.ok(Math.abs(rows[1].vsMha.diff - 1.0) < 1e-12);
  assert.ok(Math.abs(rows[1].vsMha.se - Math.sqrt(0.08 / 3)) < 1e-12);
  assert.equal(rows[1].vsMha.measurable, true);
  assert.ok(Math.abs(rows[2].vsMha.diff - 0.1) < 1e-12);
  assert.equal(rows[2].vsMha.measurable, false);
  assert.ok(rows.every((r) => r.settled) && rows.slice(1).every((r) => r.vsMha.settled));
});

test('one seed: a mean, no spread, no difference settled (and the verdict says so, not ± 0)', () => {
  const rows = zooRows({ geometry: { nHeads: 8 }, models: [
    { id: 'mha', label: 'MHA', variant: 'mha', params: 10, kvBytesPerToken: 64, seeds: seeds(2.0) },
    { id: 'mqa', label: 'MQA', variant: 'mqa', params: 8, kvBytesPerToken: 8, seeds: seeds(3.0) },
  ] });
  assert.deepEqual(rows.map((r) => [r.bits.mean, r.bits.n, r.settled]), [[2, 1, false], [3, 1, false]]);
  assert.equal(rows[1].vsMha.diff, 1);
  assert.equal(rows[1].vsMha.measurable, false);
  assert.equal(rows[1].vsMha.settled, false);
  assert.equal(verdictText(rows[1].vsMha), '+1.000, one seed: not settled');
  assert.equal(verdictText(null), 'the baseline');
});

test('two seeds: a spread, shown, but too rough to name a difference by (the labs\' three seeds)', () => {
  const rows = zooRows({ geometry: { nHeads: 8 }, models: [
    { id: 'mha', label: 'MHA', variant: 'mha', params: 10, kvBytesPerToken: 64, seeds: seeds(2.0, 2.2) },
    { id: 'mqa', label: 'MQA', variant: 'mqa', params: 8, kvBytesPerToken: 8, seeds: seeds(3.0, 3.2, 3.4) },
  ] });
  assert.equal(SETTLED_SEEDS, 3);
  assert.deepEqual(rows.map((r) => [r.bits.n, r.settled]), [[2, false], [3, true]]);
  assert.ok(Math.abs(rows[0].bits.sd - Math.SQRT2 / 10) < 1e-12, 'the spread of two seeds is still given');
  // +1.1 with se sqrt(0.02/2 + 0.04/3) = 0.153: more than twice its se, yet MHA has two seeds only
  assert.equal(rows[1].vsMha.measurable, true);
  assert.equal(rows[1].vsMha.settled, false);
  assert.equal(rows[1].vsMha.seeds, 2);
  assert.equal(verdictText(rows[1].vsMha), '+1.100, 2 seeds: not settled');
});

test('the shipped manifest: six rows, each with the manifest\'s seeds, MHA the baseline', () => {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../web/zoo/manifest.json', import.meta.url), 'utf8'));
  const rows = zooRows(manifest);
  assert.deepEqual(rows.map((r) => r.id), ['mha', 'gqa4', 'gqa2', 'mqa', 'mla32', 'mla16']);
  assert.deepEqual(rows.map((r) => r.kvHeads), [8, 4, 2, 1, null, null]);
  const n = manifest.training.seeds.length;
  for (const r of rows) assert.equal(r.bits.n, n);
  for (const r of rows) assert.ok(Number.isFinite(r.bits.mean) && r.bits.mean > 0, r.id);
  assert.equal(rows[0].vsMha, null);
  for (const r of rows.slice(1)) assert.ok(Number.isFinite(r.vsMha.diff) && r.vsMha.settled === n >= SETTLED_SEEDS && (n === 1 || r.vsMha.se > 0), r.id);
});

test('the words under the table: the verdicts as lists, and what else differs between the runs, from the manifest', () => {
  const model = (id, variant, bits, extra = {}) => ({ id, label: id, variant, params: 9, kvBytesPerToken: 8, ...extra,
    seeds: bits.map((b, i) => ({ seed: i + 1, bitsPerToken: b, syntheticSteps: extra.start ?? 1500, bestInduction: extra.induction?.[i] ?? 0.8 })) });
  const rows = zooRows({ geometry: { nHeads: 8 }, models: [
    model('mha', 'mha', [2.0, 2.2, 2.4]),
    model('gqa2', 'gqa', [2.1, 2.3, 2.5], { nKvHeads: 2 }),                      // +0.1, se 0.163: none
    model('mla16', 'mla', [3.0, 3.2, 3.4], { latentRank: 16, start: 3000, induction: [0.9, 0.01, 0.8] }),  // +1.0: worse
  ] });
  assert.equal(verdictWords(rows), 'No measurable difference from MHA: GQA, 2 KV heads. Worse than MHA by more than twice the standard error: MLA, latent 16.');
  assert.equal(runsDiffer(rows), 'The runs differ in more than their attention: each model first learned to copy on short windows of random words, ' +
    'for 3,000 steps (MLA, latent 16) or 1,500 (the others). The induction circuit formed on some seeds and not on others, so a difference here ' +
    'is one of these runs, not of the attention alone.');
  // the same starts and the circuit on every seed: nothing more to say
  const alike = zooRows({ geometry: { nHeads: 8 }, models: [model('mha', 'mha', [2.0, 2.2, 2.4]), model('mqa', 'mqa', [2.0, 2.1, 2.3])] });
  assert.equal(runsDiffer(alike), '');
  assert.equal(verdictWords(alike), 'No measurable difference from MHA: MQA.');
});
