// The page's pretrained source, the parts that run without a browser: the head-role probe
// (web/src/sources/head-roles.js; a lab's pairs model's, parts/model-probe.js) and the core's scores of a checkpoint's maps against a naive twin, the next-token
// ranking (web/src/worker-pretrained.js topNext) against a plain sort, and the worker's open of a fixture
// (the cache's bytes per element from the core's own figures: the file's dtype).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { meanScores, probeBaselines, probeLength, probeOf, roleKey, roleProbe } from '../../web/src/sources/head-roles.js';
import { pretrainedMethods, topNext } from '../../web/src/worker-pretrained.js';
import { inputIds, ordinaryToken, specialIds } from '../../web/src/sources/token-kinds.js';
import { modelProbes } from '../../web/src/parts/model-probe.js';
import { load } from './helpers.mjs';
import { CASES, FIXTURES, config, weights } from './pretrained-kit.mjs';

test('the probe: T distinct ordinary ids, a gap of other ids (0-3 by seed), then the same T again, BOS first where the model uses one; the same for the same seed', () => {
  const info = { vocabSize: 50, maxPositions: 41 };
  const p = roleProbe(info, { seed: 3 });
  assert.equal(p.T, 8);
  assert.equal(p.offset, 0);
  assert.equal(p.gap, 3);
  assert.equal(p.ids.length, 19);
  assert.equal(new Set(p.ids.slice(0, p.T + p.gap)).size, p.T + p.gap, 'the T ids and the gap\'s, all distinct');
  assert.deepEqual(p.ids.slice(p.T + p.gap), p.ids.slice(0, p.T));
  assert.deepEqual([0, 1, 2, 3, 4, -1].map((seed) => roleProbe(info, { seed }).gap), [0, 1, 2, 3, 0, 3]);
  assert.deepEqual(roleProbe(info, { seed: 7 }).ids.slice(0, 8), roleProbe({ ...info, maxPositions: 16 }, { seed: 7 }).ids.slice(0, 8),
    'the same T ids whatever the gap');
  assert.equal(roleProbe({ ...info, maxPositions: 17 }, { seed: 3, bos: 1 }).gap, 0, 'no room: BOS and 2T fill the 17 positions');
  assert.equal(roleProbe({ ...info, maxPositions: 18 }, { seed: 3 }).gap, 2, 'the room left: 18 - 2 · 8');
  assert.ok(p.ids.every((id) => Number.isInteger(id) && id >= 0 && id < 50));
  assert.deepEqual(roleProbe(info, { seed: 3 }), p);
  assert.notDeepEqual(roleProbe(info, { seed: 4 }).ids, p.ids);
  // ordinary tokens only (here: even ids), BOS once at the start and never among the drawn ones
  const q = roleProbe({ vocabSize: 500, maxPositions: 1024 }, { seed: 1, bos: 2, ordinary: (id) => id % 2 === 0 });
  assert.equal(q.offset, 1);
  assert.equal(q.ids[0], 2);
  assert.equal(q.gap, 1);
  assert.equal(q.ids.length, 2 * q.T + 1 + 1);
  assert.ok(q.ids.slice(1).every((id) => id % 2 === 0 && id !== 2), q.ids.join(' '));
  assert.equal(probeLength({ vocabSize: 8, maxPositions: 1024 }), 4, 'T distinct ids need a vocabulary of T');
  assert.equal(probeLength({ vocabSize: 50000, maxPositions: 1024 }), 8, 'short, as the learner\'s sentences are');
  assert.equal(probeLength({ vocabSize: 50000, maxPositions: 9 }), 4, 'BOS and 2T ids fit the learned positions');
  assert.deepEqual(probeOf([5, 6, 7], { bos: 1 }).ids, [1, 5, 6, 7, 5, 6, 7]);
  // several probes' scores: their mean, head by head (a null score stays null)
  const a = [{ layer: 0, head: 0, previousToken: 0.2, diagonal: 0.5, firstToken: 0.4, duplicateToken: null, induction: 0 }];
  const b = [{ layer: 0, head: 0, previousToken: 0.6, diagonal: 0.25, firstToken: 0, duplicateToken: null, induction: 1 }];
  assert.deepEqual(meanScores([a, b]), [{ layer: 0, head: 0, previousToken: 0.4, diagonal: 0.375, firstToken: 0.2, duplicateToken: null, induction: 0.5 }]);
});

test('a lab\'s pairs model (config input_vocab_size 8 of 64 ids): its probes hold only the ids it reads, though it writes the others', async () => {
  const config = { model_type: 'gpt2', vocab_size: 64, input_vocab_size: 8 };
  assert.equal(inputIds(config, 64), 8);
  assert.equal(inputIds({ vocab_size: 64 }, 64), 64, 'no key: every id');
  assert.equal(inputIds({ input_vocab_size: 99 }, 64), 64, 'more than the vocabulary: every id');
  assert.equal(inputIds({ input_vocab_size: '8' }, 64), 64, 'not an integer: every id');
  const ordinary = ordinaryToken(null, specialIds(config), inputIds(config, 64));
  assert.deepEqual([0, 7, 8, 63].map(ordinary), [true, true, false, false]);
  // The model writes pair codes: mostly ids 8-63 (here all of them, and id 3 only), as a pairs model does.
  const source = { opened: { info: { vocabSize: 64, maxPositions: 16 }, tokenizer: null }, bos: null, ordinary,
    writes: async ({ count }) => Array.from({ length: count }, (_, i) => (i % 10 === 0 ? 3 : 8 + (i % 56))) };
  const { probes, T } = await modelProbes(source, 0);
  assert.equal(T, 7);
  for (const ids of probes) {
    assert.ok(ids.every((id) => id < 8), ids.join(' '));
    assert.equal(new Set(ids.slice(0, T)).size, T, 'T distinct ids');
  }
});

// The naive twin of the core's head-role scores (core/src/head_roles.cpp): each score the mean of
// one attention weight over its queries, in plain loops over one layer's maps (H, N, N).
function twinRoles(attentions, ids) {
  const N = ids.length, out = [];
  const earlier = ids.map((id, i) => ids.slice(0, i).flatMap((x, j) => (x === id ? [j] : [])));
  const repeats = earlier.filter((js) => js.length).length;
  attentions.forEach((maps, layer) => {
    for (let head = 0; head < maps.length / (N * N); head++) {
      const w = (i, j) => maps[(head * N + i) * N + j];
      let prev = 0, diag = 0, first = 0, dup = 0, ind = 0;
      for (let i = 1; i < N; i++) { prev += w(i, i - 1); diag += w(i, i); first += w(i, 0); }
      for (let i = 0; i < N; i++) for (const j of earlier[i]) { dup += w(i, j); if (j + 1 < i) ind += w(i, j + 1); }
      out.push({ layer, head, previousToken: N > 1 ? prev / (N - 1) : 0, diagonal: N > 1 ? diag / (N - 1) : 0, firstToken: N > 1 ? first / (N - 1) : 0,
        duplicateToken: repeats ? dup / repeats : null, induction: repeats ? ind / repeats : null });
    }
  });
  return out;
}

test('the probes\' gaps: a head that attends a fixed distance back is an induction head on one probe of four, and is not named one', () => {
  const info = { vocabSize: 500, maxPositions: 64 };
  const probes = [0, 1, 2, 3].map((seed) => roleProbe(info, { seed, bos: 1 }));
  assert.deepEqual(probes.map((p) => p.gap), [0, 1, 2, 3]);
  const T = probes[0].T;
  // one layer of two heads, each query's weight all on one key: head 0 on the key T-1 back (key 0 where
  // there is none; on a probe without a gap, that is the induction key), head 1 on the token after the
  // query token's earlier copy (an induction head; key 0 where there is none)
  const mapsOf = (ids) => {
    const N = ids.length, m = new Float64Array(2 * N * N);
    for (let i = 0; i < N; i++) {
      m[i * N + Math.max(0, i - (T - 1))] = 1;
      const j = ids.slice(0, i).lastIndexOf(ids[i]);
      m[N * N + i * N + (j >= 0 && j + 1 < i ? j + 1 : 0)] = 1;
    }
    return m;
  };
  const each = probes.map((p) => twinRoles([mapsOf(p.ids)], p.ids));
  assert.deepEqual(each.map((r) => r[0].induction), [1, 0, 0, 0], 'the fixed-distance head: the induction key only without a gap');
  const mean = meanScores(each);
  assert.equal(mean[0].induction, 0.25);
  assert.equal(mean[1].induction, 1);
  const probe = { T, offset: 1, gaps: probes.map((p) => p.gap) };
  assert.notEqual(roleKey(mean[0], probe), 'induction');
  assert.equal(roleKey(mean[1], probe), 'induction');
  // the baselines: the mean of each gap's uniform head
  const b = probeBaselines(probe), b0 = probeBaselines({ T, offset: 1 }), b3 = probeBaselines({ T, offset: 1, gap: 3 });
  assert.ok(b.induction < b0.induction && b.induction > b3.induction, 'between no gap\'s and the longest gap\'s');
});

test('the core\'s head-role scores of a checkpoint\'s maps (forward with roles) are the naive twin\'s, with and without repeats', async () => {
  const attn = await load(true);
  for (const name of ['llama3', 'deepseek_v2', 'gpt2']) {
    const model = await attn.loadPretrained({ config: config(name), weights: weights(name) });
    // no repeat; one repeat ("the" at 1 and 5); a token next to itself and three copies
    for (const ids of [[1, 2, 3, 4, 5, 6], [1, 7, 8, 9, 4, 7, 3], [5, 5, 6, 5, 2, 5]]) {
      const { attentions, roles } = model.forward(ids, { attentions: true, roles: true });
      const want = twinRoles(attentions, ids);
      assert.equal(roles.length, model.info.nLayers * model.info.nHeads);
      roles.forEach((r, k) => {
        for (const [key, v] of Object.entries(want[k])) {
          if (v === null || Number.isInteger(v)) assert.equal(r[key], v, `${name} ${ids} ${k} ${key}`);
          else assert.ok(Math.abs(r[key] - v) < 1e-12, `${name} ${ids} head ${k} ${key}: ${r[key]} vs ${v}`);
        }
      });
      // roles alone: the same scores, no maps returned
      const alone = model.forward(ids, { roles: true });
      assert.equal(alone.attentions, undefined);
      assert.deepEqual(alone.roles, roles);
    }
    assert.throws(() => model.forward([1, 2], { roles: 1 }), /roles must be a boolean, got number/);
    model.dispose();
  }
});

test('which score names a head: the strongest, where it clearly beats a uniform head\'s on the probe', () => {
  assert.deepEqual([{ previousToken: 1, firstToken: 0.1, induction: 0, duplicateToken: 0 }, { previousToken: 0.1, firstToken: 1, induction: null, duplicateToken: null }]
    .map((x) => roleKey(x)), ['previousToken', 'firstToken']);
  assert.equal(roleKey({ previousToken: 0.1, induction: 0.1, firstToken: 0.2, duplicateToken: 0 }), '', 'no score above 0.4: no role');
  // with the probe (BOS + 2 · 8 tokens): a role only where the score clearly beats a uniform head's
  const probe = { T: 8, offset: 1 };
  const b = probeBaselines(probe);
  assert.ok(Math.abs(b.previousToken - Array.from({ length: 16 }, (_, k) => 1 / (k + 2)).reduce((x, y) => x + y) / 16) < 1e-12);
  assert.equal(roleKey({ previousToken: 0.3, firstToken: 0.2, induction: 0.1, duplicateToken: 0.1 }, probe), '', '0.3 is not clear of uniform (0.15) on 17 positions');
  assert.equal(roleKey({ previousToken: 0.45, firstToken: 0.5, induction: 0.1, duplicateToken: 0.1 }, probe), 'firstToken');
  assert.equal(roleKey({ previousToken: 0.45, firstToken: 0.2, induction: 0.1, duplicateToken: 0.1 }, probe), 'previousToken');
  // a sentence without a repeated token has no duplicate or induction score: roleKey ignores them
  assert.equal(roleKey({ previousToken: 0.9, firstToken: 0.05, induction: null, duplicateToken: null }), 'previousToken');
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
    assert.equal(f.roles.length, r.info.nLayers * r.info.nHeads);
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
