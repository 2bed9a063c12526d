// pytorch-twin.test.mjs: the PyTorch code the page generates (web/src/lesson/pytorch-twin.js) runs with
// Debian's python3-torch on the .safetensors file the page writes, and reproduces the core's output:
// the program prints exactly one line, `max abs diff vs the page: <number>`, with the number < 1e-4.
// MHA (nn.MultiheadAttention and written out), MQA, GQA, MLA, with and without causal and RoPE.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { REPO, bitIdentical, load, randomArray } from './helpers.mjs';

const { pytorchCode, twinFile, TWIN_FILE } = await import(path.join(REPO, 'web/src/lesson/pytorch-twin.js'));
const { readSafetensors } = await import(path.join(REPO, 'web/src/lesson/safetensors.js'));

const PYTHON = process.env.PYTHON || '/usr/bin/python3';
const CASES = [
  ['mha via nn.MultiheadAttention', { variant: 'mha', seqLen: 6, dModel: 16, nHeads: 4 }],
  ['mha causal via nn.MultiheadAttention', { variant: 'mha', seqLen: 6, dModel: 16, nHeads: 4, causal: true }],
  ['mha causal rope (written out)', { variant: 'mha', seqLen: 7, dModel: 16, nHeads: 4, causal: true, rope: true }],
  ['mha dHead != D/H', { variant: 'mha', seqLen: 5, dModel: 12, nHeads: 4, dHead: 5 }],
  ['mqa', { variant: 'mqa', seqLen: 6, dModel: 16, nHeads: 4 }],
  ['mqa causal rope base 500', { variant: 'mqa', seqLen: 9, dModel: 32, nHeads: 4, causal: true, rope: { base: 500 } }],
  ['gqa causal', { variant: 'gqa', seqLen: 8, dModel: 32, nHeads: 8, nKvHeads: 2, causal: true }],
  ['gqa rope', { variant: 'gqa', seqLen: 6, dModel: 24, nHeads: 6, nKvHeads: 3, rope: true }],
  ['mla causal, no rope', { variant: 'mla', seqLen: 7, dModel: 16, nHeads: 4, dHead: 4, latentRank: 6, causal: true }],
  ['mla rope', { variant: 'mla', seqLen: 6, dModel: 24, nHeads: 3, dHead: 8, latentRank: 10, ropeDim: 4 }],
  ['mla causal rope base 500', { variant: 'mla', seqLen: 5, dModel: 16, nHeads: 2, dHead: 8, latentRank: 4, ropeDim: 2,
    causal: true, rope: { base: 500 } }],
];

function torchAvailable() {
  const r = spawnSync(PYTHON, ['-c', 'import torch, numpy; print(torch.__version__)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

describe('PyTorch twin round trip (python3-torch)', () => {
  let attn;
  let dir;
  before(async () => {
    attn = await load(true);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-twin-'));
  });

  test('PyTorch and NumPy are importable', () => {
    assert.ok(torchAvailable(), `${PYTHON} cannot import torch and numpy: install Debian's python3-torch ` +
      '(bash scripts/setup.sh --test does)');
  });

  for (const [name, spec] of CASES) {
    test(name, () => {
      const x = randomArray(spec.seqLen * spec.dModel, 11, 1);
      const r = attn.forward({ ...spec, x, seed: 5, returnIntermediates: true });
      const bytes = twinFile(r.shape, { x, parameters: r.parameters, output: r.output,
        attention: r.intermediates.attention.data }, { text: 'the cat sat on the mat' });

      // The file reads back exactly (the JS reader checks it like a hostile input).
      const back = readSafetensors(bytes);
      assert.ok(bitIdentical(back.tensors.output.data, r.output));
      assert.deepEqual(JSON.parse(back.metadata.spec), r.shape);

      const sub = fs.mkdtempSync(path.join(dir, 'case-'));
      fs.writeFileSync(path.join(sub, TWIN_FILE), bytes);
      fs.writeFileSync(path.join(sub, 'twin.py'), pytorchCode(r.shape));
      const run = spawnSync(PYTHON, ['twin.py'], { cwd: sub, encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, `python failed:\n${run.stderr}`);
      const lines = run.stdout.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, `expected exactly one line, got:\n${run.stdout}`);
      const m = /^max abs diff vs the page: (\S+)$/.exec(lines[0]);
      assert.ok(m, `unexpected line: ${lines[0]}`);
      const diff = Number(m[1]);
      assert.ok(Number.isFinite(diff) && diff < 1e-4, `${name}: max abs diff ${m[1]}`);

      if (name !== 'gqa causal') return;
      // The check can fail: the same program on a file whose output was nudged reports the nudge.
      const nudged = r.output.slice();
      nudged[0] += 0.01;
      fs.writeFileSync(path.join(sub, 'nudged.safetensors'), twinFile(r.shape, { x, parameters: r.parameters, output: nudged }));
      const bad = spawnSync(PYTHON, ['twin.py', 'nudged.safetensors'], { cwd: sub, encoding: 'utf8', timeout: 120_000 });
      const badDiff = Number(/: (\S+)$/.exec(bad.stdout.trim())?.[1]);
      assert.ok(Math.abs(badDiff - 0.01) < 1e-4, `nudged file reported ${bad.stdout}`);
    });
  }
});
