// npm run zoo — trains the bundled ("zoo") models natively (zoo/zoo_train.cpp, the project's own
// trainer) and writes web/zoo/: float16 .safetensors files and manifest.json with every seed's held-out
// figures. Two groups (docs/zoo.md says what and why):
//   shakespeare  one character-level model per variant of the lesson (its first seed's weights ship)
//   labs         Lab 1's head-count sweep on its two-tokens-back task (the 1- and 2-head models ship)
//                and Lab 4's induction model, with the labs' own settings (web/src/labs/tasks.js)
//
//   node scripts/zoo.mjs [--only shakespeare|labs] [--steps 2000] [--seeds 5] [--jobs 2]
//
// --only retrains one group and keeps the other's entries of the manifest as they are. --steps sets
// the Shakespeare models' steps (the labs train for their own). Deterministic: the same command on
// the same machine writes the same model bytes (and the same manifest, but for its "seconds" fields).
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { HEADS_MODEL, HEADS_STEPS, HEADS_SWEEP, INDUCTION_MODEL, INDUCTION_STEPS, INDUCTION_TASK, PAIRS_TASK } from '../web/src/labs/tasks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const only = arg('only', '');
if (only && !['shakespeare', 'labs'].includes(only)) throw new Error(`zoo: --only must be 'shakespeare' or 'labs', got '${only}'`);
const steps = Number(arg('steps', 2000));
const seedCount = Number(arg('seeds', 5));
const jobs = Number(arg('jobs', Math.min(2, cpus().length)));
const textFile = 'web/data/tinyshakespeare-256k.txt';
const outDir = join(root, 'web/zoo');
const manifestFile = join(outDir, 'manifest.json');
const SEEDS = Array.from({ length: seedCount }, (_, i) => i + 1);

// The Shakespeare models: one geometry (nanoGPT's "baby GPT" schedule: context 64, batch 12), one
// attention variant each.
const GEOMETRY = { dModel: 64, nHeads: 8, nLayers: 4, mlp: true, layerNorm: true, tiedEmbeddings: true };
const VARIANTS = [
  { id: 'mha', label: 'MHA', model: { variant: 'mha' } },
  { id: 'gqa4', label: 'GQA, 4 KV heads', model: { variant: 'gqa', nKvHeads: 4 } },
  { id: 'gqa2', label: 'GQA, 2 KV heads', model: { variant: 'gqa', nKvHeads: 2 } },
  { id: 'mqa', label: 'MQA', model: { variant: 'mqa' } },
  { id: 'mla32', label: 'MLA, latent 32', model: { variant: 'mla', latentRank: 32 } },
  { id: 'mla16', label: 'MLA, latent 16', model: { variant: 'mla', latentRank: 16 } },
];
const charsSpec = (v) => ({ task: 'chars', model: { ...v.model, ...GEOMETRY }, seqLen: 64, batchSize: 12 });

// The labs' models, with the labs' settings. `ship`: which runs' weights ship (their first seed).
const LABS = {
  'lab-heads': { spec: (h) => ({ ...PAIRS_TASK, model: { ...HEADS_MODEL, nHeads: h } }), steps: HEADS_STEPS, heads: HEADS_SWEEP,
    ship: { 1: 'pairs-h1', 2: 'pairs-h2' } },
  'lab-induction': { spec: () => ({ ...INDUCTION_TASK, model: INDUCTION_MODEL }), steps: INDUCTION_STEPS, heads: [INDUCTION_MODEL.nHeads],
    ship: { [INDUCTION_MODEL.nHeads]: 'induction' } },
};

execFileSync('cmake', ['--preset', 'native'], { cwd: root, stdio: 'ignore' });
execFileSync('cmake', ['--build', 'build-native', '-j2', '--target', 'zoo_train'], { cwd: root, stdio: 'inherit' });
const exe = join(root, 'build-native/zoo_train');

/** One run: { spec, seed, steps, text?, out? } -> zoo_train's JSON. */
function train({ name, spec, seed, steps: n, text, out }) {
  const args = ['--spec', JSON.stringify(spec), '--seed', String(seed), '--steps', String(n)];
  if (text) args.push('--text', join(root, text));
  if (out) args.push('--out', join(outDir, out), '--scores');
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`zoo_train ${args.join(' ')} exited ${code}`));
      const r = JSON.parse(stdout);
      console.log(`zoo: ${name} seed ${seed}: held-out ${r.valLoss.toFixed(4)} nats (${r.bitsPerChar.toFixed(4)} bits) per token, ${r.seconds.toFixed(0)} s`);
      resolve(r);
    });
  });
}

/** Runs every job, `jobs` at a time; resolves to their results in order. */
async function runAll(list) {
  const results = new Array(list.length);
  let next = 0;
  await Promise.all(Array.from({ length: jobs }, async () => {
    while (next < list.length) {
      const i = next++;
      results[i] = await train(list[i]);
    }
  }));
  return results;
}

const round = (x, d = 6) => Number(x.toFixed(d));
const scoresOf = (r) => r.headScores.map((h) => ({ layer: h.layer, head: h.head, previousToken: round(h.previousToken, 4),
  induction: round(h.induction, 4), firstToken: round(h.firstToken, 4), diagonal: round(h.diagonal, 4) }));
const fileFacts = (file) => {
  const bytes = readFileSync(join(outDir, file));
  return { file, fileBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
};
const machine = `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores (native build)`;

async function shakespeare() {
  const started = Date.now();
  const list = VARIANTS.flatMap((v) => SEEDS.map((seed) => ({ name: v.id, v, spec: charsSpec(v), seed, steps, text: textFile,
    out: seed === SEEDS[0] ? `${v.id}.safetensors` : undefined })));
  const results = await runAll(list);
  return {
    corpus: { file: textFile, bytes: readFileSync(join(root, textFile)).length, heldOut: 'the last 10 % of the text, up to 256 evenly spaced windows' },
    training: { steps, seeds: SEEDS, batchSize: 12, seqLen: 64, learningRate: 3e-3, schedule: 'warmup 100 steps, cosine to the last step', machine, seconds: round((Date.now() - started) / 1000, 0) },
    geometry: { dModel: 64, nHeads: 8, dHead: 8, nLayers: 4, mlp: true, layerNorm: true, tiedEmbeddings: true, positions: 'learned' },
    models: VARIANTS.map((v) => {
      const runs = results.filter((_, i) => list[i].v === v);
      const first = runs[0];
      return {
        id: v.id, label: v.label, variant: first.variant,
        ...(v.model.nKvHeads ? { nKvHeads: v.model.nKvHeads } : {}),
        ...(v.model.latentRank ? { latentRank: v.model.latentRank } : {}),
        params: first.params, kvBytesPerToken: first.kvBytesPerToken, ...fileFacts(`${v.id}.safetensors`),
        shippedSeed: SEEDS[0],
        seeds: runs.map((r) => ({ seed: r.seed, bitsPerChar: round(r.bitsPerChar), valLoss: round(r.valLoss), seconds: round(r.seconds, 1) })),
        headScores: scoresOf(first),
      };
    }),
  };
}

async function labs() {
  const started = Date.now();
  const out = {};
  for (const [lab, l] of Object.entries(LABS)) {
    const list = l.heads.flatMap((h) => SEEDS.map((seed) => ({ name: `${lab} h=${h}`, h, spec: l.spec(h), seed, steps: l.steps,
      out: seed === SEEDS[0] && l.ship[h] ? `${l.ship[h]}.safetensors` : undefined })));
    const results = await runAll(list);
    out[lab] = {
      spec: l.spec(l.heads[0]), steps: l.steps, seeds: SEEDS, heads: l.heads,
      runs: results.map((r, i) => ({ heads: list[i].h, seed: r.seed, loss: round(r.valLoss), accuracy: round(r.accuracy), seconds: round(r.seconds, 2) })),
      models: Object.entries(l.ship).map(([h, id]) => {
        const r = results.find((_, i) => list[i].h === Number(h) && list[i].seed === SEEDS[0]);
        return { id, heads: Number(h), spec: l.spec(Number(h)), params: r.params, ...fileFacts(`${id}.safetensors`), shippedSeed: SEEDS[0],
          loss: round(r.valLoss), accuracy: round(r.accuracy), headScores: scoresOf(r) };
      }),
    };
  }
  return { labs: out, labsTraining: { machine, seconds: round((Date.now() - started) / 1000, 0) } };
}

mkdirSync(outDir, { recursive: true });
const previous = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : {};
const keep = (group, fields) => Object.fromEntries(fields.map((f) => [f, previous[f]]).filter(([, v]) => v !== undefined && only && only !== group));
const manifest = {
  format: 'attention-playground-zoo',
  formatVersion: 2,
  ...keep('shakespeare', ['corpus', 'training', 'geometry', 'models']),
  ...(only === 'labs' ? {} : await shakespeare()),
  ...keep('labs', ['labs', 'labsTraining']),
  ...(only === 'shakespeare' ? {} : await labs()),
};
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 1)}\n`);
console.log(`zoo: wrote ${join('web/zoo', 'manifest.json')}`);
