// The zoo's kept runs (scripts/zoo-runs.mjs): a run is produced once and read back after, a run that
// fails part-way leaves nothing that counts as done, and other settings make another run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { keptRun, runFolder } from '../../scripts/zoo-runs.mjs';

const settings = { spec: { task: 'tokens', model: { variant: 'gqa', nKvHeads: 4 } }, seed: 2, steps: 1500 };

test('a run is named by its variant, seed and settings; other settings, another folder', () => {
  const runs = mkdtempSync(join(tmpdir(), 'zoo-runs-'));
  const dir = runFolder(runs, 'gqa4', 2, settings);
  assert.match(basename(dir), /^gqa4-s2-[0-9a-f]{12}$/);
  assert.equal(runFolder(runs, 'gqa4', 2, { ...settings }), dir, 'the same settings, the same folder');
  assert.notEqual(runFolder(runs, 'gqa4', 2, { ...settings, steps: 700 }), dir);
  assert.notEqual(runFolder(runs, 'gqa4', 3, settings), dir);
  assert.match(basename(runFolder(runs, 'lab-heads h=2', 1, settings)), /^lab-heads_h_2-s1-/, 'a name fit for a folder');
});

test('a run is produced once, its files kept, then read back without training', async () => {
  const dir = runFolder(mkdtempSync(join(tmpdir(), 'zoo-runs-')), 'mha', 1, settings);
  let calls = 0;
  const produce = async (work) => {
    calls++;
    assert.deepEqual(readdirSync(work), [], 'it trains into an empty folder');
    writeFileSync(join(work, 'model.safetensors'), 'weights');
    return { valLoss: 4.39, headScores: [] };
  };
  const first = await keptRun(dir, produce);
  assert.deepEqual(first, { result: { valLoss: 4.39, headScores: [] }, kept: false });
  assert.equal(readFileSync(join(dir, 'model.safetensors'), 'utf8'), 'weights');
  const again = await keptRun(dir, produce);
  assert.deepEqual(again, { result: first.result, kept: true });
  assert.equal(calls, 1);
});

test('a run that fails part-way leaves no run, and the next attempt starts from an empty folder', async () => {
  const dir = runFolder(mkdtempSync(join(tmpdir(), 'zoo-runs-')), 'mla16', 1, settings);
  await assert.rejects(keptRun(dir, async (work) => {
    writeFileSync(join(work, 'model.safetensors'), 'half');
    throw new Error('zoo_train exited 1');
  }), /exited 1/);
  assert.equal(existsSync(dir), false, 'nothing counts as done');
  const { result, kept } = await keptRun(dir, async (work) => {
    assert.deepEqual(readdirSync(work), [], 'the failed attempt\'s files are gone');
    return { valLoss: 4.5 };
  });
  assert.deepEqual([result.valLoss, kept], [4.5, false]);
  assert.equal(existsSync(`${dir}.partial`), false);
});
