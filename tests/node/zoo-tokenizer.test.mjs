// The zoo's BPE tokenizer (zoo/tokenizer/tokenizer.json, written by scripts/train-tokenizer.mjs with the
// npm `tokenizers` binding) read through the page's own tokenizer path (wasm/tokenizer.mjs as built into
// dist/lib): the same ids as the binding gave for 3,000 held-out lines of the corpus and one block of it
// with its newlines (tests/fixtures/zoo-tokenizer/expected.json). Needs neither the binding nor the corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LIB_DIR, REPO } from './helpers.mjs';

const read = (f) => JSON.parse(fs.readFileSync(path.join(REPO, f), 'utf8'));
const tokenizerFile = path.join(REPO, 'zoo/tokenizer/tokenizer.json');

async function pageTokenizer() {
  const { makeTokenizer } = await import(pathToFileURL(path.join(LIB_DIR, 'tokenizer.mjs')).href);
  return makeTokenizer(fs.readFileSync(tokenizerFile, 'utf8'), read('zoo/tokenizer/tokenizer_config.json'));
}

test('the page\'s tokenizer path gives the ids the tokenizers binding gave, line by line and across lines', async () => {
  const tok = await pageTokenizer();
  const e = read('tests/fixtures/zoo-tokenizer/expected.json');
  assert.equal(tok.vocabSize, e.vocabSize);
  assert.equal(e.lines.length, 3000);
  let tokens = 0;
  for (let i = 0; i < e.lines.length; i++) {
    const r = tok.encode(e.lines[i]);
    assert.deepEqual([...r.ids], e.lineIds[i], `line ${i}: ${JSON.stringify(e.lines[i])}`);
    assert.equal(tok.decode(r.ids), e.lines[i]);
    tokens += r.ids.length;
  }
  assert.ok(tokens > 20000, `${tokens} tokens`);
  assert.deepEqual([...tok.encode(e.block).ids], e.blockIds);
  assert.equal(tok.decode(e.blockIds), e.block);
  const s = tok.encode(e.sentence);
  assert.deepEqual(s.tokens, e.sentenceTokens);
  assert.deepEqual([...s.ids], e.sentenceIds);
});

test('byte-level: any text encodes and decodes back; ids 0-255 are the bytes, <|endoftext|> the last id', async () => {
  const tok = await pageTokenizer();
  assert.equal(tok.vocabSize, 2048);
  assert.equal(tok.idToToken(2047), '<|endoftext|>');
  assert.equal(tok.idToToken(65), 'A');
  assert.equal(tok.idToToken(32), '\u0120');  // GPT-2's stand-in for the space byte
  for (const text of ['Zwölf Boxkämpfer jagen Viktor quer über den Sylter Deich', '日本語のテキスト 🙂', 'tab\there\r\nand\u0000nul']) {
    const r = tok.encode(text);
    assert.ok(r.ids.every((id) => id >= 0 && id < 2047));
    assert.equal(tok.decode(r.ids), text);
  }
  // common words of the corpus are one token each, with their leading space
  assert.deepEqual(tok.encode('the king and the queen').tokens, ['the', '\u0120king', '\u0120and', '\u0120the', '\u0120queen']);
});

test('tokenizer.json is small enough to ship with the zoo', () => {
  const bytes = fs.statSync(tokenizerFile).size;
  assert.ok(bytes < 100_000, `${bytes} bytes`);
});
