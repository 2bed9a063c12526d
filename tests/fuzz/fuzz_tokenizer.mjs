// fuzz_tokenizer.mjs: a seeded mutation fuzzer of loadTokenizer's wrapper (wasm/tokenizer.mjs, over
// @huggingface/tokenizers) and of its decode: tokenizer.json files from the seeds
// (tests/fuzz/corpus/tokenizer_*.json, and the gpt2 fixture's), their ids, added tokens and types
// mutated. Each input must load, or be refused with an Error whose `field` names what is wrong,
// within the time cap (a load that runs longer is a finding: an id of 2^31 once took more than 100 s);
// decode of random ids returns text or refuses naming 'ids'. Prints a table of what happened.
//   node tests/fuzz/fuzz_tokenizer.mjs [iterations=2000] [seed=1]     (after `npm run build`; ATTN_LIB_DIR)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LIB = path.resolve(process.env.ATTN_LIB_DIR || path.join(HERE, '..', '..', 'dist', 'lib'));
const { makeTokenizer } = await import(pathToFileURL(path.join(LIB, 'tokenizer.mjs')).href);
const iterations = Number(process.argv[2] ?? 2000);
let state = Number(process.argv[3] ?? 1) >>> 0;
const MAX_MS = 2000;  // per load: the fixture-sized inputs load in a few ms

const rnd = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = (/** @type {any[]} */ a) => a[Math.floor(rnd() * a.length)];
const seeds = [path.join(HERE, '..', 'fixtures', 'pretrained', 'gpt2', 'tokenizer.json'),
  ...fs.readdirSync(path.join(HERE, 'corpus')).filter((f) => f.startsWith('tokenizer_')).map((f) => path.join(HERE, 'corpus', f))]
  .map((f) => fs.readFileSync(f, 'utf8'));
const IDS = [0, 1, -1, 0.5, 2 ** 31, 2 ** 24, 2 ** 24 - 1, 2 ** 53, -0, 1e308, NaN, '7', null, true, [], {}, 40, 41, 1000, 5000];

/** @param {any} j */
function mutate(j) {
  const vocab = j.model?.vocab;
  const keys = vocab && typeof vocab === 'object' && !Array.isArray(vocab) ? Object.keys(vocab) : [];
  switch (Math.floor(rnd() * 8)) {
    case 0: if (keys.length) vocab[pick(keys)] = pick(IDS); break;
    case 1: if (vocab && !Array.isArray(vocab)) vocab[`new${Math.floor(rnd() * 1e6)}`] = pick(IDS); break;
    case 2: if (!Array.isArray(j.added_tokens)) j.added_tokens = []; j.added_tokens.push({ id: pick(IDS), content: pick(['<x>', '', 'the', '\u0000', 'a'.repeat(200)]), special: rnd() < 0.5 }); break;
    case 3: { const a = Array.isArray(j.added_tokens) && j.added_tokens.length ? pick(j.added_tokens) : null; if (a && typeof a === 'object') a.id = pick(IDS); break; }
    case 4: if (keys.length) delete vocab[pick(keys)]; break;
    case 5: j.model = pick([j.model, null, {}, { ...j.model, vocab: [] }, { ...j.model, type: 'Unigram' }]); break;
    case 6: j.added_tokens = pick([j.added_tokens, null, 'x', [null], [{}]]); break;
    default: if (keys.length) vocab[pick(keys)] = (vocab[pick(keys)] ?? 0) + Math.floor(rnd() * 8); break;
  }
}

const counts = { loaded: 0, refusedWithField: 0, decoded: 0, decodeRefused: 0 };
let slowest = 0;
let slowestInput = '';
for (let i = 0; i < iterations; i++) {
  const j = JSON.parse(pick(seeds));
  for (let m = 1 + Math.floor(rnd() * 3); m > 0; m--) mutate(j);
  const text = JSON.stringify(j);
  const t0 = performance.now();
  let tok;
  try {
    tok = makeTokenizer(text);
  } catch (e) {
    if (!(e instanceof Error) || typeof (/** @type {any} */ (e)).field !== 'string') {
      console.error(`input ${i}: refused without a field: ${e}\n${text.slice(0, 2000)}`);
      process.exit(1);
    }
    counts.refusedWithField++;
  }
  const ms = performance.now() - t0;
  if (ms > slowest) [slowest, slowestInput] = [ms, text];
  if (ms > MAX_MS) {
    console.error(`input ${i}: took ${ms.toFixed(0)} ms, above ${MAX_MS} ms\n${text.slice(0, 2000)}`);
    process.exit(1);
  }
  if (!tok) continue;
  counts.loaded++;
  if (!Number.isInteger(tok.vocabSize) || tok.vocabSize < 0) {
    console.error(`input ${i}: vocabSize ${tok.vocabSize}`);
    process.exit(1);
  }
  const ids = Array.from({ length: Math.floor(rnd() * 5) }, () => pick([...IDS, Math.floor(rnd() * (tok.vocabSize + 2))]));
  try {
    if (typeof tok.decode(ids) !== 'string') throw new Error('decode returned no string');
    counts.decoded++;
  } catch (e) {
    if (/** @type {any} */ (e).field !== 'ids') {
      console.error(`input ${i}: decode(${JSON.stringify(ids)}) failed without field 'ids': ${e}`);
      process.exit(1);
    }
    counts.decodeRefused++;
  }
}
console.log('| inputs | loaded | refused (with field) | decoded | decode refused (ids) | slowest load |');
console.log('|---|---|---|---|---|---|');
console.log(`| ${iterations} | ${counts.loaded} | ${counts.refusedWithField} | ${counts.decoded} | ${counts.decodeRefused} | ${slowest.toFixed(1)} ms |`);
if (process.env.FUZZ_VERBOSE) console.log(slowestInput.slice(0, 500));
