// zoo.test.mjs: the bundled trained models (web/zoo/, written by `npm run zoo`) are what their
// manifest says. Every shipped model's bytes match its SHA-256, load with `attn.loadModel` given the
// corpus (the files carry the text by reference: its length and CRC-32), re-evaluate to the manifest's
// held-out bits/char of the shipped seed, and give back the manifest's head scores. PyTorch recomputes
// the held-out loss of three of them (one per attention family) from the .safetensors file alone
// (scripts/zoo_loss.py), within 1e-4 nats/char.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { REPO, load, throwsField } from './helpers.mjs';
import { HEADS_MODEL, HEADS_STEPS, HEADS_SWEEP, INDUCTION_MODEL, INDUCTION_STEPS, INDUCTION_TASK, PAIRS_TASK } from '../../web/src/labs/tasks.js';

const ZOO = path.join(REPO, 'web/zoo');
const manifest = JSON.parse(fs.readFileSync(path.join(ZOO, 'manifest.json'), 'utf8'));
const text = fs.readFileSync(path.join(REPO, manifest.corpus.file), 'utf8');
const PYTHON = process.env.PYTHON || '/usr/bin/python3';
const ZOO_BUDGET_BYTES = 4 * 1024 * 1024;

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('the zoo manifest', () => {
  test('one model per variant of the lesson, each trained with at least 5 seeds', () => {
    assert.equal(manifest.format, 'attention-playground-zoo');
    const ids = manifest.models.map((m) => m.id);
    assert.deepEqual(ids, ['mha', 'gqa4', 'gqa2', 'mqa', 'mla32', 'mla16']);
    for (const m of manifest.models) {
      assert.ok(m.seeds.length >= 5, `${m.id}: ${m.seeds.length} seeds`);
      assert.equal(new Set(m.seeds.map((s) => s.seed)).size, m.seeds.length, `${m.id}: repeated seeds`);
      assert.ok(m.seeds.some((s) => s.seed === m.shippedSeed), `${m.id}: the shipped seed has no figure`);
      for (const s of m.seeds) assert.ok(s.bitsPerChar > 1 && s.bitsPerChar < Math.log2(64), `${m.id} seed ${s.seed}: ${s.bitsPerChar}`);
      assert.ok(m.params > 0 && m.kvBytesPerToken > 0);
    }
  });

  test('the KV cache shrinks as the lesson says: MHA > GQA 4 > GQA 2 > MQA, and MLA by its latent rank', () => {
    const kv = Object.fromEntries(manifest.models.map((m) => [m.id, m.kvBytesPerToken]));
    const g = manifest.geometry;
    // float32 K and V per KV head per layer, or the latent per layer (no RoPE part in these models).
    assert.equal(kv.mha, g.nLayers * 2 * g.nHeads * g.dHead * 4);
    assert.equal(kv.gqa4, g.nLayers * 2 * 4 * g.dHead * 4);
    assert.equal(kv.gqa2, g.nLayers * 2 * 2 * g.dHead * 4);
    assert.equal(kv.mqa, g.nLayers * 2 * 1 * g.dHead * 4);
    assert.equal(kv.mla32, g.nLayers * 32 * 4);
    assert.equal(kv.mla16, g.nLayers * 16 * 4);
  });

  test('standalone.html inlines every file the manifest names (sources/zoo-files-standalone.js)', () => {
    const src = fs.readFileSync(path.join(REPO, 'web/src/sources/zoo-files-standalone.js'), 'utf8');
    const files = [...manifest.models, ...Object.values(manifest.labs).flatMap((l) => l.models)].map((m) => m.file);
    for (const f of files) {
      assert.ok(src.includes(`'../../zoo/${f}?inline'`) && src.includes(`'${f}':`), `${f} is not inlined for standalone.html`);
    }
    assert.deepEqual(fs.readdirSync(ZOO).filter((f) => f.endsWith('.safetensors')).sort(), [...files].sort(), 'web/zoo holds exactly the manifest\'s models');
  });

  test(`the zoo fits its budget (${ZOO_BUDGET_BYTES} bytes with the manifest)`, () => {
    const total = fs.readdirSync(ZOO).reduce((sum, f) => sum + fs.statSync(path.join(ZOO, f)).size, 0);
    assert.ok(total <= ZOO_BUDGET_BYTES, `web/zoo holds ${total} bytes`);
  });
});

describe('every shipped model, through attn.loadModel', () => {
  let attn;
  before(async () => {
    attn = await load(true);
  });

  for (const m of manifest.models) {
    test(`${m.id}: its bytes, its held-out bits/char and its head scores are the manifest's`, () => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(ZOO, m.file)));
      assert.equal(bytes.length, m.fileBytes);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), m.sha256, `${m.file}: SHA-256`);

      // The file holds weights only and names its text by length and CRC: without it, a clear refusal.
      throwsField(() => attn.loadModel(bytes), TypeError, 'text', [/text/]);

      const trainer = attn.loadModel(bytes, { text });
      try {
        const shipped = m.seeds.find((s) => s.seed === m.shippedSeed);
        const { bitsPerToken } = trainer.evaluate();
        assert.ok(Math.abs(bitsPerToken - shipped.bitsPerChar) < 1e-4,
          `${m.id}: re-evaluated ${bitsPerToken} bits/char, manifest ${shipped.bitsPerChar}`);

        const scores = trainer.headScores();
        assert.equal(scores.length, manifest.geometry.nLayers * manifest.geometry.nHeads);
        for (const [i, want] of m.headScores.entries()) {
          const got = scores[i];
          assert.equal(got.layer, want.layer);
          assert.equal(got.head, want.head);
          for (const k of ['previousToken', 'induction', 'firstToken', 'diagonal']) {
            assert.ok(Math.abs(got[k] - want[k]) < 1e-3, `${m.id} layer ${want.layer} head ${want.head} ${k}: ${got[k]} vs ${want[k]}`);
          }
        }
      } finally {
        trainer.dispose();
      }
    });
  }

  test('a model given the wrong text is refused, naming the field, and the module keeps working', () => {
    const m = manifest.models[0];
    const bytes = new Uint8Array(fs.readFileSync(path.join(ZOO, m.file)));
    throwsField(() => attn.loadModel(bytes, { text: text.slice(1) }), RangeError, 'text', [/text/]);
    const altered = text.slice(0, 1000) + (text[1000] === 'a' ? 'b' : 'a') + text.slice(1001);
    throwsField(() => attn.loadModel(bytes, { text: altered }), RangeError, 'text', [/CRC|crc/]);
    throwsField(() => attn.loadModel(bytes, { text: 42 }), TypeError, 'text', [/string/]);
    const trainer = attn.loadModel(bytes, { text });
    assert.ok(Number.isFinite(trainer.evaluate().loss));
    trainer.dispose();
  });
});

describe('the labs\' bundled models (trained with the labs\' own settings)', () => {
  let attn;
  before(async () => {
    attn = await load(true);
  });
  const heads = manifest.labs['lab-heads'], induction = manifest.labs['lab-induction'];

  test('Lab 1\'s sweep and Lab 4\'s model were trained with the settings the labs train with (labs/tasks.js)', () => {
    assert.deepEqual(heads.spec, { ...PAIRS_TASK, model: { ...HEADS_MODEL, nHeads: HEADS_SWEEP[0] } });
    assert.deepEqual(heads.heads, HEADS_SWEEP);
    assert.equal(heads.steps, HEADS_STEPS);
    assert.deepEqual(induction.spec, { ...INDUCTION_TASK, model: INDUCTION_MODEL });
    assert.equal(induction.steps, INDUCTION_STEPS);
    for (const lab of [heads, induction]) {
      assert.ok(lab.seeds.length >= 5);
      for (const h of lab.heads) assert.deepEqual(lab.runs.filter((r) => r.heads === h).map((r) => r.seed), lab.seeds, `every seed of h = ${h}`);
    }
  });

  test('Lab 1: one head is measurably worse than two at the same width, on every seed', () => {
    const loss = (h) => heads.runs.filter((r) => r.heads === h).map((r) => r.loss);
    assert.ok(Math.max(...loss(2)) < Math.min(...loss(1)) / 5, `one head ${loss(1)}, two heads ${loss(2)}`);
  });

  for (const m of [...heads.models, ...induction.models]) {
    test(`${m.id}: its bytes, its held-out loss and accuracy, and its head scores are the manifest's`, () => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(ZOO, m.file)));
      assert.equal(bytes.length, m.fileBytes);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), m.sha256, `${m.file}: SHA-256`);
      const trainer = attn.loadModel(bytes);
      try {
        const e = trainer.evaluate();
        assert.ok(Math.abs(e.loss - m.loss) < 1e-4, `${m.id}: re-evaluated ${e.loss} nats, manifest ${m.loss}`);
        assert.ok(Math.abs(e.accuracy - m.accuracy) < 1e-4, `${m.id}: accuracy ${e.accuracy}, manifest ${m.accuracy}`);
        const scores = trainer.headScores();
        assert.equal(scores.length, m.headScores.length);
        for (const [i, want] of m.headScores.entries()) {
          for (const k of ['previousToken', 'induction', 'firstToken', 'diagonal']) {
            assert.ok(Math.abs(scores[i][k] - want[k]) < 1e-3, `${m.id} layer ${want.layer} head ${want.head} ${k}: ${scores[i][k]} vs ${want[k]}`);
          }
        }
      } finally {
        trainer.dispose();
      }
    });
  }

  test('the bundled induction model has induction heads in its second layer and a previous-token head in its first', () => {
    const [m] = induction.models;
    assert.ok(Math.max(...m.headScores.filter((h) => h.layer === 1).map((h) => h.induction)) > 0.5);
    assert.ok(Math.max(...m.headScores.filter((h) => h.layer === 0).map((h) => h.previousToken)) > 0.4);
  });
});

function torchAvailable() {
  const r = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { encoding: 'utf8' });
  return r.status === 0;
}

describe('PyTorch recomputes the held-out loss from the files alone (python3-torch)', () => {
  test('PyTorch and NumPy are importable', () => {
    assert.ok(torchAvailable(), `${PYTHON} cannot import torch and numpy: install Debian's python3-torch ` +
      '(bash scripts/setup.sh --test does)');
  });

  for (const id of ['mha', 'gqa2', 'mla16']) {
    test(`${id}: within 1e-4 nats/char of the manifest`, () => {
      const m = manifest.models.find((x) => x.id === id);
      const run = spawnSync(PYTHON, [path.join(REPO, 'scripts/zoo_loss.py'), path.join(ZOO, m.file), path.join(REPO, manifest.corpus.file)],
        { encoding: 'utf8', timeout: 300_000 });
      assert.equal(run.status, 0, `zoo_loss.py failed:\n${run.stderr}`);
      const { loss } = JSON.parse(run.stdout.trim());
      const shipped = m.seeds.find((s) => s.seed === m.shippedSeed);
      assert.ok(Math.abs(loss - shipped.valLoss) < 1e-4, `${id}: PyTorch ${loss} nats/char, manifest ${shipped.valLoss}`);
    });
  }
});

describe('the zoo\'s spread', () => {
  test('every variant\'s seeds agree to within a few hundredths of a bit (the training is stable)', () => {
    for (const m of manifest.models) {
      const b = m.seeds.map((s) => s.bitsPerChar);
      const spread = Math.max(...b) - Math.min(...b);
      assert.ok(spread < 0.1, `${m.id}: seeds span ${spread} bits/char (${b.join(', ')})`);
      assert.ok(Math.abs(mean(b) - b[0]) < 0.1);
    }
  });
});
