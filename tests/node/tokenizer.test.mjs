// loadTokenizer: a checkpoint's own tokenizer.json through @huggingface/tokenizers (vendored in
// dist/lib), offline, without code generation from strings (npm test runs Node with
// --disallow-code-generation-from-strings, as a CSP without 'unsafe-eval' would), loaded only when asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { load, LIB_DIR } from './helpers.mjs';
import { FIXTURES, config, weights } from './pretrained-kit.mjs';

const dir = path.join(FIXTURES, 'gpt2');
const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));

test('the fixture tokenizer splits text as its merges say (hand-derived), and decodes back', async () => {
  const attn = await load(true);
  const tok = await attn.loadTokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  assert.equal(tok.vocabSize, 41);
  for (const e of read('tokenizer_expected.json')) {
    const r = tok.encode(e.text);
    assert.deepEqual(r.tokens, e.tokens, e.text);
    assert.deepEqual([...r.ids], e.ids, e.text);
    assert.ok(r.ids instanceof Int32Array);
    assert.equal(tok.decode(r.ids), e.text);
  }
  assert.equal(tok.idToToken(30), 'the');
  assert.equal(tok.tokenToId('\u0120mat'), 40);
  // the text as a string of JSON works too, and so does a missing tokenizer_config.json
  const again = await attn.loadTokenizer(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
  assert.deepEqual([...again.encode('the mat').ids], [30, 40]);
});

test('the tokens feed the checkpoint they came with', async () => {
  const attn = await load(true);
  const tok = await attn.loadTokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
  const model = await attn.loadPretrained({ config: config('gpt2'), weights: weights('gpt2') });
  const { ids } = tok.encode('the cat sat on the mat.');
  const out = model.forward(ids, { attentions: true });
  assert.equal(out.logits.length, ids.length * model.info.vocabSize);
  assert.equal(out.attentions[0].length, model.info.nHeads * ids.length * ids.length);
  model.dispose();
});

test('bad tokenizer files are refused naming the field', async () => {
  const attn = await load(true);
  for (const [args, field] of [[['{not json'], 'tokenizer'], [[{}], 'tokenizer.model'], [[null], 'tokenizer'],
    [[read('tokenizer.json'), 'x'], 'config']]) {
    await assert.rejects(attn.loadTokenizer(...args), (e) => e.name === 'TypeError' && e.field === field, field);
  }
  const tok = await attn.loadTokenizer(read('tokenizer.json'));
  assert.throws(() => tok.encode(12), (e) => e.field === 'text');
  assert.throws(() => tok.decode('12'), (e) => e.field === 'ids');
});

test('attention.mjs loads the tokenizer library only when asked, and ships its licence', () => {
  const main = fs.readFileSync(path.join(LIB_DIR, 'attention.mjs'), 'utf8');
  assert.doesNotMatch(main, /^import .*tokeniz/m);
  assert.match(main, /import\('\.\/tokenizer\.mjs'\)/);
  assert.match(fs.readFileSync(path.join(LIB_DIR, 'tokenizers.LICENSE'), 'utf8'), /Apache License/);
  assert.doesNotMatch(fs.readFileSync(path.join(LIB_DIR, 'tokenizers.mjs'), 'utf8'), /new Function|\beval\(/);
});

test('absurd token ids are refused before the library loops over them, naming the token and the id', async () => {
  const attn = await load(true);
  const cases = [
    [(j) => { j.model.vocab.zz = 2 ** 31; }, 'tokenizer.model.vocab', '"zz" has id 2147483648'],
    [(j) => { j.model.vocab.zz = -1; }, 'tokenizer.model.vocab', '"zz" has id -1'],
    [(j) => { j.model.vocab.zz = 1.5; }, 'tokenizer.model.vocab', '"zz" has id 1.5'],
    [(j) => { j.model.vocab.zz = '7'; }, 'tokenizer.model.vocab', '"zz" has id "7"'],
    [(j) => { j.added_tokens.push({ id: 2 ** 31, content: '<big>', special: true }); }, `tokenizer.added_tokens[${read('tokenizer.json').added_tokens.length}]`, '"<big>" has id 2147483648'],
  ];
  for (const [edit, field, part] of cases) {
    const json = read('tokenizer.json');
    edit(json);
    const t0 = performance.now();
    await assert.rejects(attn.loadTokenizer(json), (e) => e instanceof RangeError && e.field === field && e.message.includes(part), part);
    assert.ok(performance.now() - t0 < 5000, `${part}: refused up front, not after the library's loop`);
  }
  // ids up to twice the entries plus 1,023 are read (a sparse but sane numbering)
  const json = read('tokenizer.json');
  json.model.vocab.zz = 2 * (Object.keys(json.model.vocab).length + json.added_tokens.length) + 1023;
  const tok = await attn.loadTokenizer(json);
  assert.equal(tok.vocabSize, json.model.vocab.zz + 1);
});

test('a vocabulary of 151,665 tokens (Qwen2.5\'s size, above the 128,256 of Llama 3) loads', async () => {
  const attn = await load(true);
  const json = read('tokenizer.json');
  const vocab = {};
  for (let i = 0; i < 151665; i++) vocab[`t${i}`] = i;  // a loop: no spread of 151,665 arguments
  json.model.vocab = vocab;
  json.model.merges = [];
  json.added_tokens = [];
  const tok = await attn.loadTokenizer(json);
  assert.equal(tok.vocabSize, 151665);
  assert.equal(tok.idToToken(151664), 't151664');
  assert.equal(tok.tokenToId('t151664'), 151664);
});

test('decode refuses what is not a token id, naming the id; an empty list is the empty text', async () => {
  const attn = await load(true);
  const tok = await attn.loadTokenizer(read('tokenizer.json'));
  assert.equal(tok.decode([]), '');
  assert.equal(tok.decode(new Int32Array(0)), '');
  assert.throws(() => tok.decode(['a']), (e) => e instanceof TypeError && e.field === 'ids' && /ids\[0\]/.test(e.message));
  for (const id of [41, 99999, -1, 1.5, NaN]) {
    assert.throws(() => tok.decode([30, id]), (e) => e instanceof RangeError && e.field === 'ids' && e.message.includes(`ids[1] (${id})`), String(id));
  }
  assert.throws(() => tok.decode([30], { skipSpecialTokens: 1 }), (e) => e.field === 'skipSpecialTokens');
  assert.equal(tok.decode([30, 40]), 'the mat');
});
