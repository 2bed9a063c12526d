// make_model_corpus.mjs: writes the .safetensors model-file seeds of the fuzzer
// (tests/fuzz/corpus/model_st_*): a tiny trainer's export (mode byte 0xA8: loaded as is), the same
// with mode 0xAA (the harness recomputes its "crc32" metadata value), a 'chars' trainer's export
// (its text in the metadata), a block 'llama' trainer's export, and six copies with one bit flipped. Run after `npm run build`:
// node tests/fuzz/make_model_corpus.mjs
// The ATTNTRN2 seeds (model_export, model_body_resealed, model_flip_*, model_regression_*) were
// written by the previous exporter and are kept as they are: they fuzz the legacy reader.
import fs from 'node:fs';
import { loadAttention } from '../../dist/lib/attention.mjs';
const a = await loadAttention({ simd: false });
const t = a.createTrainer({ task: 'copy', seqLen: 4, batchSize: 2, seed: 1, vocabSize: 4, model: { variant: 'gqa', dModel: 8, nHeads: 2, nKvHeads: 1 } });
t.step(2);
const f = t.exportModel();
const c = a.createTrainer({ task: 'chars', text: 'ab\u00e9\n"\\'.repeat(12), seqLen: 4, batchSize: 2, seed: 2, model: { variant: 'mla', dModel: 8, nHeads: 2, latentRank: 4, ropeDim: 2, mlp: true } });
c.step(1);
const l = a.createTrainer({ task: 'induction', seqLen: 4, batchSize: 2, seed: 3, vocabSize: 5,
  model: { block: 'llama', variant: 'gqa', dModel: 8, nHeads: 2, nKvHeads: 1, mlpWidth: 8, tiedEmbeddings: true } });
l.step(1);
const dir = new URL('./corpus/', import.meta.url).pathname;
const write = (name, mode, bytes) => { const o = new Uint8Array(bytes.length + 1); o[0] = mode; o.set(bytes, 1); fs.writeFileSync(dir + name, o); };
write('model_st_export', 0xa8, f);
write('model_st_resealed', 0xaa, f);
write('model_st_chars_resealed', 0xaa, c.exportModel());
write('model_st_llama_resealed', 0xaa, l.exportModel());
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
for (let i = 0; i < 6; i++) {
  const g = f.slice();
  const at = Math.floor(rnd() * g.length);
  g[at] ^= 1 << Math.floor(rnd() * 8);
  write(`model_st_flip_${i}`, i % 2 ? 0xaa : 0xa8, g);
}
console.log(f.length, 'bytes');
