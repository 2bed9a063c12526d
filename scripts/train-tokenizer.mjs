// node scripts/train-tokenizer.mjs [--corpus FILE] [--vocab 2048] [--measure]
//
// Trains the zoo's byte-level BPE tokenizer (GPT-2's scheme: the ByteLevel pre-tokenizer with its
// regex, no prefix space, a ByteLevel decoder, so every text is encodable) on the corpus without its
// held-out tail, with the Hugging Face tokenizers library's Node binding (the npm `tokenizers`
// package, a devDependency: build time only, never in the page). Writes
//   zoo/tokenizer/tokenizer.json, zoo/tokenizer/tokenizer_config.json   (committed)
//   tests/fixtures/zoo-tokenizer/expected.json  held-out lines and the binding's ids for them (committed;
//                                               tests/node/zoo-tokenizer.test.mjs checks the page's
//                                               tokenizer path against them)
//   build-zoo/tinyshakespeare.tokens.bin        the whole corpus's ids, little-endian uint16 (not
//                                               committed: zoo_train --tokens reads it)
// --measure prints held-out tokens per word and coverage for several vocabulary sizes (docs/zoo.md).
//
// The split: held out = the text from the first line start at or after 90 % of its characters. The
// tokenizer never sees it.
//
// The binding's train() runs the model's default trainer only (BpeTrainer::default(): up to 30,000
// tokens, no special tokens, the corpus's own characters as alphabet); it has no option for the
// vocabulary size. So this script trains with it to the end (every pair the corpus has), then keeps
// the first merges in merge order: BPE applies merges by rank, and a prefix of the merge list, with
// the tokens those merges make, is itself a complete BPE (every kept merge joins tokens that the 256
// bytes or earlier kept merges make). Ids: 0-255 the bytes (GPT-2's byte-to-character table, id =
// byte value), then one id per kept merge in order, then <|endoftext|> last. Deterministic: the
// trainer breaks ties by count and then by pair, and its alphabet is sorted (checked: two runs write
// the same bytes).
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Tokenizer, BPE, byteLevelPreTokenizer } = require('tokenizers');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const corpusFile = resolve(arg('corpus', join(root, '../shared/data/tinyshakespeare.txt')));
const vocabSize = Number(arg('vocab', 2048));
const measure = process.argv.includes('--measure');
export const EOT = '<|endoftext|>';
const FIXTURE_LINES = 3000;

/** GPT-2's bytes_to_unicode: byte -> the printable character that stands for it. */
function byteChars() {
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const out = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return out;
}

const text = readFileSync(corpusFile, 'utf8');
const split = text.lastIndexOf('\n', Math.floor(text.length * 0.9) - 1) + 1;
const trainText = text.slice(0, split);
const heldOut = text.slice(split);

// Train to the end with the binding's default trainer.
const tmp = mkdtempSync(join(tmpdir(), 'train-tokenizer-'));
let merges;
try {
  writeFileSync(join(tmp, 'train.txt'), trainText);
  const t = new Tokenizer(BPE.empty());
  t.setPreTokenizer(byteLevelPreTokenizer(false, true));
  t.train([join(tmp, 'train.txt')]);
  t.save(join(tmp, 'full.json'), false);
  merges = JSON.parse(readFileSync(join(tmp, 'full.json'), 'utf8')).model.merges
    .map((m) => (Array.isArray(m) ? m : m.split(' ')));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

/** The tokenizer.json of the first `size` tokens (256 bytes, size - 257 merges, <|endoftext|>). */
function tokenizerJson(size) {
  const kept = merges.slice(0, size - 257);
  if (kept.length !== size - 257) throw new Error(`train-tokenizer: the corpus gives only ${merges.length} merges, fewer than ${size - 257}`);
  const vocab = {};
  byteChars().forEach((c, b) => { vocab[c] = b; });
  for (const [a, b] of kept) {
    if (!(a in vocab) || !(b in vocab)) throw new Error(`train-tokenizer: merge ${a} ${b} joins a token not made before it`);
    if (a + b in vocab) throw new Error(`train-tokenizer: merge ${a} ${b} makes a token twice`);
    vocab[a + b] = Object.keys(vocab).length;
  }
  const byteLevel = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: size - 1, content: EOT, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', ...byteLevel },
    post_processor: null,
    decoder: { type: 'ByteLevel', ...byteLevel },
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges: kept,
    },
  };
}

const ids = async (tok, s) => (await tok.encode(s, null, { addSpecialTokens: false })).getIds();

/** Held-out figures of a tokenizer: tokens per word, chars per token, words that are one token. */
async function heldOutStats(tok) {
  const words = heldOut.split(/\s+/).filter(Boolean);
  const tokens = (await ids(tok, heldOut)).length;
  // a word as the page's learner sees it: preceded by a space, as inside a sentence
  const single = (await tok.encodeBatch(words.map((w) => ` ${w.replace(/[^A-Za-z']/g, '')}`).filter((w) => w.length > 1)))
    .filter((e) => e.getIds().length === 1).length;
  const letterWords = words.filter((w) => w.replace(/[^A-Za-z']/g, '').length > 0).length;
  return { tokens, words: words.length, tokensPerWord: tokens / words.length, charsPerToken: heldOut.length / tokens,
    singleTokenWords: single / letterWords };
}

const SENTENCE = 'the cat sat on the mat';

if (measure) {
  console.log(`held out: ${heldOut.length} characters from ${split} (${(100 * heldOut.length / text.length).toFixed(2)} %), all ${merges.length} merges trained`);
  console.log('vocab  tokens/word  chars/token  words as one token  embedding params at width 128  "the cat sat on the mat"');
  for (const size of [512, 1024, 2048, 4096, 8192]) {
    const tok = Tokenizer.fromString(JSON.stringify(tokenizerJson(size)));
    const s = await heldOutStats(tok);
    const enc = await tok.encode(SENTENCE);
    console.log(`${String(size).padStart(5)}  ${s.tokensPerWord.toFixed(3).padStart(11)}  ${s.charsPerToken.toFixed(3).padStart(11)}  ` +
      `${(100 * s.singleTokenWords).toFixed(1).padStart(17)} %  ${String(size * 128).padStart(29)}  ${JSON.stringify(enc.getTokens())}`);
  }
  process.exit(0);
}

const json = tokenizerJson(vocabSize);
const tok = Tokenizer.fromString(JSON.stringify(json));
const outDir = join(root, 'zoo/tokenizer');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'tokenizer.json'), `${JSON.stringify(json)}\n`);
const config = { tokenizer_class: 'GPT2Tokenizer', bos_token: EOT, eos_token: EOT, unk_token: EOT, add_prefix_space: false,
  model_max_length: 1024, clean_up_tokenization_spaces: false };
writeFileSync(join(outDir, 'tokenizer_config.json'), `${JSON.stringify(config, null, 2)}\n`);

// The fixture: the first FIXTURE_LINES non-empty held-out lines, one by one, and one block of the
// held-out text with its newlines (merges across line ends), with the binding's ids.
const lines = heldOut.split('\n').filter((l) => l.length > 0).slice(0, FIXTURE_LINES);
const lineIds = await tok.encodeBatch(lines, { addSpecialTokens: false });
const block = heldOut.slice(0, 4000);
const fixture = {
  note: 'ids of held-out lines of tinyshakespeare.txt by the npm tokenizers binding (scripts/train-tokenizer.mjs)',
  vocabSize, sentence: SENTENCE, sentenceTokens: (await tok.encode(SENTENCE)).getTokens(), sentenceIds: await ids(tok, SENTENCE),
  block, blockIds: await ids(tok, block),
  lines, lineIds: lineIds.map((e) => e.getIds()),
};
const fixtureDir = join(root, 'tests/fixtures/zoo-tokenizer');
mkdirSync(fixtureDir, { recursive: true });
writeFileSync(join(fixtureDir, 'expected.json'), `${JSON.stringify(fixture)}\n`);

// The whole corpus's ids (one encode over the whole text, as training windows read it).
const all = await ids(tok, text);
const heldOutStart = (await ids(tok, trainText)).length;
const bin = new Uint16Array(all);
mkdirSync(join(root, 'build-zoo'), { recursive: true });
writeFileSync(join(root, 'build-zoo/tinyshakespeare.tokens.bin'), Buffer.from(bin.buffer));
const s = await heldOutStats(tok);
console.log(`train-tokenizer: ${vocabSize} tokens (${vocabSize - 257} merges of ${merges.length}), trained on ${split} of ${text.length} characters`);
console.log(`  held out: ${heldOut.length} characters, ${s.words} words, ${s.tokens} tokens: ${s.tokensPerWord.toFixed(3)} tokens per word, ` +
  `${s.charsPerToken.toFixed(3)} characters per token, ${(100 * s.singleTokenWords).toFixed(1)} % of words one token`);
console.log(`  corpus: ${all.length} tokens; the training text alone gives ${heldOutStart} (the held-out text ${(100 * (1 - heldOutStart / all.length)).toFixed(2)} % of the tokens)`);
console.log(`  ${JSON.stringify(SENTENCE)} -> ${JSON.stringify(fixture.sentenceTokens)} ${JSON.stringify(fixture.sentenceIds)}`);
console.log(`  wrote zoo/tokenizer/tokenizer.json (${readFileSync(join(outDir, 'tokenizer.json')).length} bytes), tokenizer_config.json, ` +
  `tests/fixtures/zoo-tokenizer/expected.json, build-zoo/tinyshakespeare.tokens.bin (${bin.byteLength} bytes)`);
