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
