// bench/raw-modules.mjs: the attention and training modules of dist/lib for one build, instantiated
// raw (so that a benchmark can read their internal estimates: _cost, a raw trainer's _costs), and the
// published API on top of them (makeAttention), with training loaded.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LIB = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), 'dist/lib');

/** @param {'simd' | 'scalar'} build */
export async function loadRawModules(build) {
  const raw = async (name) => (await import(pathToFileURL(path.join(LIB, `${name}.mjs`)).href)).default({
    wasmBinary: fs.readFileSync(path.join(LIB, `${name}.wasm`)) });
  const { makeAttention } = await import(pathToFileURL(path.join(LIB, 'attention-api.mjs')).href);
  const M = await raw(`attention-${build}`);
  const T = await raw(`attention-train-${build}`);
  const attn = makeAttention(M, build, async () => T);
  await attn.loadTraining();
  return { M, T, attn };
}
