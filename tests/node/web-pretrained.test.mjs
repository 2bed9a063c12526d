// The page's pretrained source, the parts that run without a browser: the head-role probe and its
// scores (web/src/sources/head-roles.js) on maps whose roles are known by construction, the next-token
// ranking (web/src/worker-pretrained.js topNext) against a plain sort, and the worker's open of a fixture
// (the cache's bytes per element from the core's own figures: the file's dtype).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { headRoles, probeLength, roleKey, roleProbe } from '../../web/src/sources/head-roles.js';
import { pretrainedMethods, topNext } from '../../web/src/worker-pretrained.js';
import { load } from './helpers.mjs';
import { CASES, FIXTURES, config, weights } from './pretrained-kit.mjs';

test('the probe: T distinct ids in the vocabulary, then the same T again; the same for the same seed', () => {
  const info = { vocabSize: 50, maxPositions: 40 };
  const p = roleProbe(info, 3);
  assert.equal(p.T, 20);
  assert.equal(p.ids.length, 40);
  assert.equal(new Set(p.ids.slice(0, p.T)).size, p.T);
  assert.deepEqual(p.ids.slice(p.T), p.ids.slice(0, p.T));
  assert.ok(p.ids.every((id) => Number.isInteger(id) && id >= 0 && id < 50));
  assert.deepEqual(roleProbe(info, 3), p);
  assert.notDeepEqual(roleProbe(info, 4).ids, p.ids);
  assert.equal(probeLength({ vocabSize: 8, maxPositions: 1024 }), 4, 'T distinct ids need a vocabulary of T');
  assert.equal(probeLength({ vocabSize: 50000, maxPositions: 1024 }), 32);
});

test('scores of heads built to do one thing each', () => {
  const T = 5, N = 2 * T, H = 4;
  const maps = new Float32Array(H * N * N);
  const put = (h, i, j) => { maps[(h * N + i) * N + j] = 1; };
  for (let i = 0; i < N; i++) {
    put(0, i, Math.max(0, i - 1));            // previous token (query 0 can only see itself)
    put(1, i, 0);                             // first-token sink
    put(2, i, i >= T ? i - T + 1 : i);        // induction on the second copy, else itself
    put(3, i, i >= T ? i - T : i);            // duplicate token on the second copy, else itself
  }
  const s = headRoles([maps], { T });
  assert.deepEqual(s.map((x) => [x.layer, x.head]), [[0, 0], [0, 1], [0, 2], [0, 3]]);
  assert.equal(s[0].previousToken, 1);
  assert.equal(s[0].firstToken, 1 / (N - 1), 'only query 1 has its previous token at 0');
  assert.equal(s[1].firstToken, 1);
  assert.equal(s[1].previousToken, 1 / (N - 1));
  assert.equal(s[2].induction, 1);
  assert.equal(s[2].duplicateToken, 0);
  assert.equal(s[2].firstToken, 0, 'query T reads key 1, never key 0');
  assert.equal(s[3].duplicateToken, 1);
  assert.equal(s[3].induction, 0);
  assert.deepEqual(s.map((x) => roleKey(x)), ['previousToken', 'firstToken', 'induction', 'duplicateToken']);
  assert.equal(roleKey({ previousToken: 0.1, induction: 0.1, firstToken: 0.2, duplicateToken: 0 }), '', 'no score above 0.4: no role');
});

test('topNext: the k largest logits in order, with their softmax probabilities', () => {
  const logits = Float32Array.from([0.5, 3, -1, 3.5, 2, 0, 9, 9.5, 1]);  // a second row from offset 4
  const top = topNext(logits, 4, 5, 3);
  assert.deepEqual(top.map((t) => t.id), [3, 2, 0]);
  const z = [2, 0, 9, 9.5, 1].reduce((a, v) => a + Math.exp(v), 0);
  top.forEach((t) => assert.ok(Math.abs(t.p - Math.exp(logits[4 + t.id]) / z) < 1e-12));
});

test('the worker opens a fixture: the shape the views read, and the cache\'s bytes per element in the file\'s dtype', async () => {
  const attn = await load(true);
  const job = { signal: new AbortController().signal, progress: () => {} };
  for (const name of ['gpt2', 'qwen2', 'mistral', 'deepseek_v2']) {
    const c = CASES.find((x) => x.name === name);
    const r = await pretrainedMethods.pretrainedOpen(attn, name, { config: config(name), weights: weights(name) }, job);
    assert.equal(r.dtypeBytes, c.dtype === 'F32' ? 4 : 2, `${name} is ${c.dtype}`);
    assert.equal(r.shape.cacheFloatsPerToken * r.info.nLayers * r.dtypeBytes, r.info.kvBytesPerToken, name);
    assert.deepEqual(r.shape.kvHeadOf, r.info.kvHeadOf);
    const f = pretrainedMethods.pretrainedForward(attn, name, [1, 2, 3]);
    assert.equal(f.attentions.length, r.info.nLayers * r.info.nHeads * 9);
    assert.equal(f.next.length, 10);
    const roles = pretrainedMethods.pretrainedHeadRoles(attn, name);
    assert.equal(roles.scores.length, r.info.nLayers * r.info.nHeads);
    pretrainedMethods.pretrainedDispose(attn, name);
  }
});

test('token labels: the text a token stands for, one-to-one with ids (web/src/sources/token-labels.js)', async () => {
  const { tokenLabels } = await import('../../web/src/sources/token-labels.js');
  const attn = await load(true);
  const read = (f) => fs.readFileSync(path.join(FIXTURES, 'gpt2', f), 'utf8');
  const tok = await attn.loadTokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  const { label, idOf } = tokenLabels(tok);
  const ids = [...tok.encode('the cat sat on the mat').ids];
  const labels = ids.map(label);
  assert.ok(ids.some((id) => tok.idToToken(id).startsWith('Ġ')), 'the fixture has byte-level BPE pieces (Ġ: a space)');
  assert.deepEqual(labels, ids.map((id) => tok.decode([id])), 'each label is its token\'s text');
  assert.ok(labels.every((l) => !l.includes('Ġ')), labels.join('|'));
  const seen = new Set();
  for (let id = 0; id < tok.vocabSize; id++) {
    const l = label(id);
    assert.ok(!seen.has(l), `label '${l}' of id ${id} is taken by another id`);
    seen.add(l);
    assert.equal(idOf(l), id, `idOf(label(${id}))`);
  }
  // A tokenizer whose two ids read alike, and one whose id is not text alone.
  const fake = { idToToken: (id) => ['a', '<0x61>', '<0xE0>'][id], tokenToId: () => undefined,
    decode: ([id]) => ['a', 'a', '\uFFFD'][id] };
  const f = tokenLabels(fake);
  assert.deepEqual([0, 1, 2].map(f.label), ['a', 'a (<0x61>)', '<0xE0>']);
  assert.deepEqual(['a', 'a (<0x61>)', '<0xE0>'].map(f.idOf), [0, 1, 2]);
  assert.deepEqual([tokenLabels(null).label(7), tokenLabels(null).idOf('7')], ['7', 7]);
});

test('topNext keeps the k best in one pass: the same ids and order as a sort of the whole vocabulary, ties included', () => {
  let s = 7;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (const [vocab, k] of [[1, 5], [3, 5], [5, 5], [1000, 10], [49152, 5]]) {
    // logits on a coarse grid, so that many tie
    const logits = Float32Array.from({ length: 2 * vocab }, () => Math.round(rand() * 40) / 4);
    const offset = vocab;
    const twin = Array.from({ length: vocab }, (_, j) => j)
      .sort((a, b) => logits[offset + b] - logits[offset + a] || a - b).slice(0, k);
    assert.deepEqual(topNext(logits, offset, vocab, k).map((t) => t.id), twin, `vocab ${vocab}, k ${k}`);
  }
});
