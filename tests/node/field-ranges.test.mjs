// field-ranges.test.mjs: docs/api.md states the range of every number field the core checks, and the
// core's field tables (spec_number_fields, trainer_number_fields: the ranges resolve() and the
// Trainer check) say the same. The tables are read from the raw modules (their internal
// _fieldRanges); each range is also probed at its ends through the API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { LIB_DIR, REPO, load } from './helpers.mjs';

const DOC = fs.readFileSync(path.join(REPO, 'docs/api.md'), 'utf8');

/** '131,072' -> 131072, '2^53 - 1' -> 2^53 - 1 */
const number = (s) => (s.trim() === '2^53 - 1' ? 2 ** 53 - 1 : Number(s.replaceAll(',', '')));
const RANGE = /(2\^53 - 1|\d[\d,]*) to (2\^53 - 1|\d[\d,]*)/;

/** The rows of the markdown table under `heading`: cells of each row. */
function table(heading) {
  const at = DOC.indexOf(heading);
  assert.ok(at >= 0, heading);
  const lines = DOC.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows = [];
  for (let i = start + 2; lines[i]?.startsWith('|'); i++) rows.push(lines[i].split('|').slice(1, -1).map((c) => c.trim()));
  return rows;
}
/** field name -> [lo, hi] from rows whose first cell names fields (`a`, `b`) and whose `col` holds "lo to hi" ranges. */
function docRanges(rows, col) {
  const out = {};
  for (const r of rows) {
    const names = [...r[0].matchAll(/`(\w+)`/g)].map((m) => m[1]);
    const ranges = r[col].split(';').map((c) => RANGE.exec(c)).filter(Boolean);
    names.forEach((n, i) => { if (ranges[i]) out[n] = [number(ranges[i][1]), number(ranges[i][2])]; });
  }
  return out;
}

async function rawModule(name) {
  const factory = (await import(pathToFileURL(path.join(LIB_DIR, `${name}.mjs`)).href)).default;
  return factory({ wasmBinary: fs.readFileSync(path.join(LIB_DIR, `${name}.wasm`)) });
}

test('the forward table of docs/api.md states the ranges the core checks', async () => {
  const M = await rawModule('attention-simd');
  const core = Object.fromEntries(M._fieldRanges().map((f) => [f.name, [f.lo, f.hi]]));
  const doc = docRanges(table('## forward'), 3);
  const maxLen = /`maxLen` \((\d[\d,]*) to (\d[\d,]*)/.exec(DOC);
  doc.maxLen = [number(maxLen[1]), number(maxLen[2])];
  assert.deepEqual(doc, core);
});

test('the training table of docs/api.md states the ranges the trainer checks', async () => {
  const T = await rawModule('attention-train-simd');
  const ranges = T._fieldRanges();
  const core = Object.fromEntries(ranges.filter((f) => f.integer).map((f) => [f.name, [f.lo, f.hi]]));
  const all = docRanges(table('## Training (the lab)').filter((r) => r[0] !== '`model`'), 2);
  const doc = Object.fromEntries(Object.entries(all).filter(([name]) => ranges.find((f) => f.name === name)?.integer));
  const nLayers = /nLayers = 1 \((\d+) to (\d+)\)/.exec(DOC);
  doc.nLayers = [number(nLayers[1]), number(nLayers[2])];
  assert.deepEqual(doc, core);
  const numbers = T._fieldRanges().filter((f) => !f.integer);
  const lr = numbers.find((f) => f.name === 'learningRate');
  assert.ok(lr.loOpen && lr.lo === 0 && lr.hi === 1 && /`learningRate` \| 3e-3 \| greater than 0, at most 1/.test(DOC));
  const wd = numbers.find((f) => f.name === 'weightDecay');
  assert.ok(!wd.loOpen && wd.lo === 0 && wd.hi === 1 && /`weightDecay` \| 0.01 \| 0 to 1/.test(DOC));
});

test('each range holds at its ends through the API (the last value accepted, the next refused)', async () => {
  const attn = await load(true);
  const spec = { variant: 'mla', seqLen: 2, dModel: 8, nHeads: 2, latentRank: 4 };
  for (const [field, hi] of [['seed', 2 ** 53 - 1], ['nHeads', 4096], ['ropeDim', 4096]]) {
    const s = { ...spec, ...(field === 'nHeads' ? { dHead: 1 } : {}) };
    assert.doesNotThrow(() => attn.resolveShape({ ...s, [field]: hi }), field);
    assert.throws(() => attn.resolveShape({ ...s, [field]: hi + (field === 'ropeDim' ? 2 : 1) }), (e) => e.field === field, field);
  }
});
