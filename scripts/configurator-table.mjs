#!/usr/bin/env node
// Prints the configurator's answers as Markdown (docs/configurator.md is made from this output):
// the lesson's four rule-of-thumb sizes, then three deployment targets. Uses dist/lib.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { loadAttention } = await import(pathToFileURL(path.join(REPO, 'dist/lib/attention.mjs')).href);
const attn = await loadAttention();

const gib = (b) => `${(b / 2 ** 30).toFixed(2)} GiB`;
const shape = (r) => `${r.dModel} / ${r.nLayers} / ${r.nHeads} / ${r.variant === 'mla' ? `latent ${r.latentRank} + RoPE ${r.ropeDim}` : r.nKvHeads} / ${r.dHead}`;
const row = (label, q) => {
  const r = attn.recommend(q);
  const fit = r.fits === null ? 'no target' : `${r.fits ? 'fits' : 'does not fit'} (margin ${(r.marginBytes / 1e9).toFixed(1)} GB)`;
  return { line: `| ${label} | ${r.variant.toUpperCase()} | ${shape(r)} | ${r.kvBytesPerTokenPerLayer.toLocaleString('en-US')} B | ${gib(r.kvBytesTotal)} | ${fit} | ${r.rules.join(', ')} |`, r };
};
const header = '| request | variant | dModel / layers / heads / KV heads / dHead | KV bytes per token per layer | KV total | weights + cache | rules that fired |\n|---|---|---|--:|--:|---|---|';

console.log('### The rule-of-thumb sizes (balanced, 2,048 tokens, bf16 cache, no target)\n');
console.log(header);
for (const [label, b] of [['~125M', 125e6], ['~350M', 350e6], ['~1B', 1e9], ['~70B', 70e9]]) {
  console.log(row(label, { paramBudget: b, seqLen: 2048 }).line);
}
console.log('\n### Three deployment targets\n');
console.log(header);
const cases = [
  ['phone / browser (4 GB): 350M, 4K tokens', { paramBudget: 350e6, seqLen: 4096, target: 'phone' }],
  ['24 GB GPU: 8B, 8K tokens', { paramBudget: 8e9, seqLen: 8192, target: 'gpu-24gb' }],
  ['24 GB GPU: 8B, 128K tokens', { paramBudget: 8e9, seqLen: 131072, target: 'gpu-24gb' }],
  ['80 GB GPU: 34B, 32K tokens x 4', { paramBudget: 34e9, seqLen: 32768, batch: 4, target: 'gpu-80gb' }],
  ['80 GB GPU: 70B, 8K tokens', { paramBudget: 70e9, seqLen: 8192, target: 'gpu-80gb' }],
];
const details = [];
for (const [label, q] of cases) {
  const { line, r } = row(label, q);
  console.log(line);
  details.push([label, r]);
}
console.log('\n### What it says\n');
for (const [label, r] of details) {
  console.log(`**${label}.** ${r.justification}`);
  for (const w of r.warnings) console.log(`  Warning: ${w}`);
  console.log('');
}
