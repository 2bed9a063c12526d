// The compare view's table of the zoo (web/src/sources/zoo-stats.js): mean ± sd over the seeds and
// the difference from MHA with its standard error, on a small manifest worked by hand and on the
// shipped one (every variant's row, MHA's without a difference).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { zooRows } from '../../web/src/sources/zoo-stats.js';

const seeds = (...bits) => bits.map((b, i) => ({ seed: i + 1, bitsPerChar: b }));

test('mean ± sd and the difference from MHA, worked by hand', () => {
  const rows = zooRows({ geometry: { nHeads: 8 }, models: [
    { id: 'mha', label: 'MHA', variant: 'mha', params: 10, kvBytesPerToken: 64, seeds: seeds(2.0, 2.2, 2.4) },
    { id: 'mqa', label: 'MQA', variant: 'mqa', params: 8, kvBytesPerToken: 8, seeds: seeds(3.0, 3.2, 3.4) },
    { id: 'gqa2', label: 'GQA', variant: 'gqa', nKvHeads: 2, params: 9, kvBytesPerToken: 16, seeds: seeds(2.1, 2.3, 2.5) },
  ] });
  assert.deepEqual(rows.map((r) => r.kvHeads), [8, 1, 2]);
  assert.ok(Math.abs(rows[0].bits.mean - 2.2) < 1e-12 && Math.abs(rows[0].bits.sd - 0.2) < 1e-12);
  assert.equal(rows[0].vsMha, null);
  // MQA: +1.0 with se sqrt(0.04/3 + 0.04/3) = 0.1633: measurable. GQA: +0.1, same se: not.
  assert.ok(Math.abs(rows[1].vsMha.diff - 1.0) < 1e-12);
  assert.ok(Math.abs(rows[1].vsMha.se - Math.sqrt(0.08 / 3)) < 1e-12);
  assert.equal(rows[1].vsMha.measurable, true);
  assert.ok(Math.abs(rows[2].vsMha.diff - 0.1) < 1e-12);
  assert.equal(rows[2].vsMha.measurable, false);
});

test('the shipped manifest: six rows, 5 seeds each, MHA the baseline', () => {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../web/zoo/manifest.json', import.meta.url), 'utf8'));
  const rows = zooRows(manifest);
  assert.deepEqual(rows.map((r) => r.id), ['mha', 'gqa4', 'gqa2', 'mqa', 'mla32', 'mla16']);
  assert.deepEqual(rows.map((r) => r.kvHeads), [8, 4, 2, 1, null, null]);
  for (const r of rows) assert.equal(r.bits.n, 5);
  assert.equal(rows[0].vsMha, null);
  for (const r of rows.slice(1)) assert.ok(Number.isFinite(r.vsMha.diff) && r.vsMha.se > 0, r.id);
});
