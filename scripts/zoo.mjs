// npm run zoo — trains the bundled ("zoo") models natively (zoo/zoo_train.cpp, the project's own
// trainer) and writes web/zoo/ and its manifest.json with every seed's held-out figures. Two groups
// (docs/zoo.md says what and why):
//   words  one word-level model per variant of the lesson, trained on the whole of tiny Shakespeare
//          read through the zoo's BPE tokenizer (zoo/tokenizer/, scripts/train-tokenizer.mjs), each
//          shipped as a Hugging Face checkpoint: web/zoo/<id>/ config.json, model.safetensors
//          (float16), tokenizer.json (its first seed's weights ship)
//   labs   Lab 1's head-count sweep on its two-tokens-back task (the 1- and 2-head models ship)
//          and Lab 4's induction model, with the labs' own settings (web/src/labs/tasks.js)
//
//   node scripts/zoo.mjs [--only words|labs] [--steps 1500] [--seeds 3] [--jobs 2] [--layers 2] [--repeat-random 0.5]
//                        [--synthetic-steps 1500 [--synthetic-until 0]] [--lengthen] [--keep-measured]
//
// The defaults are the recipe of the shipped models (docs/zoo.md).
//
// --only retrains one group and keeps the other's entries of the manifest as they are. --steps sets
// the word-level models' steps (the labs train for their own), --layers their depth, --repeat-random
// their copying curriculum (the trainer's repeatRandomFraction: that share of training windows holds
// random ordinary tokens written twice; the manifest records it and the page says so), --synthetic-steps
// a synthetic start before the text (SYNTHETIC: each model is first trained that many steps on the
// trainer's induction task, short windows of random tokens with a stretch written twice, its shortest
// stretch the variant's; zoo_train --warmup), or with --synthetic-until until one head's induction
// score on that task reaches it (checked every 100 steps; the schedule stays the one of
// --synthetic-steps; a circuit stopped as soon as it formed was undone by the text: docs/zoo.md).
// --lengthen makes the synthetic start lengthen its windows (LENGTHEN: after the 32-token stage, which
// then stops once a head's induction score reaches 0.9, or at 3,000 steps for every variant, stages of
// 64, 128 and 256 tokens, each until the same score or 500 steps), so that the circuit forms at the
// distances of the text's windows
// (zoo_train --warmup with stages; the pilots of docs/zoo.md). Each run keeps its result and files
// in zoo/runs/<name>-s<seed>-<hash of its settings>/ (scripts/zoo-runs.mjs), and a run found there
// is not trained again: an interrupted retrain goes on where it stopped. zoo/runs/ is in the
// repository, so that a retrain longer than one machine's day goes on from a fresh clone: commit the
// runs it has finished (a seed-1 run holds its checkpoint, the others only result.json). Delete the
// folder's runs after changing the trainer. --keep-measured trains only the word-level seeds that web/zoo/manifest.json does
// not record yet (with the same recipe): the shipped models stay as they are (their files are checked
// against the manifest's hashes) and the manifest's figures of the seeds it has are kept, so seeds can
// be added a few at a time, on another machine or in another session, without training the others again.
// Also written, for the tests (not the
// page): tests/fixtures/zoo-heldout/ the held-out token ids and each shipped model's induction probe
// (zoo_train --probe), so tests/node/zoo.test.mjs re-measures every figure through the checkpoint
// loader. Deterministic: the same command on the same machine writes the same model bytes (and the
// same manifest, but for its "seconds" fields; the words' cpuHours sum their runs', kept ones too).
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { keptRun, runFolder } from './zoo-runs.mjs';
import { HEADS_MODEL, HEADS_STEPS, HEADS_SWEEP, INDUCTION_MODEL, INDUCTION_STEPS, INDUCTION_TASK, PAIRS_TASK } from '../web/src/labs/tasks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const only = arg('only', '');
if (only && !['words', 'labs'].includes(only)) throw new Error(`zoo: --only must be 'words' or 'labs', got '${only}'`);
const steps = Number(arg('steps', 1500));
const seedCount = Number(arg('seeds', 3));
const jobs = Number(arg('jobs', Math.min(2, cpus().length)));
const layers = Number(arg('layers', 2));
const repeatRandom = Number(arg('repeat-random', 0.5));
const syntheticSteps = Number(arg('synthetic-steps', 1500));
const syntheticUntil = Number(arg('synthetic-until', 0));
const keepMeasured = process.argv.includes('--keep-measured');
const lengthen = process.argv.includes('--lengthen');
const corpusFile = join(root, '../shared/data/tinyshakespeare.txt');
const tokenizerFile = join(root, 'zoo/tokenizer/tokenizer.json');
const tokensFile = join(root, 'build-zoo/tinyshakespeare.tokens.bin');
const outDir = join(root, 'web/zoo');
const probeDir = join(root, 'tests/fixtures/zoo-heldout');
const manifestFile = join(outDir, 'manifest.json');
const runsDir = join(root, 'zoo/runs');  // in git: see the top of this file
const SEEDS = Array.from({ length: seedCount }, (_, i) => i + 1);

// The word-level models: one geometry, one attention variant each. GQA, MQA and MHA are Llama blocks
// (RMSNorm, RoPE, SwiGLU, no biases); MLA is DeepSeek-V2's dense block (its latent, the decoupled
// RoPE key of ropeDim per query head), as the checkpoint loader reads them.
const GEOMETRY = { dModel: 96, nHeads: 8, dHead: 12, nLayers: layers, tiedEmbeddings: true };
const TRAINING = { seqLen: 256, batchSize: 8, learningRate: 3e-3, ...(repeatRandom > 0 ? { repeatRandomFraction: repeatRandom } : {}) };
// The synthetic start: the induction task's windows of 32 tokens (a stretch of distinct random ids of
// the vocabulary written twice, the rest random too), 2,048 tokens per step as the text's steps, over
// its whole schedule. Short windows are what let the two-layer circuit form: at 256 tokens it did not
// within 1,000 steps. The shortest stretch (the trainer's minSegment) per variant, from pilots
// (docs/zoo.md): with the task's default stretches (8 to 16) GQA learned to copy with a lag of 6
// instead of the lesson's circuit; stretches from 2 leave one way to copy, the token right after the
// earlier copy. MHA forms the lesson's circuit with the default stretches, and with stretches from 2 a
// weaker one (previous-token 0.48) that the text undid. MQA forms it with the default stretches too,
// but late in a 1,500-step schedule (then the text undid it): 2,000 steps. MLA forms it only over 3,000.
const SYNTHETIC = { task: 'induction', seqLen: 32, batchSize: 64 };
const LONGEST_STRETCH = 16;  // the task's longest at 32 tokens, (seqLen + 1) / 2
// --lengthen: the start's later stages (the same task, 2,048 tokens per step), each from the weights the
// one before left, each stopped once one head's induction score on its own windows reaches UNTIL.
// The first stage has the same cap for every variant (firstSteps; the one-stage recipe gave MQA and MLA
// more steps than the others), which it rarely reaches: it stops once the circuit has formed.
const LENGTHEN = { until: 0.9, firstSteps: 3000, stages: [64, 128, 256].map((n) => ({ seqLen: n, batchSize: 2048 / n, minSegment: 2, steps: 500 })) };
/** A variant's synthetic start as zoo_train's --warmup: one stage, or with --lengthen the stages of LENGTHEN. */
const warmupOf = (v) => {
  const first = { ...SYNTHETIC, minSegment: v.minSegment };
  if (!lengthen) return { spec: first, steps: syntheticStepsOf(v), until: syntheticUntil };
  const lr = TRAINING.learningRate;  // written out: a stage's settings replace the text's, whose rate could change
  return { spec: [{ ...first, learningRate: lr, steps: syntheticStepsOf(v), until: LENGTHEN.until },
    ...LENGTHEN.stages.map((x) => ({ ...SYNTHETIC, ...x, learningRate: lr, until: LENGTHEN.until }))], steps: syntheticStepsOf(v), until: LENGTHEN.until };
};
/**
 * A variant's synthetic steps (of the first stage with --lengthen: LENGTHEN.firstSteps): its own
 * (`syntheticSteps`, where the pilots needed more) or --synthetic-steps.
 */
const syntheticStepsOf = (v) => (lengthen ? LENGTHEN.firstSteps : v.syntheticSteps ?? syntheticSteps);
const VARIANTS = [
  { id: 'mha', label: 'MHA', model: { variant: 'mha', block: 'llama' }, minSegment: 8 },
  { id: 'gqa4', label: 'GQA, 4 KV heads', model: { variant: 'gqa', nKvHeads: 4, block: 'llama' }, minSegment: 2 },
  { id: 'gqa2', label: 'GQA, 2 KV heads', model: { variant: 'gqa', nKvHeads: 2, block: 'llama' }, minSegment: 2 },
  { id: 'mqa', label: 'MQA', model: { variant: 'mqa', block: 'llama' }, minSegment: 8, syntheticSteps: 2000 },
  { id: 'mla32', label: 'MLA, latent 32', model: { variant: 'mla', latentRank: 32, ropeDim: 4, block: 'deepseek' }, minSegment: 2,
    syntheticSteps: 3000 },
  { id: 'mla16', label: 'MLA, latent 16', model: { variant: 'mla', latentRank: 16, ropeDim: 4, block: 'deepseek' }, minSegment: 2,
    syntheticSteps: 3000 },
];
const vocabSize = () => {
  const t = JSON.parse(readFileSync(tokenizerFile, 'utf8'));
  return Object.keys(t.model.vocab).length + t.added_tokens.length;
};
const wordsSpec = (v) => ({ task: 'tokens', model: { ...v.model, ...GEOMETRY }, ...TRAINING, vocabSize: vocabSize() });

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

/**
 * One run: { spec, seed, steps, tokens?, warmup?, out?, hf?, probe? } -> zoo_train's JSON. Trained in its
 * own folder of zoo/runs (kept, and read back instead of training again), then its files copied
 * where they ship: `out` into web/zoo/, `hf` as the folder web/zoo/<hf>/, `probe` into probeDir.
 */
async function train(run) {
  const { name, spec, seed, steps: n, tokens, warmup, out, hf, probe } = run;
  const settings = { spec, seed, steps: n, tokens: tokens ? createHash('sha256').update(readFileSync(tokens)).digest('hex') : null,
    warmup: warmup ?? null, out: Boolean(out), hf: Boolean(hf), probe: Boolean(probe) };
  const dir = runFolder(runsDir, name, seed, settings);
  const { result: r, kept } = await keptRun(dir, (work) => {
    const args = ['--spec', JSON.stringify(spec), '--seed', String(seed), '--steps', String(n), '--scores'];
    if (tokens) args.push('--tokens', tokens);
    if (warmup) args.push('--warmup', JSON.stringify(warmup.spec), '--warmup-steps', String(warmup.steps), '--warmup-until', String(warmup.until));
    if (out) args.push('--out', join(work, 'model.safetensors'));
    for (const [, sub] of [[hf, 'hf'], [probe, 'probe']].filter(([wanted]) => wanted)) {
      mkdirSync(join(work, sub));
      args.push(`--${sub}`, join(work, sub));
    }
    if (hf) args.push('--tokenizer', tokenizerFile);
    return new Promise((resolve, reject) => {
      const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`zoo_train ${args.join(' ')} exited ${code}`))));
    });
  });
  report(name, seed, r, kept ? ' (kept from an earlier run)' : '');
  if (out) cpSync(join(dir, 'model.safetensors'), join(outDir, out));
  if (hf) cpSync(join(dir, 'hf'), join(outDir, hf), { recursive: true });
  if (probe) cpSync(join(dir, 'probe'), probeDir, { recursive: true });
  return r;
}

function report(name, seed, r, note) {
  const best = (f) => Math.max(0, ...r.headScores.map((h) => h[f]));
  const syn = r.warmup ? `synthetic ${r.warmup.steps} steps (held-out ${r.warmup.valLoss.toFixed(3)}, induction ${r.warmup.induction.toFixed(2)}), ` : '';
  console.log(`zoo: ${name} seed ${seed}: ${syn}held-out ${r.valLoss.toFixed(4)} nats (${r.bitsPerChar.toFixed(4)} bits) per token, ` +
    `best previous-token ${best('previousToken').toFixed(2)}, induction ${best('induction').toFixed(2)}, ${r.seconds.toFixed(0)} s${note}`);
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

const seedFigures = (x) => ({ seed: x.seed, bitsPerToken: round(x.bitsPerToken), valLoss: round(x.valLoss), seconds: round(x.seconds, 1),
  bestPreviousToken: round(Math.max(...x.headScores.map((h) => h.previousToken)), 4),
  bestInduction: round(Math.max(...x.headScores.map((h) => h.induction)), 4),
  ...(x.warmup ? { syntheticSteps: x.warmup.steps, syntheticLoss: round(x.warmup.valLoss), syntheticInduction: round(x.warmup.induction, 4) } : {}) });

/**
 * --keep-measured: the seeds the previous manifest records, as Map(`<id>/<seed>` -> its figures), after
 * checking that they were trained with this recipe and that the shipped files are the ones it describes.
 */
function measuredSeeds(previous, training, geometry, modelSettings) {
  const recipe = (t) => JSON.stringify({ ...t, seeds: undefined, machine: undefined, cpuHours: undefined });
  if (!previous.models) throw new Error('zoo: --keep-measured needs web/zoo/manifest.json with word-level models');
  if (recipe(previous.training) !== recipe(training) || JSON.stringify(previous.geometry) !== JSON.stringify(geometry)) {
    throw new Error(`zoo: --keep-measured: the manifest's recipe differs from this one (manifest ${recipe(previous.training)}, ` +
      `${JSON.stringify(previous.geometry)}; now ${recipe(training)}, ${JSON.stringify(geometry)}); train every seed again without it`);
  }
  const kept = new Map();
  for (const m of previous.models) {
    const v = VARIANTS.find((x) => x.id === m.id);
    if (!v || JSON.stringify(modelSettings(v)) !== JSON.stringify(modelSettings(m))) {
      throw new Error(`zoo: --keep-measured: the manifest's model '${m.id}' differs from this recipe's; train it again without --keep-measured`);
    }
    for (const f of m.files) {
      const now = fileFacts(f.file);
      if (now.sha256 !== f.sha256) throw new Error(`zoo: --keep-measured: web/zoo/${f.file} is not the file the manifest describes (sha256 ${now.sha256}, manifest ${f.sha256})`);
    }
    for (const s of m.seeds) kept.set(`${m.id}/${s.seed}`, { ...s, shipped: s.seed === m.shippedSeed ? m : null });
  }
  return kept;
}

async function words() {
  if (!existsSync(tokensFile)) execFileSync('node', [join(root, 'scripts/train-tokenizer.mjs')], { cwd: root, stdio: 'inherit' });
  const training = { steps, seeds: SEEDS, ...TRAINING, schedule: `warmup ${Math.min(100, Math.floor(steps / 10))} steps, cosine to the last step`,
    ...(syntheticSteps > 0 ? { synthetic: { ...SYNTHETIC, steps: lengthen ? LENGTHEN.firstSteps : syntheticSteps, ...(syntheticUntil > 0 ? { untilInduction: syntheticUntil } : {}), schedule: `warmup ${Math.min(100, Math.floor(syntheticSteps / 10))} steps, cosine to the last step`,
      ...(lengthen ? { untilInduction: LENGTHEN.until, lengthen: LENGTHEN.stages.map((x) => ({ ...x, untilInduction: LENGTHEN.until })) } : {}) } } : {}),
    machine };
  const geometry = { ...GEOMETRY, positions: 'RoPE', blocks: 'llama (MHA, GQA, MQA), deepseek (MLA)' };
  const modelSettings = (v) => ({ block: v.model?.block ?? v.block, nKvHeads: v.model?.nKvHeads ?? v.nKvHeads, latentRank: v.model?.latentRank ?? v.latentRank,
    ropeDim: v.model?.ropeDim ?? v.ropeDim, synthetic: syntheticSteps > 0 ? (v.synthetic ?? { steps: syntheticStepsOf(v), stretches: [v.minSegment, LONGEST_STRETCH] }) : undefined });
  const kept = keepMeasured ? measuredSeeds(previous, training, geometry, modelSettings) : new Map();
  // seed by seed (every variant's seed 1 first): an interrupted retrain has kept whole seeds
  const list = SEEDS.flatMap((seed) => VARIANTS.filter((v) => !kept.has(`${v.id}/${seed}`)).map((v) => ({ name: v.id, v, spec: wordsSpec(v), seed, steps,
    tokens: tokensFile,
    warmup: syntheticSteps > 0 ? warmupOf(v) : undefined,
    hf: seed === SEEDS[0] ? v.id : undefined, probe: seed === SEEDS[0] && v === VARIANTS[0] })));
  for (const [key, s] of kept) console.log(`zoo: ${key.replace('/', ' seed ')}: kept from the manifest (held-out ${s.bitsPerToken} bits per token)`);
  const results = await runAll(list);
  // Per variant, its seeds in order: { figures, shipped? (the model's entry of the manifest), run? (zoo_train's JSON) }.
  const seedsOf = (v) => SEEDS.map((seed) => {
    const k = kept.get(`${v.id}/${seed}`);
    if (k) {
      const { shipped, ...figures } = k;
      return { figures, shipped };
    }
    const run = results[list.findIndex((x) => x.v === v && x.seed === seed)];
    return { figures: seedFigures(run), run };
  });
  const seconds = VARIANTS.flatMap(seedsOf).reduce((s, x) => s + x.figures.seconds, 0);
  const first = results[0] ?? { tokens: previous.corpus.tokens, vocabSize: previous.corpus.tokenizer.vocabSize };
  return {
    corpus: { file: 'tinyshakespeare.txt', bytes: readFileSync(corpusFile).length, tokens: first.tokens,
      tokenizer: { file: 'tokenizer.json', vocabSize: first.vocabSize, kind: 'byte-level BPE (GPT-2 scheme) trained on the text before the held-out tail' },
      heldOut: 'the last 10 % of the token ids, up to 256 evenly spaced windows of seqLen tokens' },
    training: { ...training, cpuHours: round(seconds / 3600, 2) },
    geometry,
    models: VARIANTS.map((v) => {
      const runs = seedsOf(v);
      const { run: r, shipped } = runs[0];
      return {
        id: v.id, label: v.label, variant: r?.variant ?? shipped.variant, block: v.model.block,
        ...(v.model.nKvHeads ? { nKvHeads: v.model.nKvHeads } : {}),
        ...(v.model.latentRank ? { latentRank: v.model.latentRank, ropeDim: v.model.ropeDim } : {}),
        params: r?.params ?? shipped.params, kvBytesPerToken: r?.kvBytesPerToken ?? shipped.kvBytesPerToken, dir: `${v.id}/`,
        ...(syntheticSteps > 0 ? { synthetic: { steps: syntheticStepsOf(v), stretches: [v.minSegment, LONGEST_STRETCH] } } : {}),
        files: ['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => fileFacts(`${v.id}/${f}`)),
        shippedSeed: SEEDS[0],
        seeds: runs.map((x) => x.figures),
        headScores: r ? scoresOf(r) : shipped.headScores,
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
  formatVersion: 3,
  ...keep('words', ['corpus', 'training', 'geometry', 'models']),
  ...(only === 'labs' ? {} : await words()),
  ...keep('labs', ['labs', 'labsTraining']),
  ...(only === 'words' ? {} : await labs()),
};
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 1)}\n`);
console.log(`zoo: wrote ${join('web/zoo', 'manifest.json')}`);
