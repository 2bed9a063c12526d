// npm run zoo — trains the bundled ("zoo") models natively (zoo/zoo_train.cpp, the project's own
// trainer) and writes web/zoo/: one float16 .safetensors per variant (its first seed) and
// manifest.json with every seed's held-out bits/char. docs/zoo.md says what and why.
//
//   node scripts/zoo.mjs [--steps 2000] [--seeds 5] [--jobs 2]
//
// Deterministic: the same command on the same machine writes the same model bytes (and the same
// manifest, but for its "seconds" fields).
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const steps = arg('steps', 2000);
const seedCount = arg('seeds', 5);
const jobs = arg('jobs', Math.min(2, cpus().length));
const textFile = 'web/data/tinyshakespeare-256k.txt';
const outDir = join(root, 'web/zoo');

// One per variant of the lesson; the first seed's weights ship.
const VARIANTS = [
  { id: 'mha', label: 'MHA', args: ['--variant', 'mha'] },
  { id: 'gqa4', label: 'GQA, 4 KV heads', args: ['--variant', 'gqa', '--kv', '4'] },
  { id: 'gqa2', label: 'GQA, 2 KV heads', args: ['--variant', 'gqa', '--kv', '2'] },
  { id: 'mqa', label: 'MQA', args: ['--variant', 'mqa'] },
  { id: 'mla32', label: 'MLA, latent 32', args: ['--variant', 'mla', '--latent', '32'] },
  { id: 'mla16', label: 'MLA, latent 16', args: ['--variant', 'mla', '--latent', '16'] },
];
const SEEDS = Array.from({ length: seedCount }, (_, i) => i + 1);

execFileSync('cmake', ['--preset', 'native'], { cwd: root, stdio: 'ignore' });
execFileSync('cmake', ['--build', 'build-native', '-j2', '--target', 'zoo_train'], { cwd: root, stdio: 'inherit' });
const exe = join(root, 'build-native/zoo_train');

function run(variant, seed) {
  const shipped = seed === SEEDS[0];
  const args = ['--text', join(root, textFile), ...variant.args, '--seed', String(seed), '--steps', String(steps)];
  if (shipped) args.push('--out', join(outDir, `${variant.id}.safetensors`), '--scores');
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`zoo_train ${args.join(' ')} exited ${code}`));
      const r = JSON.parse(out);
      console.log(`zoo: ${variant.id} seed ${seed}: ${r.bitsPerChar.toFixed(4)} bits/char, ${r.seconds.toFixed(0)} s`);
      resolve(r);
    });
  });
}

mkdirSync(outDir, { recursive: true });
const tasks = VARIANTS.flatMap((v) => SEEDS.map((s) => ({ v, s })));
const results = new Map();
let next = 0;
const started = Date.now();
await Promise.all(Array.from({ length: jobs }, async () => {
  while (next < tasks.length) {
    const { v, s } = tasks[next++];
    results.set(`${v.id}/${s}`, await run(v, s));
  }
}));

const round = (x, d = 6) => Number(x.toFixed(d));
const manifest = {
  format: 'attention-playground-zoo',
  formatVersion: 1,
  corpus: { file: textFile, bytes: readFileSync(join(root, textFile)).length, heldOut: 'the last 10 % of the text, up to 256 evenly spaced windows' },
  training: { steps, seeds: SEEDS, batchSize: 12, seqLen: 64, learningRate: 3e-3, schedule: 'warmup 100 steps, cosine to the last step', machine: `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores (native build)`, seconds: round((Date.now() - started) / 1000, 0) },
  geometry: { dModel: 64, nHeads: 8, dHead: 8, nLayers: 4, mlp: true, layerNorm: true, tiedEmbeddings: true, positions: 'learned' },
  models: VARIANTS.map((v) => {
    const runs = SEEDS.map((s) => results.get(`${v.id}/${s}`));
    const first = runs[0];
    const file = `${v.id}.safetensors`;
    const bytes = readFileSync(join(outDir, file));
    return {
      id: v.id,
      label: v.label,
      variant: first.variant,
      ...(first.nKvHeads ? { nKvHeads: first.nKvHeads } : {}),
      ...(first.latentRank ? { latentRank: first.latentRank } : {}),
      params: first.params,
      kvBytesPerToken: first.kvBytesPerToken,
      file,
      fileBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      shippedSeed: SEEDS[0],
      seeds: runs.map((r) => ({ seed: r.seed, bitsPerChar: round(r.bitsPerChar), valLoss: round(r.valLoss), seconds: round(r.seconds, 1) })),
      headScores: first.headScores.map((h) => ({ layer: h.layer, head: h.head, previousToken: round(h.previousToken, 4), induction: round(h.induction, 4), firstToken: round(h.firstToken, 4), diagonal: round(h.diagonal, 4) })),
    };
  }),
};
writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
console.log(`zoo: wrote ${join('web/zoo', 'manifest.json')} and ${VARIANTS.length} models in ${manifest.training.seconds} s`);
