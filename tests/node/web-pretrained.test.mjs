// The page's pretrained source, the parts that run without a browser: the head-role probe and its
// scores (web/src/sources/head-roles.js) on maps whose roles are known by construction, the next-token
// ranking (web/src/worker-pretrained.js topNext) against a plain sort, and the worker's open of a fixture
// (the cache's bytes per element from the core's own figures: the file's dtype).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { headRoles, meanScores, probeBaselines, probeLength, probeOf, roleKey, roleProbe, roleScores } from '../../web/src/sources/head-roles.js';
import { pretrainedMethods, topNext } from '../../web/src/worker-pretrained.js';
import { load } from './helpers.mjs';
import { CASES, FIXTURES, config, weights } from './pretrained-kit.mjs';

test('the probe: T distinct ordinary ids, then the same T again, BOS first where the model uses one; the same for the same seed', () => {
  const info = { vocabSize: 50, maxPositions: 41 };
  const p = roleProbe(info, { seed: 3 });
  assert.equal(p.T, 8);
  assert.equal(p.offset, 0);
  assert.equal(p.ids.length, 16);
  assert.equal(new Set(p.ids.slice(0, p.T)).size, p.T);
  assert.deepEqual(p.ids.slice(p.T), p.ids.slice(0, p.T));
  assert.ok(p.ids.every((id) => Number.isInteger(id) && id >= 0 && id < 50));
  assert.deepEqual(roleProbe(info, { seed: 3 }), p);
  assert.notDeepEqual(roleProbe(info, { seed: 4 }).ids, p.ids);
  // ordinary tokens only (here: even ids), BOS once at the start and never among the drawn ones
  const q = roleProbe({ vocabSize: 500, maxPositions: 1024 }, { seed: 1, bos: 2, ordinary: (id) => id % 2 === 0 });
  assert.equal(q.offset, 1);
  assert.equal(q.ids[0], 2);
  assert.equal(q.ids.length, 2 * q.T + 1);
  assert.ok(q.ids.slice(1).every((id) => id % 2 === 0 && id !== 2), q.ids.join(' '));
  assert.equal(probeLength({ vocabSize: 8, maxPositions: 1024 }), 4, 'T distinct ids need a vocabulary of T');
  assert.equal(probeLength({ vocabSize: 50000, maxPositions: 1024 }), 8, 'short, as the learner\'s sentences are');
  assert.equal(probeLength({ vocabSize: 50000, maxPositions: 9 }), 4, 'BOS and 2T ids fit the learned positions');
  assert.deepEqual(probeOf([5, 6, 7], { bos: 1 }).ids, [1, 5, 6, 7, 5, 6, 7]);
  // several probes' scores: their mean, head by head (a null score stays null)
  const a = [{ layer: 0, head: 0, previousToken: 0.2, firstToken: 0.4, duplicateToken: null, induction: 0 }];
  const b = [{ layer: 0, head: 0, previousToken: 0.6, firstToken: 0, duplicateToken: null, induction: 1 }];
  assert.deepEqual(meanScores([a, b]), [{ layer: 0, head: 0, previousToken: 0.4, firstToken: 0.2, duplicateToken: null, induction: 0.5 }]);
});

test('scores of heads built to do one thing each, on the probe and on any sentence', () => {
  const T = 5, N = 2 * T, H = 4;
  const maps = new Float32Array(H * N * N);
  const put = (h, i, j) => { maps[(h * N + i) * N + j] = 1; };
  for (let i = 0; i < N; i++) {
    put(0, i, Math.max(0, i - 1));            // previous token (query 0 can only see itself)
    put(1, i, 0);                             // first-token sink
    put(2, i, i >= T ? i - T + 1 : i);        // induction on the second copy, else itself
    put(3, i, i >= T ? i - T : i);            // duplicate token on the second copy, else itself
  }
  const ids = [10, 11, 12, 13, 14, 10, 11, 12, 13, 14];
  const s = headRoles([maps], { ids, T });
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
  // with the probe (BOS + 2 · 8 tokens): a role only where the score clearly beats a uniform head's
  const probe = { T: 8, offset: 1 };
  const b = probeBaselines(probe);
  assert.ok(Math.abs(b.previousToken - Array.from({ length: 16 }, (_, k) => 1 / (k + 2)).reduce((x, y) => x + y) / 16) < 1e-12);
  assert.equal(roleKey({ previousToken: 0.3, firstToken: 0.2, induction: 0.1, duplicateToken: 0.1 }, probe), '', '0.3 is not clear of uniform (0.15) on 17 positions');
  assert.equal(roleKey({ previousToken: 0.45, firstToken: 0.5, induction: 0.1, duplicateToken: 0.1 }, probe), 'firstToken');
  assert.equal(roleKey({ previousToken: 0.45, firstToken: 0.2, induction: 0.1, duplicateToken: 0.1 }, probe), 'previousToken');
  // a sentence without a repeated token: no duplicate or induction score, and roleKey ignores them
  const own = roleScores([maps], [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
  assert.equal(own[0].previousToken, 1);
  assert.equal(own[3].duplicateToken, null);
  assert.equal(own[3].induction, null);
  assert.equal(roleKey(own[0]), 'previousToken');
  // one repeat ("the" at 0 and 4): the duplicate and induction queries are that one position
  const N2 = 6, one = new Float32Array(N2 * N2);
  for (let i = 0; i < N2; i++) one[i * N2 + (i === 4 ? 1 : i)] = 1;  // query 4 reads key 1: what followed "the"
  const r = roleScores([one], [7, 8, 9, 5, 7, 3]);
  assert.equal(r[0].induction, 1);
  assert.equal(r[0].duplicateToken, 0);
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
    const roles = pretrainedMethods.pretrainedHeadRoles(attn, name, { probes: [0, 1].map((seed) => roleProbe(r.info, { seed }).ids) });
    assert.equal(roles.scores.length, r.info.nLayers * r.info.nHeads);
    const written = pretrainedMethods.pretrainedWrites(attn, name, { start: [1], count: 5 });
    assert.equal(written.length, 5);
    // greedy: each written id is forward's most likely next token after what came before
    const seq = [1, ...written];
    for (let k = 1; k < seq.length; k++) {
      const f2 = pretrainedMethods.pretrainedForward(attn, name, seq.slice(0, k));
      assert.equal(f2.next[0].id, seq[k], `${name}: written token ${k}`);
    }
    const sampled = pretrainedMethods.pretrainedWrites(attn, name, { start: [1], count: 12, temperature: 1, seed: 5 });
    assert.deepEqual(pretrainedMethods.pretrainedWrites(attn, name, { start: [1], count: 12, temperature: 1, seed: 5 }), sampled, 'seeded');
    assert.ok(sampled.every((id) => Number.isInteger(id) && id >= 0 && id < r.info.vocabSize));
    pretrainedMethods.pretrainedDispose(attn, name);
  }
});

test('a real model\'s shape in the worker: the 64 tokens the page takes, past the synchronous cap that guards the main thread', async () => {
  // SmolLM2-135M's shape with random BF16 weights (270 MB): its forward over 64 tokens is about 1.3 s of
  // work by the core's estimate, which the cap refuses on a page's main thread; the worker lifts it.
  const { SMOLLM2_135M, randomBf16Checkpoint } = await import('../../scripts/bench-pretrained.mjs');
  const attn = await load(true);
  const job = { signal: new AbortController().signal, progress: () => {} };
  const r = await pretrainedMethods.pretrainedOpen(attn, 'smollm2', { config: SMOLLM2_135M, weights: randomBf16Checkpoint(SMOLLM2_135M) }, job);
  const ids = Array.from({ length: 64 }, (_, k) => 1 + ((k * 7919) % 40000));
  assert.equal(r.info.nLayers, 30);
  try {
    const f = pretrainedMethods.pretrainedForward(attn, 'smollm2', ids);
    assert.equal(f.attentions.length, 30 * 9 * 64 * 64);
    const st = pretrainedMethods.pretrainedStages(attn, 'smollm2', { ids, layer: 29 });
    assert.equal(st.output.length, 64 * 576);
    pretrainedMethods.pretrainedSessionCreate(attn, 'smollm2', 's', 128);
    const a = pretrainedMethods.pretrainedSessionAppend(attn, 's', { ids, layer: 0 });
    assert.equal(a.length, 64);
  } finally {
    pretrainedMethods.pretrainedDispose(attn, 'smollm2');
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
  assert.deepEqual(labels, ids.map((id) => tok.decode([id]).replaceAll(' ', '␣')), 'each label is its token\'s text, its spaces shown');
  assert.ok(labels.includes('␣sat'), labels.join('|'));
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
