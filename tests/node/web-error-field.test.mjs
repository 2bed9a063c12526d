// web-error-field.test.mjs: a core error on the shape goes under the field the learner can fix
// (web/src/parts/error-field.js): the one just edited, or the one whose default makes the shape valid
// again; never under a field the page derived (dHead 0 = dModel / nHeads).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO } from './helpers.mjs';

const { errorField } = await import(pathToFileURL(path.join(REPO, 'web/src/parts/error-field.js')).href);
const { DEFAULTS } = await import(pathToFileURL(path.join(REPO, 'web/src/state.js')).href);

// The core's rules that matter here (core/src/spec.cpp), with its largest head size.
const MAX_DHEAD = 4096;
const valid = async (s) => {
  const dh = s.dHead ?? s.dModel / s.nHeads;
  if (!Number.isInteger(dh) || dh > MAX_DHEAD) return false;
  if (s.variant === 'gqa' && (s.nKvHeads > s.nHeads || s.nHeads % s.nKvHeads !== 0)) return false;
  return true;
};
const err = (field) => Object.assign(new RangeError(`${field} …`), { field });
const state = (patch) => ({ ...DEFAULTS, ...patch });

test('a rule between two fields: under the one edited, else under the one whose default makes the shape valid', async () => {
  const s = state({ variant: 'gqa', nHeads: 8, nKvHeads: 3 });
  assert.equal(await valid({ ...s }), false);
  // ?v=2&variant=gqa&nHeads=8&nKvHeads=3: the core names nHeads; nKvHeads = 3 is what breaks the shape
  assert.equal(await errorField(err('nHeads'), s, { valid }), 'nKvHeads');
  assert.equal(await errorField(err('nHeads'), s, { valid, edited: 'nKvHeads' }), 'nKvHeads');
  // the learner typed nHeads 7 with 2 K/V heads: the error stays under nHeads
  assert.equal(await errorField(err('nHeads'), state({ variant: 'gqa', nHeads: 7, nKvHeads: 2 }), { valid, edited: 'nHeads' }), 'nHeads');
  assert.equal(await errorField(err('nHeads'), state({ variant: 'gqa', nHeads: 7, nKvHeads: 2 }), { valid }), 'nHeads');
});

test('a derived value: dHead 0 (dModel / nHeads) is not the learner\'s, its error goes under dModel', async () => {
  const s = state({ dModel: 131072, nHeads: 1 });
  assert.equal(s.dHead, 0);
  assert.equal(await errorField(err('dHead'), s, { valid }), 'dModel');
  assert.equal(await errorField(err('dHead'), s, { valid, edited: 'nHeads' }), 'nHeads');
  // a dHead the learner set keeps its error
  assert.equal(await errorField(err('dHead'), state({ dHead: 8192 }), { valid }), 'dHead');
});

test('fields outside the shape keep the core\'s field; no field stays no field', async () => {
  assert.equal(await errorField(err('seed'), state({}), { valid }), 'seed');
  assert.equal(await errorField(new RangeError('this session needs about 9 MiB'), state({}), { valid }), '');
});
