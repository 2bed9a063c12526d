// "Check yourself" (web/src/views/check.js): the answer checker (web/src/lesson/answer.js) reads what a
// learner types and compares it with the core's answer; every question (web/src/lesson/questions.js)
// measures its answer and its explanation's numbers on the core (the worker's own methods), and they
// are the lesson's; each "Show me" names a section of the page and a state the core takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, importLib } from './helpers.mjs';
import { checkAnswer, readNumber } from '../../web/src/lesson/answer.js';
import { QUESTIONS } from '../../web/src/lesson/questions.js';
import { methods } from '../../web/src/worker-methods.js';
import { DEFAULTS, shapeSpec } from '../../web/src/state.js';
import { CATALOGS } from './i18n-kit.mjs';

/** The worker's proxy (client.call), on the core itself through the worker's methods. */
const clientOf = (attn) => ({ call: async (method, ...args) => methods[method](attn, ...args) });
const number = { kind: 'number' };

test('readNumber: digits with spaces around, a decimal point, grouping, Devanagari digits and a trailing ×', () => {
  for (const text of ['64', '64.0', ' 64 ', '\t64\n', '+64', '6.4e1', '६४', '64×', '64 x']) assert.deepEqual(readNumber(text), { value: 64 }, text);
  assert.deepEqual(readNumber('16,384'), { value: 16384 });
  assert.deepEqual(readNumber('10,73,74,18,240'), { value: 10737418240 }, 'hi-IN grouping');
  assert.deepEqual(readNumber('0.5'), { value: 0.5 });
  assert.deepEqual(readNumber('.5'), { value: 0.5 });
});

test('readNumber refuses what is not a number, with the text it was given', () => {
  assert.deepEqual(readNumber(''), { problem: 'empty', text: '' });
  assert.deepEqual(readNumber('   '), { problem: 'empty', text: '' });
  assert.deepEqual(readNumber(null), { problem: 'empty', text: '' });
  for (const text of ['abc', '6 4', '64abc', '0x40', 'Infinity', 'NaN', '1,2', '64..0', '--64', ',']) {
    assert.deepEqual(readNumber(text), { problem: 'notNumber', text }, text);
  }
  assert.deepEqual(readNumber(' abc '), { problem: 'notNumber', text: 'abc' });
});

test('checkAnswer: a number against the core\'s answer; a choice against the right one; nothing given is said so', () => {
  assert.deepEqual(checkAnswer(number, '64', { answer: 64 }), { verdict: 'right' });
  assert.deepEqual(checkAnswer(number, '64.0', { answer: 64 }), { verdict: 'right' });
  assert.deepEqual(checkAnswer(number, ' 64 ', { answer: 64 }), { verdict: 'right' });
  assert.deepEqual(checkAnswer(number, '63', { answer: 64 }), { verdict: 'wrong' });
  assert.deepEqual(checkAnswer(number, '64.001', { answer: 64 }), { verdict: 'wrong' });
  assert.deepEqual(checkAnswer(number, 'abc', { answer: 64 }), { verdict: 'invalid', problem: 'notNumber', text: 'abc' });
  assert.deepEqual(checkAnswer(number, '', { answer: 64 }), { verdict: 'invalid', problem: 'empty', text: '' });
  const choice = { kind: 'choice', right: 'b' };
  assert.deepEqual(checkAnswer(choice, 'b', {}), { verdict: 'right' });
  assert.deepEqual(checkAnswer(choice, 'a', {}), { verdict: 'wrong' });
  assert.deepEqual(checkAnswer(choice, null, {}), { verdict: 'invalid', problem: 'noChoice' });
});

test('the messages of a refused answer name the value typed, in every language', () => {
  for (const [lang, catalog] of Object.entries(CATALOGS)) {
    assert.match(catalog['check.problem.notNumber'], /\{text\}/, lang);
    assert.ok(catalog['check.problem.empty'].trim(), lang);
  }
});

test('every question\'s answer and explanation come from the core, and they are the lesson\'s', async () => {
  const attn = await (await importLib()).loadAttention();
  const client = clientOf(attn);
  const m = Object.fromEntries(await Promise.all(QUESTIONS.map(async (q) => [q.id, await q.measure(client)])));
  // The lesson's numbers, as it states them.
  assert.equal(m.headWidth.answer, 64, 'd_model 512 / 8 heads');
  assert.equal(m.sameCost.answer, 16384, '4 · 64²');
  assert.equal(m.sameCost.params.one, m.sameCost.params.heads, 'one head of width D costs what 8 heads of D/8 cost');
  assert.equal(m.kvHeadOf.answer, 1, 'query head 5 of 8, 2 K/V heads: floor(5 / 4)');
  assert.deepEqual([m.kvHeadOf.params.first, m.kvHeadOf.params.last, m.kvHeadOf.params.size], [4, 7, 4]);
  assert.equal(m.kvRatio.answer, 8, 'Llama 3 70B: an 8x smaller cache');
  assert.deepEqual([m.kvRatio.params.mha, m.kvRatio.params.gqa], [2 * 64 * 128, 2 * 8 * 128]);
  assert.deepEqual([m.mlaCache.params.mla, m.mlaCache.params.mha], [16 + 4, 2 * 4 * 16], 'r + dr against 2 · H · dh');
  assert.deepEqual([m.cacheBound.params.mha, m.cacheBound.params.twice, m.cacheBound.params.gqa, m.cacheBound.params.mla], [1024, 1024, 256, 80]);
  assert.equal(m.wo.params.wo, 64 * 64);
  assert.equal(m.badWidth.refusal.field, 'dModel', 'the core names the field');
  assert.match(m.badWidth.refusal.message, /dModel \(510\) must be divisible by nHeads \(8\)/);
  assert.deepEqual([m.badWidth.params.dh, m.badWidth.params.own], [64, 64]);
  // Every number question has an answer, every choice question a right choice among its choices.
  for (const q of QUESTIONS) {
    if (q.kind === 'number') assert.ok(Number.isFinite(m[q.id].answer), q.id);
    else assert.ok(q.choices.includes(q.right), q.id);
  }
});

test('every "Show me" names a section of the page and a state the core takes (the 510 one: refused, on dModel)', async () => {
  const attn = await (await importLib()).loadAttention();
  const client = clientOf(attn);
  const sections = [...fs.readFileSync(path.join(REPO, 'web/src/registry.js'), 'utf8').matchAll(/\{ id: '([a-z-]+)'/g)].map((x) => x[1]);
  assert.ok(sections.length >= 10, `views: ${sections}`);
  for (const q of QUESTIONS) {
    const { section, patch, field } = await q.show(client);
    assert.ok(section === 'controls' || sections.includes(section), `${q.id}: ${section}`);
    for (const key of Object.keys(patch)) assert.ok(key in DEFAULTS, `${q.id}: ${key} is a state key`);
    const spec = shapeSpec({ ...DEFAULTS, ...patch });
    if (q.id === 'badWidth') {
      assert.equal(field, 'dModel');
      assert.throws(() => attn.resolveShape(spec), (e) => e.field === 'dModel');
    } else {
      assert.doesNotThrow(() => attn.resolveShape(spec), q.id);
    }
  }
  const kv = await QUESTIONS.find((q) => q.id === 'kvRatio').show(client);
  assert.deepEqual([kv.patch.variant, kv.patch.nHeads, kv.patch.nKvHeads], ['gqa', 64, 8]);
});
