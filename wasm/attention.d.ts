// attention.d.ts: types of attention.mjs, the JS API of the attention core (docs/api.md).
//
// Conventions: every matrix is a row-major Float32Array. Weights use the layout (d_in, d_out), Y = X @ W.
// Head h of a projection owns columns [h*dHead, (h+1)*dHead). Query head h reads K/V head
// floor(h / (nHeads / nKvHeads)). Attention weights are head-major: weights[h*N*S + i*S + j].
// Bad input throws an Error naming the field and its value: RangeError for a bad number, TypeError
// for a wrong type or a missing field; `error.field` holds the field's path (see AttentionError).
// Only a spec's own enumerable fields are read (nested ones too: weights, rope, model); inherited
// fields (e.g. set on Object.prototype) are ignored. Lengths are checked before anything is copied
// into the wasm heap, so a refused call leaves `heapBytes()` unchanged. A finite input whose result
// would overflow float32 is refused with a RangeError naming the input and its magnitude: results
// never hold NaN or Infinity.
//
// Memory: the wasm heap grows on demand and never shrinks (WebAssembly memory cannot). Disposing
// sessions and trainers returns their memory to the heap for reuse; to give the heap itself back to
// the browser, drop every reference to the Attention object (or terminate the worker that owns it)
// and load a fresh instance in a new worker: `loadAttention` memoises one instance per realm.

/**
 * What every function of the API throws on bad input: a `TypeError` (wrong type, missing or unknown
 * field), a `RangeError` (a bad number, a size or work cap) or an `Error` (e.g. a disposed session),
 * whose message names the field and its value, plus `field`.
 *
 * `field` is the path of the field the error is about, the first one the message names: a top-level
 * spec field (`'seqLen'`, `'nHeads'`, `'x'`), a nested one (`'weights.wq'`, `'rope.base'`,
 * `'model.nHeads'` in a trainer spec), a method argument (`'n'` of `truncate` and `step`, `'x'` of
 * `append`, `'tokens'` of `attention`, `'bytes'` of `loadModel`), an unknown key's path
 * (`'nKVHeads'`, `'model.nLayer'`), or `'training'` (the load option) when `createTrainer` or
 * `loadModel` is called before the training module is loaded. It is `undefined` for errors not about one field (a work cap that
 * depends on several fields, a spec that is not an object, a disposed object).
 */
export interface AttentionError extends Error {
  name: 'TypeError' | 'RangeError' | 'Error';
  field?: string;
}

/** The four attention variants. */
export type Variant = 'mha' | 'mqa' | 'gqa' | 'mla';

/** Options of {@link loadAttention}. */
export interface LoadOptions {
  /**
   * Which WebAssembly build to load. `'auto'` (default): the SIMD build where the engine supports
   * WebAssembly SIMD, the scalar build otherwise. `true`: the SIMD build (the promise rejects on an
   * engine without SIMD). `false`: the scalar build.
   */
  simd?: 'auto' | boolean;
  /**
   * Among the SIMD builds, whether to load the FMA build (WebAssembly relaxed SIMD: products added
   * with `f32x4.relaxed_madd`, fused where the CPU has FMA; the same results within rounding).
   * `'auto'` (default): the FMA build where the engine validates relaxed SIMD (Chromium, Firefox;
   * Node 20 with `--experimental-wasm-relaxed-simd`), the SIMD build otherwise. `true`: the FMA build
   * (the promise rejects where the engine lacks relaxed SIMD; a TypeError with `simd: false`).
   * `false`: the plain SIMD build.
   */
  fma?: 'auto' | boolean;
  /**
   * Whether to load the lab's training module (a second WebAssembly module of the same build) too.
   * `true` (default): `createTrainer` and `loadModel` work at once. `false`: a lighter load, the
   * attention module only; call `await attn.loadTraining()` before training (until then
   * `createTrainer`, `loadModel`, `createDecodeProbe`, `copyBandwidth`, `recommend` and
   * `deploymentTargets` throw an Error with `field: 'training'` saying so).
   */
  training?: boolean;
}
// loadAttention rejects with a TypeError when options is not an object or has another key.

/** RoPE on every q and k head (MHA/MQA/GQA): `true` uses base 10000; `{ base }` a finite base >= 1. */
export type RopeOption = boolean | { base: number };

/** Weights of MHA / MQA / GQA. Shapes are (rows, cols), row-major; G = nKvHeads, dh = dHead. */
export interface MhaWeights {
  /** (dModel, nHeads * dHead) */
  wq: Float32Array;
  /** (dModel, G * dHead) */
  wk: Float32Array;
  /** (dModel, G * dHead) */
  wv: Float32Array;
  /** (nHeads * dHead, dModel) */
  wo: Float32Array;
}

/**
 * Weights of MLA. Per head h: c = X wDkv, k_h = c wUk[:, h], v_h = c wUv[:, h], q_h = X wq[:, h];
 * with ropeDim > 0 also qr_h = rope((X wQr)[:, h]) and kr = rope(X wKr), shared by all heads;
 * s_h = (q_h k_h^T + qr_h kr^T) / sqrt(dHead + ropeDim).
 */
export interface MlaWeights {
  /** (dModel, nHeads * dHead) */
  wq: Float32Array;
  /** (dModel, latentRank): down-projection to the latent `c`, the only thing a session caches (with kr) */
  wDkv: Float32Array;
  /** (latentRank, nHeads * dHead): latent to keys */
  wUk: Float32Array;
  /** (latentRank, nHeads * dHead): latent to values */
  wUv: Float32Array;
  /** (nHeads * dHead, dModel) */
  wo: Float32Array;
  /** (dModel, nHeads * ropeDim): RoPE part of the queries; only when ropeDim > 0 */
  wQr?: Float32Array;
  /** (dModel, ropeDim): the decoupled RoPE key shared by all heads; only when ropeDim > 0 */
  wKr?: Float32Array;
}

/** The geometry shared by forward passes and sessions. */
export interface AttentionShape {
  variant: Variant;
  /** D */
  dModel: number;
  /** H */
  nHeads: number;
  /** G. GQA: required, divides nHeads. MHA: nHeads (may be omitted). MQA: 1 (may be omitted). */
  nKvHeads?: number;
  /** Default dModel / nHeads, which must then divide exactly. May differ from it (PaLM). */
  dHead?: number;
  /** MLA only: r, the rank of the cached latent. Required for MLA. */
  latentRank?: number;
  /** MLA only: dr, the width of the decoupled RoPE part (even). Default 0: no RoPE part. */
  ropeDim?: number;
  /** MHA/MQA/GQA: RoPE on every q and k head. Default false. */
  rope?: RopeOption;
  /** Return the attention weights too. Default false. */
  returnWeights?: boolean;
  /** Weights; when omitted they are drawn deterministically from `seed`. */
  weights?: MhaWeights | MlaWeights;
  /** Integer seed of the deterministic weights. Default 0. */
  seed?: number;
  /**
   * Lifts the time cap of synchronous calls (`info.maxSyncSeconds`: about a second of work, by the
   * core's estimate before the call runs): forward passes, a layer's or session's creation, and for a
   * session spec every append, for a layer spec every forward. Only `true` opts in; default false. Use it
   * in a Web Worker, where blocking is harmless.
   */
  allowLongWork?: boolean;
}

/** Input of {@link Attention.forward}. */
export interface ForwardSpec extends AttentionShape {
  /** N */
  seqLen: number;
  /** Mask key j > i for query i. Default false. */
  causal?: boolean;
  /** (seqLen, dModel) */
  x: Float32Array;
  /**
   * Also return every stage of the pass (`intermediates`), the weights used (`parameters`) and the
   * resolved spec (`shape`): for drawing the lesson step by step. Default false. The stages count
   * against the work cap (a RangeError naming returnIntermediates above it).
   */
  returnIntermediates?: boolean;
}

/** One stage of a forward pass: row-major data of the given shape (outermost first). */
export interface Stage {
  shape: number[];
  data: Float32Array;
}

/**
 * The stages of a forward pass, in the lesson's order (N = seqLen, G = nKvHeads; MLA: G = nHeads).
 * - q (N, H*dh) = x wq; k, v (N, G*dh) = x wk, x wv (before RoPE); MLA: k, v (N, H*dh) = c wUk, c wUv
 * - qHeads (H, N, dh), kHeads / vHeads (G, N, dh): split into heads, RoPE applied to q and k
 *   (MLA: qHeads, kHeads (H, N, dh+dr) = [q_h | qr_h], [k_h | kr])
 * - scores (H, N, N) = q_h k_g^T / sqrt(dh (+dr)), g = floor(h / (H/G)), before the causal mask
 * - attention (H, N, N) = softmax of the masked scores (the maps; equal to `weights`)
 * - heads (H, N, dh) = attention_h v_g; concat (N, H*dh); the output is concat wo
 * - MLA only: c (N, r) = x wDkv; qRope (N, H*dr), kRope (N, dr) after RoPE (ropeDim > 0);
 *   cache (N, r+dr) = [c | kRope], all a session caches per token; qAbsorbed (H, N, r) = q_h wUk_h^T
 */
export interface Intermediates {
  q: Stage; k: Stage; v: Stage;
  qHeads: Stage; kHeads: Stage; vHeads: Stage;
  scores: Stage; attention: Stage; heads: Stage; concat: Stage;
  c?: Stage; qRope?: Stage; kRope?: Stage; cache?: Stage; qAbsorbed?: Stage;
}

/**
 * A block's geometry as the core resolved it: every result's `shape`, `session.shape`, `layer.shape`
 * and {@link Attention.resolveShape}. Frozen (a session's results share its shape, a layer's too).
 */
export interface BlockShape {
  variant: Variant;
  dModel: number; nHeads: number;
  /** H for MHA and MLA, 1 for MQA, G for GQA. */
  nKvHeads: number;
  dHead: number;
  /** 0 outside MLA. */
  latentRank: number; ropeDim: number;
  /** kvHeadOf[h]: the K/V head query head h reads, floor(h / (H / G)); MLA: 0 (the shared latent). */
  kvHeadOf: number[];
  /** Numbers one token adds to a KV cache of this block: 2 * G * dh, MLA r + dr. */
  cacheFloatsPerToken: number;
}

/** The `shape` of a returnIntermediates result: the block's, and the pass's own settings. */
export interface ResolvedShape extends BlockShape {
  seqLen: number;
  /** MLA: the decoupled RoPE's base when ropeDim > 0. */
  rope: false | { base: number };
  causal: boolean;
}

/** Result of {@link Attention.forward} with returnIntermediates: true. */
export interface ForwardIntermediatesResult extends AttentionResult {
  intermediates: Intermediates;
  /** The weight matrices used (seeded or given), by their API names. */
  parameters: Record<string, Float32Array>;
  shape: ResolvedShape;
}

/** One row of the configurator's size table: a rule-of-thumb shape at an anchor budget. */
export interface SizeRow {
  /** The anchor budget (parameters). */
  params: number;
  dModel: number;
  nHeads: number;
  dHead: number;
  nLayers: number;
  /** Where the shape comes from, e.g. 'lesson: Small (~125M); GPT-2 small'. */
  source: string;
  /** A row of the lesson's own rule-of-thumb table (125M, 350M, 1B, 70B). */
  lesson: boolean;
}

/** Input of {@link Attention.createSession}: a forward spec without x, seqLen and causal, plus maxLen. */
export interface SessionSpec extends AttentionShape {
  /** The most tokens the cache will hold. */
  maxLen: number;
}

/** Result of a forward pass or of {@link Session.append}. */
export interface AttentionResult {
  /** (N, dModel); for append, N = the k new tokens. */
  output: Float32Array;
  /**
   * When returnWeights: forward (nHeads, N, N); append (nHeads, k, length), length counted after the
   * append. weights[h*N*S + i*S + j] is query i's weight on key j in head h.
   */
  weights?: Float32Array;
  /** The block's resolved geometry. */
  shape: BlockShape;
}

/**
 * Decoding with a KV cache; causal by construction. Appending a sequence token by token, or in
 * chunks, gives the same outputs as a causal forward pass over all of it, equal within float32
 * rounding (different chunkings sum in a different order; measured differences up to about 1.5e-8). Positions (RoPE) count from
 * the first cached token. Every member throws `Error('session is disposed')` after {@link dispose}.
 */
export interface Session {
  /** Tokens in the cache. */
  readonly length: number;
  /** Bytes the cache holds now, at float32: 2*G*dHead*length*4 (MHA/MQA/GQA), (r+dr)*length*4 (MLA). */
  readonly cacheBytes: number;
  /** The most tokens the cache can hold; appending beyond it throws a RangeError. */
  readonly maxLen: number;
  /** The session's resolved geometry (the `shape` of every append result). */
  readonly shape: BlockShape;
  /**
   * Appends k >= 1 tokens, `x` of (k, dModel), and returns their outputs. More tokens than the room
   * left (maxLen - length) is a RangeError before anything is copied; work estimated above
   * `info.maxSyncSeconds` is refused unless the session spec had `allowLongWork: true`; a result that would overflow float32
   * is refused (field 'x') and leaves the cache as it was.
   */
  append(x: Float32Array): AttentionResult;
  /** Empties the cache. */
  reset(): void;
  /** Keeps the first n cached tokens (an integer, 0 <= n <= length, else a RangeError). */
  truncate(n: number): void;
  /** Frees the wasm memory. Calling it again does nothing. */
  dispose(): void;
}

/** Input of {@link Attention.createLayer}: a forward spec without x and seqLen. */
export interface LayerSpec extends AttentionShape {
  /** Mask key j > i for query i in every {@link Layer.forward}. Default false. */
  causal?: boolean;
}

/**
 * One attention block whose weights were read, checked and packed once (at createLayer). Use it to
 * run many sequences through the same weights: each forward skips copying, checking and packing them
 * (for D = 512 and 128 tokens, about 1 ms of a 9 ms pass). Every member throws
 * `Error('layer is disposed')` after {@link dispose}.
 */
export interface Layer {
  /** x holds a whole number of rows of this many floats. */
  readonly dModel: number;
  /** The layer's resolved geometry (the `shape` of every forward result). */
  readonly shape: BlockShape;
  /**
   * x `(N, dModel)`, any N >= 1 (N = x.length / dModel). Returns what `attn.forward` returns for the
   * layer's spec with `seqLen: N` and this x, bit for bit. The same caps as forward: work estimated
   * above `info.maxSyncSeconds` is refused unless the layer spec had `allowLongWork: true`.
   */
  forward(x: Float32Array): AttentionResult;
  /** Frees the wasm memory. Calling it again does nothing. */
  dispose(): void;
}

/** Input of {@link Attention.paramCount}: a shape (a whole forward spec is accepted too). */
export type ParamCountConfig = AttentionShape;

/** Weights of one attention block without biases; entries a variant does not use are 0. */
export interface ParamCount {
  wq: number;
  wk: number;
  wv: number;
  wo: number;
  wDkv: number;
  wUk: number;
  wUv: number;
  wQr: number;
  wKr: number;
  total: number;
}

/**
 * Input of {@link Attention.kvCacheBytes}. Elements per token per layer (DeepSeek-V2, Table 1):
 * MHA 2*nHeads*dHead, GQA 2*nKvHeads*dHead, MQA 2*dHead, MLA latentRank + ropeDim.
 */
export interface KvCacheConfig {
  variant: Variant;
  nLayers: number;
  nHeads: number;
  nKvHeads?: number;
  dHead?: number;
  latentRank?: number;
  ropeDim?: number;
  /** Tokens per sequence. */
  seqLen: number;
  /** Default 1. */
  batch?: number;
  /** Default 2 (fp16/bf16); 4 fp32, 1 fp8/int8, 0.5 int4. */
  bytesPerElement?: number;
}

/** A real model configuration (shared reference/models.md). */
export interface Preset {
  id: string;
  name: string;
  /** Where the numbers come from (config file or paper). */
  source: string;
  variant: Variant;
  dModel: number;
  nHeads: number;
  nKvHeads: number;
  dHead: number;
  nLayers: number;
  /** MLA only */
  latentRank?: number;
  /** MLA only */
  ropeDim?: number;
  /** Caveats about the numbers (e.g. which config value was trusted), when there are any. */
  notes?: string;
}

/** What was loaded. */
export interface AttentionInfo {
  /** Whether the loaded build uses WebAssembly SIMD (the FMA build does). */
  simd: boolean;
  build: 'fma' | 'simd' | 'scalar';
  /** Version of the core. */
  version: string;
  /** Work above this many bytes is refused with an Error before any allocation. */
  maxWorkBytes: number;
  /**
   * The cap of one synchronous call, in seconds of work as the core's cost model estimates it before the
   * call runs (1: about a second on the project's machine, docs/reliability.md); `allowLongWork: true`
   * lifts it.
   */
  maxSyncSeconds: number;
}

/** The attention core. */
/** What {@link DecodeProbe.cachedStep} measured: one generated token against `context` cached tokens. */
export interface DecodeStepTiming {
  context: number;
  /** Median time of the timed steps, in milliseconds. */
  msPerToken: number;
  /** How many steps were timed (after one untimed step). */
  steps: number;
  /** Bytes the step reads: every weight once, plus the cache rows of `context` tokens. */
  weightBytes: number;
  cacheBytes: number;
}

/** Progress of {@link DecodeProbe.uncachedStep}: call again until `done`. */
export interface RecomputeProgress {
  context: number;
  /** Earlier tokens whose keys and values are recomputed so far (0 .. context). */
  rows: number;
  /** Their time so far, in milliseconds; once done, plus the step itself. */
  ms: number;
  done: boolean;
  /** Floating-point operations of the recompute. */
  flops: number;
}

/**
 * One layer with its packed weights and a KV cache of maxLen tokens (a deterministic pattern), for
 * timing one generated token on this machine (see {@link Attention.createDecodeProbe}).
 */
export interface DecodeProbe {
  /** One token against `context` cached tokens (integer, 0 <= context < maxLen), timed for about budgetMs (0 to 10000). */
  cachedStep(context: number, budgetMs: number): DecodeStepTiming;
  /** The same step without a cache, every earlier key and value recomputed, in calls of about budgetMs. */
  uncachedStep(context: number, budgetMs: number): RecomputeProgress;
  /** Frees the wasm memory; later calls throw. */
  dispose(): void;
}

export interface Attention {
  readonly info: AttentionInfo;
  /** One attention block over a whole sequence. */
  forward(spec: ForwardSpec & { returnIntermediates: true }): ForwardIntermediatesResult;
  forward(spec: ForwardSpec): AttentionResult;
  /**
   * The shape a spec resolves to, checked by the same rules and caps as the call it describes (a forward
   * spec without x, a session spec with maxLen, or the bare geometry); allocates nothing.
   */
  resolveShape(spec: Omit<ForwardSpec, 'x'> | SessionSpec | AttentionShape): BlockShape;
  /** A decoding session holding the weights and a KV cache. Call dispose() when done. */
  createSession(spec: SessionSpec): Session;
  /** A block holding its weights packed, for many forward passes over them. Call dispose() when done. */
  createLayer(spec: LayerSpec): Layer;
  paramCount(cfg: ParamCountConfig): ParamCount;
  /** KV-cache bytes: elements per token per layer * nLayers * seqLen * batch * bytesPerElement. */
  kvCacheBytes(cfg: KvCacheConfig): number;
  /** The models of reference/models.md. */
  presets(): Preset[];
  /**
   * The configurator: the attention geometry for a new model, and why (docs/configurator.md). Needs the
   * configurator module: loaded by `loadAttention()` by default, or by `loadConfigurator()` (or
   * `loadTraining()`) after `loadAttention({ training: false })`; without it, throws an Error with `field: 'training'`.
   */
  recommend(request: RecommendRequest): Recommendation;
  /** The deployment targets `recommend` knows by id. Needs the configurator module (as recommend). */
  deploymentTargets(): DeploymentTarget[];
  /** The configurator's size table (the heads table of the page shows it). */
  sizeTable(): SizeRow[];
  /**
   * A seeded training run of a tiny transformer (the lab). Needs the training module: loaded by
   * `loadAttention()` by default, or by `loadTraining()` after `loadAttention({ training: false })`;
   * without it, throws an Error with `field: 'training'`.
   */
  createTrainer(spec: TrainerSpec): Trainer;
  /**
   * A trainer from `trainer.exportModel()` bytes: a `.safetensors` file (docs/api.md "The model file"),
   * or an older ATTNTRN2 / ATTNTRN1 export. The size (at most 1 GiB) and the first 8 bytes are checked
   * before anything is copied; then the JSON header, the CRC-32 in `__metadata__` (ATTNTRN1 files have
   * none), every config field's type and range, and every tensor (finite weights and moments, second
   * moments >= 0). Errors are RangeErrors with `field: 'bytes'` whose
   * message says what is wrong ("model file is not valid: ..."). A file saved without its `'chars'`
   * text (`textBytes`, `textCrc32` in its metadata: the bundled models of `dist/zoo/`) needs
   * `options.text`, the text it was trained on (field `'text'` when missing or not that text); its
   * weights may be float16 and without AdamW's moments (`weightsOnly`). A file of task `'tokens'` keeps
   * its ids by reference only (`tokenCount`, `tokensCrc32`) and needs `options.tokens`, the ids it was
   * trained on (field `'tokens'` when missing or not those ids).
   */
  loadModel(
    bytes: Uint8Array,
    options?: { allowLongWork?: boolean; text?: string; tokens?: Int32Array | Uint16Array | Uint32Array | number[] },
  ): Trainer;
  /**
   * A decode probe for a session spec (maxLen = the largest context + 1): what one generated token
   * costs at this layer, with and without a KV cache. Needs the training module (as createTrainer).
   */
  createDecodeProbe(spec: SessionSpec): DecodeProbe;
  /** Bytes read per second by the best 64 MiB copy in about budgetMs: the bandwidth floor of a decode step. Needs the training module. */
  copyBandwidth(budgetMs: number): number;
  /** Whether the training module is loaded (`createTrainer` and `loadModel` work). */
  readonly trainingLoaded: boolean;
  /**
   * Loads the training module of this build (once; later calls return the same promise) and
   * resolves to this same object. A failed load rejects and may be retried.
   */
  loadTraining(): Promise<Attention>;
  /** Whether the configurator module is loaded (`recommend` and `deploymentTargets` work). */
  readonly configuratorLoaded: boolean;
  /**
   * Loads the configurator module (one small module for every build: `recommend`,
   * `deploymentTargets`) once, and resolves to this same object; `loadTraining()` loads it too. A
   * failed load rejects and may be retried.
   */
  loadConfigurator(): Promise<Attention>;
  /**
   * Opens a decoder-only Hugging Face checkpoint (docs/api.md "Pretrained checkpoints"). The first call
   * loads the pretrained module of this build (its wasm memory may grow to 4 GiB). Everything is
   * checked from the config and the files' headers before anything is allocated; errors name the
   * config key (`'config.num_key_value_heads'`) or the tensor (`'weights.model.layers.0.self_attn.q_proj.weight'`).
   */
  loadPretrained(options: LoadPretrainedOptions): Promise<Pretrained>;
  /** Whether the pretrained module is loaded (after the first `loadPretrained`). */
  readonly pretrainedLoaded: boolean;
  /**
   * What the loader reads of a `config.json` alone: the model's geometry and architecture (`info`
   * without `params`, `weightBytes` and `kvBytesPerToken`), or the error naming the key it refuses (an
   * architecture, mixture-of-experts layers, a setting it does not compute), so that a checkpoint can be
   * refused before any of its weights is fetched. Loads the pretrained module on the first call.
   */
  checkPretrainedConfig(config: Record<string, unknown>): Promise<Omit<PretrainedInfo, 'params' | 'weightBytes' | 'kvBytesPerToken'>>;
  /** The pretrained module's limits: the largest checkpoint (all its files, bytes) and safetensors header it opens. */
  pretrainedLimits(): Promise<{ maxCheckpointBytes: number; maxHeaderBytes: number }>;
  /**
   * A checkpoint's own tokenizer: `tokenizer.json` and, when the folder has one, `tokenizer_config.json`
   * (each parsed, or as text), through the Hugging Face tokenizers port for JavaScript
   * (@huggingface/tokenizers, shipped as dist/lib/tokenizers.mjs), loaded on the first call. Works
   * offline and under a CSP without 'unsafe-eval'. Bad files: a TypeError with `field` 'tokenizer',
   * 'tokenizer.model' or 'config'.
   */
  loadTokenizer(tokenizerJson: object | string, tokenizerConfig?: object | string): Promise<PretrainedTokenizer>;
  /**
   * The current size of the wasm heap in bytes (it grows on demand and never shrinks): the attention
   * module's heap plus, once loaded, the training module's and the pretrained module's.
   */
  heapBytes(): number;
}

/** A checkpoint's tokenizer (see {@link Attention.loadTokenizer}). */
export interface PretrainedTokenizer {
  /** One past the largest token id (added tokens included). */
  readonly vocabSize: number;
  /** The model's tokens of `text`; `addSpecialTokens` (default false) adds the tokenizer's own (e.g. BOS). */
  encode(text: string, options?: { addSpecialTokens?: boolean }): { ids: Int32Array; tokens: string[] };
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
}

/**
 * A `.safetensors` file: its bytes, a Blob / File (read once as a stream), or a streamed file: its bytes
 * in order as they arrive (a download's `body`) and its length, copied into the heap while it downloads.
 */
export type SafetensorsSource = Uint8Array | ArrayBuffer | Blob | { stream: ReadableStream<Uint8Array>; size: number };

/** Input of {@link Attention.loadPretrained}. */
export interface LoadPretrainedOptions {
  /** The parsed `config.json`; `model_type` one of gpt2, gpt_bigcode, llama, mistral, qwen2, qwen3, deepseek_v2. */
  config: Record<string, unknown>;
  /** The checkpoint's `.safetensors` file, or all its shards (tensor names are looked up across them). */
  weights: SafetensorsSource | SafetensorsSource[];
  /** Called after each tensor is copied into the wasm heap. */
  onProgress?: (progress: { loaded: number; total: number }) => void;
  /** Aborts the load between tensors (the promise rejects with `signal.reason`). */
  signal?: AbortSignal;
}

/** What a checkpoint is, as loaded. */
export interface PretrainedInfo {
  modelType: string;
  variant: Variant;
  nLayers: number;
  dModel: number;
  nHeads: number;
  /** K/V heads (MLA: nHeads, the heads K and V decompress to). */
  nKvHeads: number;
  /** Width of a query/key head (MLA: qk_nope_head_dim + qk_rope_head_dim). */
  dHead: number;
  vocabSize: number;
  intermediateSize: number;
  /** Elements of every tensor the model holds. */
  params: number;
  /** Bytes of those tensors, at their dtypes (as the files store them). */
  weightBytes: number;
  /** Bytes one token adds to the KV cache of all layers at the checkpoint's dtype (HF's cache; MLA: latent + RoPE key). */
  kvBytesPerToken: number;
  tiedEmbeddings: boolean;
  /** Learned positions (gpt2, gpt_bigcode), else null. */
  maxPositions: number | null;
  /** Mistral's sliding window, else null. */
  slidingWindow: number | null;
  /** The K/V head each query head reads (MLA: 0): shape.kvHeadOf. */
  kvHeadOf: number[];
  /**
   * The lesson's geometry of one layer's attention, as {@link Attention.resolveShape} gives a block's:
   * MLA's dHead is qk_nope there (its ropeDim the decoupled key), cacheFloatsPerToken one layer's.
   */
  shape: BlockShape;
  /** MLA only: kv_lora_rank, qk_rope_head_dim, v_head_dim, q_lora_rank (0: no query compression). */
  latentRank?: number;
  ropeDim?: number;
  vHeadDim?: number;
  queryRank?: number;
}

/** Options of {@link Pretrained.forward} and {@link PretrainedSession.append}. */
export interface PretrainedCallOptions {
  /** Return every layer's attention maps. Default false. */
  attentions?: boolean;
  /** Lift the compute cap of a synchronous call (`info.maxSyncFlops`); use in a Web Worker. */
  allowLongWork?: boolean;
}

export interface PretrainedForwardOptions extends PretrainedCallOptions {
  /** Return each head's role scores on these ids (`roles`). Default false. */
  roles?: boolean;
}

/**
 * What one head's map does on the ids: each the mean of one attention weight over its queries, in [0, 1].
 * previousToken, diagonal, firstToken: on key i-1, i, 0 (queries i = 1 … N-1); duplicateToken, induction:
 * on the earlier copies of token i and the keys right after them (queries whose token came before; null
 * when no token repeats).
 */
export interface HeadRoleScores {
  layer: number;
  head: number;
  previousToken: number;
  diagonal: number;
  firstToken: number;
  duplicateToken: number | null;
  induction: number | null;
}

export interface PretrainedOutput {
  /** (N, vocabSize), row-major. */
  logits: Float32Array;
  /** When asked: per layer (H, N, S), head-major (forward: S = N; append: S = the session's length). */
  attentions?: Float32Array[];
  /** forward with roles: per layer then head. */
  roles?: HeadRoleScores[];
}

/** A checkpoint in wasm memory, its weights at the file's dtype. */
export interface Pretrained {
  readonly info: PretrainedInfo;
  /** Token ids (an Int32Array or an Array), positions from 0, causal. */
  forward(ids: ArrayLike<number>, options?: PretrainedForwardOptions): PretrainedOutput;
  /**
   * One layer's attention stage by stage: the tensors forward computes in that layer (the same pass,
   * not a recomputation). Throws a RangeError naming `layer` outside [0, nLayers) or `ids` as forward does.
   */
  stages(ids: ArrayLike<number>, options: PretrainedStagesOptions): PretrainedStages;
  /** A decoding session with a KV cache of `maxLen` tokens (float32). */
  createSession(options: { maxLen: number }): PretrainedSession;
  /** Frees the model's memory; later calls throw. */
  dispose(): void;
}

/** Options of {@link Pretrained.stages}. */
export interface PretrainedStagesOptions {
  /** The layer, 0 to nLayers - 1. */
  layer: number;
  /** Lift the compute cap of a synchronous call; use in a Web Worker. */
  allowLongWork?: boolean;
}

/**
 * The stages of one layer's attention (docs/api.md, "The stages of one layer"); N tokens, D dModel,
 * H heads, G K/V heads, dh head_dim (MLA: qk_nope), dv the value width, dr qk_rope, r latentRank.
 * - grouped: q (N, H*dh), k, v (N, G*dh) with their biases; qNorm, kNorm (qwen3: after the per-head
 *   RMSNorm); qRotated, kRotated (after RoPE, when the model has it); qHeads (H, N, dh), kHeads,
 *   vHeads (G, N, dh)
 * - MLA: cq (N, queryRank) with query compression; q (N, H*dh) the no-RoPE part; c (N, r) before its
 *   norm, cNorm after; k (N, H*dh), v (N, H*dv) from cNorm; qRope (N, H*dr), kRope (N, dr) after RoPE;
 *   qHeads, kHeads (H, N, dh+dr), vHeads (H, N, dv); cache (N, r+dr) = [cNorm | kRope]; qAbsorbed (H, N, r)
 * - scores (H, N, N): scale * q_h . k_g, -Infinity where masked (causal, sliding window);
 *   attention (H, N, N): forward's maps of the layer; heads (H, N, dv); concat (N, H*dv)
 */
export type PretrainedIntermediates = Record<string, Stage>;

/** The `shape` of {@link Pretrained.stages}: the model's info and how this layer computes. */
export interface PretrainedStagesShape extends PretrainedInfo {
  layer: number;
  seqLen: number;
  causal: true;
  /** Width of a value head (MLA: v_head_dim; else dHead). */
  dValue: number;
  /** MLA: qk_nope_head_dim (dHead = dNope + ropeDim). */
  dNope?: number;
  /** The softmax scale: 1/sqrt(dHead), times YaRN's factor where the config sets one. */
  scale: number;
  norm: 'layernorm' | 'rmsnorm';
  qkvBias: boolean;
  oBias: boolean;
  qkNorm: boolean;
  /** One fused [q | k | v] projection (gpt2, gpt_bigcode). */
  fusedQkv: boolean;
  /** pairs 'half': (i, i + w/2) (rotate-half); 'adjacent': (2i, 2i + 1) (DeepSeek's). */
  rope: false | { base: number; type: 'default' | 'linear' | 'llama3' | 'yarn'; pairs: 'half' | 'adjacent'; attentionFactor: number };
}

/** Result of {@link Pretrained.stages}. */
export interface PretrainedStages {
  /** (N, D): the layer's input after its norm. */
  x: Float32Array;
  /** (N, D): concat o_proj (+ its bias), what the attention adds to the residual stream. */
  output: Float32Array;
  intermediates: PretrainedIntermediates;
  shape: PretrainedStagesShape;
}

export interface PretrainedSession {
  /** Appends k >= 1 ids: their logits (k, vocabSize), the rows forward() gives them. */
  append(ids: ArrayLike<number>, options?: PretrainedCallOptions): PretrainedOutput;
  readonly length: number;
  readonly maxLen: number;
  /** Bytes the cache holds now: float32, every layer. */
  readonly cacheBytes: number;
  reset(): void;
  dispose(): void;
}

/** Input of {@link Attention.createTrainer}. */
export interface TrainerSpec {
  task: 'copy' | 'induction' | 'chars' | 'pairs' | 'tokens';
  /** 'chars' only: the corpus; the first 90 % trains, the last 10 % validates. */
  text?: string;
  /**
   * 'tokens' only (required there, with vocabSize): the corpus as token ids, each an integer from 0 to
   * vocabSize - 1 (e.g. a tokenizer's `encode(text).ids`); the first 90 % of the ids trains, the last
   * 10 % validates. At least 10 (seqLen + 2) ids, at most 16,000,000.
   */
  tokens?: Int32Array | Uint16Array | Uint32Array | number[];
  /** The attention geometry (as for forward) plus the model around it. */
  model: Omit<AttentionShape, 'rope'> & {
    /** RoPE on every q and k head, as `rope: true` in forward (a boolean here). Default false. */
    rope?: boolean;
    /** 1 to 4. Default 1. */
    nLayers?: number;
    /** Default false. */
    mlp?: boolean;
    /** Default true. */
    layerNorm?: boolean;
    /** Default false. */
    tiedEmbeddings?: boolean;
    /** Default 'gelu'. Block 'gpt' only. */
    activation?: 'gelu' | 'relu';
    /**
     * Default 'gpt' (learned positions, LayerNorm, GELU/ReLU MLP with biases). 'llama': Hugging Face's
     * LlamaForCausalLM (RoPE, RMSNorm, SwiGLU, no biases; variant 'mha' | 'mqa' | 'gqa'). 'deepseek':
     * DeepseekV2ForCausalLM, dense (the 'llama' block with DeepSeek-V2's MLA; variant 'mla', ropeDim >= 2).
     */
    block?: 'gpt' | 'llama' | 'deepseek';
    /** Blocks 'llama', 'deepseek': the SwiGLU MLP's width, 1 to 131072. Default 8 dModel / 3 rounded up to a multiple of 8. */
    mlpWidth?: number;
    /** Block 'deepseek' only: v_head_dim, 1 to 131072. Default dHead. */
    vHeadDim?: number;
    /** Block 'deepseek' only: q_lora_rank (query compression), 1 to 131072. Default none. */
    qLoraRank?: number;
  };
  /** Default 32. */
  seqLen?: number;
  /** Default 16. */
  batchSize?: number;
  /** Default 3e-3. */
  learningRate?: number;
  /** Default 0. */
  seed?: number;
  /**
   * copy / induction: the task's vocabulary (defaults 16 / 32); pairs: the alphabet (default 8);
   * tokens: the tokenizer's vocabulary, 3 to 65536 (required); chars: from the text.
   */
  vocabSize?: number;
  /** Cosine decay horizon. Default 2000. */
  totalSteps?: number;
  /** Default min(100, totalSteps / 10). */
  warmupSteps?: number;
  /** AdamW weight decay on matrices. Default 0.01. */
  weightDecay?: number;
  /**
   * 'chars', 'tokens' only: the fraction (0 to 1, default 0) of training windows in which a stretch of
   * the window's own text is written again later in it (a copying curriculum).
   */
  repeatFraction?: number;
  /**
   * 'chars', 'tokens' only: the fraction (0 to 1, default 0; with repeatFraction at most 1) of training
   * windows in which a stretch of random ordinary tokens (ids the training text holds) is written twice:
   * its second copy is predictable only by copying the first.
   */
  repeatRandomFraction?: number;
  /** 'induction' only: the shortest repeated segment (2 to min((seqLen+1)/2, vocabSize-2); default half the longest). */
  minSegment?: number;
}

/** Options of {@link Trainer.train}. */
/** What `train`'s onProgress receives after each chunk. */
export interface TrainProgress {
  step: number;
  loss: number;
  done: number;
  steps: number;
  evaluation?: { loss: number; bitsPerToken: number; accuracy: number };
}

export interface TrainOptions {
  /** Optimiser steps to run, an integer from 1 to 1e9. */
  steps: number;
  /**
   * Stops between chunks: the promise rejects with `signal.reason` (an AbortError by default); an
   * AbortSignal or any object with a boolean `aborted`. An abort after the last chunk changes nothing.
   */
  signal?: AbortSignal | { readonly aborted: boolean; readonly reason?: unknown };
  /**
   * Called after each chunk. `done` of `steps` run by this call; `step` is the trainer's total;
   * `evaluation`: `evaluate()`'s result, after every `evalEvery` steps of this call.
   */
  onProgress?: (p: TrainProgress) => void;
  /** Runs `evaluate()` after every `evalEvery` steps (chunks end there), 1 to 1e9. */
  evalEvery?: number;
  /** Steps per synchronous chunk, 1 to maxStepsPerCall. Default: sized by time (about 50 ms of work a chunk). */
  chunk?: number;
}

export interface Trainer {
  readonly steps: number;
  readonly vocabSize: number;
  /** The most steps one `step(n)` may run: about a second of work, max(1, floor(1 s / the core's estimate of a step)). */
  readonly maxStepsPerCall: number;
  /**
   * n optimiser steps; loss: the last step's mean training cross-entropy, nats per token. n must be a
   * number (a TypeError otherwise: '5', true and [2] are refused), an integer from 1 to
   * `maxStepsPerCall` (about a second of work; a RangeError naming the cap beyond it).
   */
  step(n?: number): { step: number; loss: number };
  /**
   * Runs `steps` steps in chunks, yielding to the event loop between them, and stops on `signal`.
   * The trainer keeps the steps taken before an abort. Same losses as step() in the same chunks.
   */
  train(options: TrainOptions): Promise<{ step: number; loss: number }>;
  /** On held-out data; for copy and induction, accuracy counts only the predictable positions. */
  evaluate(): { loss: number; bitsPerToken: number; accuracy: number };
  headScores(): { layer: number; head: number; previousToken: number; induction: number; firstToken: number; diagonal: number; duplicateToken: number }[];
  /** weights: (layers, H, N, N). */
  attention(tokens: ArrayLike<number>): { weights: Float32Array; layers: number; heads: number; n: number };
  /**
   * One layer's attention as the inference core runs it: `attn.forward({ ...spec, x, weights })` gives
   * that layer's maps of `attention(tokens)`. x: (N, D), the layer's attention input (after its LayerNorm).
   * RangeError (field 'layer') for block 'deepseek', whose MLA the inference core does not compute.
   */
  layer(tokens: ArrayLike<number>, layer: number): { spec: Omit<ForwardSpec, 'x'> & { seqLen: number; causal: true }; x: Float32Array; weights: MhaWeights | MlaWeights };
  /** The probabilities of the token after the sequence: (vocabSize). */
  nextTokenProbs(tokens: ArrayLike<number>): Float32Array;
  /** The model as a `.safetensors` file (docs/api.md "The model file"): weights, AdamW moments, config. */
  exportModel(): Uint8Array;
  /**
   * The model as a Hugging Face checkpoint (docs/api.md): the text of its `config.json` and its `model.safetensors`,
   * and for a 'chars' model the text of its `tokenizer.json` (its characters, numbered as the task numbers them).
   * Block 'llama' as LlamaForCausalLM, 'deepseek' as DeepseekV2ForCausalLM (dense), the GPT-style block's MHA as
   * GPT2LMHeadModel and its MQA as GPTBigCodeForCausalLM. RangeError naming the field (model.variant, model.rope,
   * model.layerNorm, model.activation, model.dHead) where no architecture computes the model.
   */
  exportCheckpoint(): { config: string; safetensors: Uint8Array; tokenizer?: string };
  /** The model_type exportCheckpoint() writes: 'llama', 'deepseek_v2', 'gpt2', 'gpt_bigcode', or '' where it refuses. */
  readonly checkpointType: string;
  dispose(): void;
}

/** Input of {@link Attention.recommend}: a budget (or dModel + nLayers), a context and a target. */
export interface RecommendRequest {
  /** Total parameters, e.g. 8e9. Or give dModel and nLayers instead. */
  paramBudget?: number;
  dModel?: number;
  nLayers?: number;
  /** Target context length in tokens. */
  seqLen: number;
  /** Sequences cached at once. Default 1. */
  batch?: number;
  /** A deployment target id from deploymentTargets(), or give memoryBytes; neither: no memory check. */
  target?: 'phone' | 'laptop-16gb' | 'gpu-24gb' | 'gpu-80gb';
  memoryBytes?: number;
  /** KV-cache bytes per element: 4 fp32, 2 bf16/fp16 (default), 1 fp8, 0.5 int4. */
  bytesPerElement?: number;
  /** Weight bytes per parameter. Default 2. */
  weightBytesPerParam?: number;
  /** Default 'balanced'. */
  priority?: 'quality' | 'balanced' | 'memory';
  /** Force a variant: the configurator then prices it and warns instead of choosing. */
  variant?: Variant;
  /** Allow MLA under 1B parameters (when the point is to benchmark it). */
  benchmark?: boolean;
}

export interface Recommendation {
  variant: Variant;
  dModel: number;
  nLayers: number;
  nHeads: number;
  /** 0 for MLA (its latent replaces K/V heads). */
  nKvHeads: number;
  dHead: number;
  latentRank?: number;
  ropeDim?: number;
  /** Estimated total parameters of the shape (the budget itself when one was given). */
  params: number;
  kvBytesPerTokenPerLayer: number;
  kvBytesPerToken: number;
  /** At seqLen tokens for batch sequences. */
  kvBytesTotal: number;
  weightBytes: number;
  memoryBytes: number | null;
  /** Whether weights + cache fit memoryBytes; null without a target. */
  fits: boolean | null;
  marginBytes: number | null;
  /** One sentence, by the KV cache. */
  justification: string;
  reasons: string[];
  warnings: string[];
  /** Ids of the rules that fired, in order (docs/configurator.md). */
  rules: string[];
  init: string;
  bias: string;
  /** The induction-pattern check the built model should pass. */
  check: string;
  /** The variants priced, from the largest cache to the smallest. */
  alternatives: { variant: Variant; nKvHeads: number; latentRank?: number; ropeDim?: number; kvBytesTotal: number; fits: boolean | null }[];
  /**
   * The same sentences as messages, for a page that writes them in its own language: `justification`,
   * `init`, `bias` and `check` are each one message, `reasons` and `warnings` one per sentence, in order.
   */
  messages: {
    justification: Message; reasons: Message[]; warnings: Message[]; init: Message; bias: Message; check: Message;
  };
}

/**
 * A sentence of the core as an id (docs/configurator.md lists them with their English) and its values:
 * a plain count is a number; other values say what they are, so that a language can write them.
 */
export interface Message {
  id: string;
  params: Record<string, MessageValue>;
}
export type MessageValue =
  | number                       // a count: heads, layers, tokens
  | { parameters: number }       // a parameter count (8e9)
  | { bytes: number }            // bytes, written in binary units (GiB)
  | { decimalBytes: number }     // bytes as devices are sold (GB = 1e9 B)
  | { ratio: number }            // a factor (4 = "4x")
  | { decimal: number }          // a number with decimals
  | { text: string }             // the core's data, shown as it is (a citation, the ladder of variants)
  | Message;                     // a part that is a message itself

export interface DeploymentTarget {
  id: string;
  /** Its name in English. */
  name: string;
  memoryBytes: number;
  /** Its name as a message (`target-<id>`, with its memory), for a page in another language. */
  message: Message;
}

/** Loads the core (memoised per build) and returns its API. */
export function loadAttention(options?: LoadOptions): Promise<Attention>;
