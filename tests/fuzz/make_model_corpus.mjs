// make_model_corpus.mjs: writes the model-file seeds of the fuzzer (tests/fuzz/corpus/model_*): a tiny
// trainer's export (mode byte 0xA8: loaded as is), its body (0xA9: the harness appends the CRC-32) and
// six copies with one bit flipped. Run after `npm run build`: node tests/fuzz/make_model_corpus.mjs
import fs from 'node:fs';
import { loadAttention } from '../../dist/lib/attention.mjs';
const a = await loadAttention({ simd: false });
const t = a.createTrainer({ task: 'copy', seqLen: 4, batchSize: 2, seed: 1, vocabSize: 4, model: { variant: 'gqa', dModel: 8, nHeads: 2, nKvHeads: 1 } });
t.step(2);
const f = t.exportModel();
const dir = new URL('./corpus/', import.meta.url).pathname;
const write = (name, mode, bytes) => { const o = new Uint8Array(bytes.length + 1); o[0] = mode; o.set(bytes, 1); fs.writeFileSync(dir + name, o); };
write('model_export', 0xa8, f);
write('model_body_resealed', 0xa9, f.subarray(0, f.length - 4));
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
for (let i = 0; i < 6; i++) {
  const g = f.slice();
  const at = Math.floor(rnd() * g.length);
  g[at] ^= 1 << Math.floor(rnd() * 8);
  write(`model_flip_${i}`, i % 2 ? 0xa9 : 0xa8, i % 2 ? g.subarray(0, g.length - 4) : g);
}
console.log(f.length, 'bytes');
