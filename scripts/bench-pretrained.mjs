// The pretrained row of npm run bench: a SmolLM2-135M-shaped llama checkpoint with random BF16
// weights, generated here in memory (written to disk only with --write), opened through attn.loadPretrained, then
//   prefill   forward() over 64 tokens (median of 5 after 2 warm-up calls)
//   decode    a session after a 64-token prompt: one token per append (median of 32 steps, after 8)
// The 64-token forward and the prompt's append are over the core's synchronous time cap (a page would
// run them in its worker, with Stop): the bench lifts the cap for them with allowLongWork.
// beside the bytes one decoding step streams (every weight once, the tied head included, plus the K/V
// cache it reads) and the floor that bandwidth sets: those bytes at the copy bandwidth of a wasm
// memory.copy measured in the same process.
//
//   node scripts/bench-pretrained.mjs [--build fma|simd|scalar]   (npm run bench runs it for each build)
//   node scripts/bench-pretrained.mjs --write DIR   that checkpoint as a folder, for bench/decode_native.cpp
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// HuggingFaceTB/SmolLM2-135M's config.json (the geometry; weights random)
export const SMOLLM2_135M = {
  model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 576, intermediate_size: 1536,
  num_attention_heads: 9, num_key_value_heads: 3, num_hidden_layers: 30, vocab_size: 49152, head_dim: 64,
  max_position_embeddings: 8192, rms_norm_eps: 1e-5, rope_theta: 100000, rope_scaling: null, hidden_act: 'silu',
  tie_word_embeddings: true, attention_bias: false, mlp_bias: false, torch_dtype: 'bfloat16',
};

// Qwen/Qwen2.5-0.5B's config.json (the geometry; weights random): qwen2, biases on q, k and v
export const QWEN25_05B = {
  model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_size: 896, intermediate_size: 4864,
  num_attention_heads: 14, num_key_value_heads: 2, num_hidden_layers: 24, vocab_size: 151936,
  max_position_embeddings: 32768, rms_norm_eps: 1e-6, rope_theta: 1000000, hidden_act: 'silu',
  tie_word_embeddings: true, use_sliding_window: false, sliding_window: 32768, max_window_layers: 24,
  bos_token_id: 151643, eos_token_id: 151643, torch_dtype: 'bfloat16',
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** The tensors of a llama (or qwen2: biases on q, k, v) config: [name, shape]. */
function llamaTensors(c) {
  const d = c.hidden_size, dh = c.head_dim ?? c.hidden_size / c.num_attention_heads, h = c.num_attention_heads, g = c.num_key_value_heads, i = c.intermediate_size;
  const t = [['model.embed_tokens.weight', [c.vocab_size, d]], ['model.norm.weight', [d]]];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    t.push([`${p}input_layernorm.weight`, [d]], [`${p}post_attention_layernorm.weight`, [d]],
      [`${p}self_attn.q_proj.weight`, [h * dh, d]], [`${p}self_attn.k_proj.weight`, [g * dh, d]],
      [`${p}self_attn.v_proj.weight`, [g * dh, d]], [`${p}self_attn.o_proj.weight`, [d, h * dh]],
      [`${p}mlp.gate_proj.weight`, [i, d]], [`${p}mlp.up_proj.weight`, [i, d]], [`${p}mlp.down_proj.weight`, [d, i]]);
    if (c.model_type === 'qwen2') {
      t.push([`${p}self_attn.q_proj.bias`, [h * dh]], [`${p}self_attn.k_proj.bias`, [g * dh]], [`${p}self_attn.v_proj.bias`, [g * dh]]);
    }
  }
  return t;
}

/** A .safetensors file of random BF16 tensors (norm weights 1, the rest uniform in +-0.05): llama or qwen2. */
export function randomBf16Checkpoint(config) {
  const tensors = llamaTensors(config);
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const start = 8 + text.length;
  const file = new Uint8Array(start + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(text.length), true);
  file.set(new TextEncoder().encode(text), 8);
  // a pool of random bf16 values (the top half of float32s), tiled over every tensor
  const pool = new Uint16Array(1 << 20);
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  let s = 12345;
  for (let k = 0; k < pool.length; k++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    f[0] = (s / 4294967296 - 0.5) * 0.1;
    pool[k] = u[0] >>> 16;
  }
  const data = new Uint16Array(file.buffer, start, offset / 2);
  for (const [name, shape] of tensors) {
    const [b, e] = header[name].data_offsets.map((x) => x / 2);
    if (name.includes('norm')) data.fill(0x3f80, b, e);  // 1.0
    else for (let k = b; k < e; k += pool.length) data.set(pool.subarray(0, Math.min(pool.length, e - k)), k);
  }
  return file;
}

// (module (memory (export "m") 2048) (func (export "c") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.copy))
export const COPY_WASM = [0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 3, 127, 127, 127, 0, 3, 2, 1, 0, 5, 4, 1,
  0, 128, 16, 7, 9, 2, 1, 109, 2, 0, 1, 99, 0, 0, 10, 14, 1, 12, 0, 32, 0, 32, 1, 32, 2, 252, 10, 0, 0, 11];

/**
 * Bytes read per second by a wasm memory.copy of 64 MiB (the bandwidth behind the decode floor): the
 * median of 10 copies after 2. Self-contained, so that a page can run it too (its source is evaluated there).
 */
export async function copyBandwidth(wasm = COPY_WASM) {
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const { instance } = await WebAssembly.instantiate(new Uint8Array(wasm));
  const size = 64 << 20;
  new Uint8Array(instance.exports.m.buffer).fill(1);
  const ms = [];
  for (let k = 0; k < 12; k++) {
    const t = performance.now();
    instance.exports.c(size, 0, size);
    ms.push(performance.now() - t);
  }
  return size / (median(ms.slice(2)) * 1e6) * 1e9;
}

/**
 * Times the checkpoint on one build. `runs` sets how many calls are timed after how many warm-up calls
 * (the defaults are the table's; a smoke test runs one of each).
 */
export async function benchPretrained(build, runs = {}) {
  const { prefill: prefillRuns = 5, prefillWarm = 2, decode: decodeRuns = 32, decodeWarm = 8 } = runs;
  const { loadAttention } = await import(pathToFileURL(path.join(REPO, 'dist/lib/attention.mjs')).href);
  const attn = await loadAttention({ simd: build !== 'scalar', fma: build === 'fma', training: false });
  const config = SMOLLM2_135M;
  const t0 = performance.now();
  const file = randomBf16Checkpoint(config);
  const model = await attn.loadPretrained({ config, weights: file });
  const loadMs = performance.now() - t0;
  const prompt = Int32Array.from({ length: 64 }, (_, k) => (k * 7919) % config.vocab_size);
  const prefill = [];
  const long = { allowLongWork: true };
  for (let k = 0; k < prefillWarm + prefillRuns; k++) {
    const t = performance.now();
    model.forward(prompt, long);
    if (k >= prefillWarm) prefill.push(performance.now() - t);
  }
  const session = model.createSession({ maxLen: 64 + decodeWarm + decodeRuns });
  session.append(prompt, long);
  const steps = [], cpu = [];
  for (let k = 0; k < decodeWarm + decodeRuns; k++) {
    const t = performance.now(), c = process.cpuUsage();
    session.append([k % config.vocab_size]);
    const used = process.cpuUsage(c);
    if (k >= decodeWarm) { steps.push(performance.now() - t); cpu.push((used.user + used.system) / 1e3); }
  }
  // one step streams every weight once (the tied embedding is the head) and reads the cache it holds
  const cacheRead = session.cacheBytes;  // float32 K and V of the tokens so far, all layers
  const bytesPerToken = model.info.weightBytes + cacheRead;
  const gbs = await copyBandwidth();
  const result = {
    build, loadMs, params: model.info.params, weightBytes: model.info.weightBytes,
    prefillMs: median(prefill), prefillRange: [Math.min(...prefill), Math.max(...prefill)],
    decodeMs: median(steps), decodeRange: [Math.min(...steps), Math.max(...steps)], decodeCpuMs: median(cpu),
    bytesPerToken, copyGbs: gbs / 1e9, floorMs: (bytesPerToken / gbs) * 1e3,
  };
  session.dispose();
  model.dispose();
  return result;
}

/** The rows of npm run bench's table. */
export function pretrainedRows(results) {
  const header = ['pretrained (SmolLM2-135M shape, random BF16)', 'build', 'prefill 64 tokens ms', 'tokens/s',
    'decode ms/token', 'tokens/s', 'decode CPU ms/token', 'bytes streamed/token', 'floor ms (copy GB/s)', 'decode / floor'];
  const rows = results.map((r) => [
    `${(r.params / 1e6).toFixed(1)}M params, ${(r.weightBytes / 1e6).toFixed(0)} MB`, r.build,
    `${r.prefillMs.toFixed(0)} (${r.prefillRange.map((x) => x.toFixed(0)).join('-')})`, (64000 / r.prefillMs).toFixed(0),
    `${r.decodeMs.toFixed(1)} (${r.decodeRange.map((x) => x.toFixed(1)).join('-')})`, (1000 / r.decodeMs).toFixed(1), r.decodeCpuMs.toFixed(1),
    `${(r.bytesPerToken / 1e6).toFixed(1)} MB`, `${r.floorMs.toFixed(1)} (${r.copyGbs.toFixed(1)})`,
    `${(r.decodeMs / r.floorMs).toFixed(2)}x`]);
  return { header, rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { build: { type: 'string' }, write: { type: 'string' } } });
  if (values.write) {  // --write DIR: the SmolLM2-135M-shaped checkpoint as a folder (for bench/decode_native.cpp)
    fs.mkdirSync(values.write, { recursive: true });
    fs.writeFileSync(path.join(values.write, 'config.json'), `${JSON.stringify(SMOLLM2_135M, null, 2)}\n`);
    fs.writeFileSync(path.join(values.write, 'model.safetensors'), randomBf16Checkpoint(SMOLLM2_135M));
    process.exit(0);
  }
  const builds = values.build ? [values.build] : ['simd', 'scalar'];
  const results = [];
  for (const b of builds) results.push(await benchPretrained(b));
  const { header, rows } = pretrainedRows(results);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
