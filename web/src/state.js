// state.js — the playground's whole state: one plain object, its defaults, and its URL form.
// Renderers only read it; changes go through the element's setState(patch), which re-renders and
// (with sync-url) writes the URL, so a permalink reproduces the view exactly.

/** @typedef {'mha'|'mqa'|'gqa'|'mla'} Variant */

export const VARIANTS = ['mha', 'mqa', 'gqa', 'mla'];
/** Where the maps' weights come from: the lesson's seeded random block, or a zoo model trained on Shakespeare. */
export const SOURCES = ['seeded', 'trained'];
/** Lab 1's tasks (labs/tasks.js HEADS_TASKS). */
export const LAB_HEADS_TASKS = ['pairs', 'copy'];
export const DTYPES = { fp32: 4, bf16: 2, fp8: 1, int4: 0.5 };
/** What the page calls each data type (the 2-byte one is fp16 or bf16: the lesson says fp16). */
export const DTYPE_LABELS = { fp32: 'fp32', bf16: 'fp16 / bf16', fp8: 'fp8', int4: 'int4' };
export const dtypeLabel = (k) => DTYPE_LABELS[k] ?? String(k);

export const DEFAULTS = Object.freeze({
  view: 'all',
  lang: '',          // the page's language (an id of i18n/index.js LANGS); '' = the browser's when a catalog has it
  text: 'the cat sat on the mat',
  variant: 'mha',    // the lesson's example: MHA with 4 heads
  dModel: 64,
  nHeads: 4,
  nKvHeads: 2,
  dHead: 0,          // 0: dModel / nHeads
  latentRank: 16,    // MLA
  ropeDim: 4,        // MLA decoupled RoPE width
  rope: false,       // MHA/MQA/GQA: RoPE inside attention (else sinusoidal positions are added)
  causal: true,
  seed: 0,
  source: 'seeded',  // the maps' weights (SOURCES): 'trained' draws the zoo model of the variant (sources/zoo.js)
  compare: 'mha,gqa,mla', // variants side by side in compare mode
  sel: '',           // selected query row: '' or a token index
  layer: 0,          // the layer whose maps are drawn (sources with several layers)
  model: '',         // a checkpoint opened at start (views/model.js): a folder served beside the page (relative URL) or hf:<org>/<name>[@<revision>]
  hub: '',           // the Hub's base URL for hf: models ('' = the Hugging Face Hub; a mirror's URL)
  step: '',          // the walkthrough's step ('' = the first): an id of lesson/stages.js
  nLayers: 12,       // for the KV-cache chart of the current shape
  dtype: 'bf16',
  batch: 1,
  presets: 'llama-3-70b,deepseek-v3,gpt2-small',
  kvVariants: 'mha,mqa,gqa,mla', // the KV-cache chart's "this shape" series ('' hides them: real models only)
  // The configurator's form (views/configurator.js): what it asks the core's recommend for.
  cfgBudget: 8e9,    // total parameters
  cfgDModel: 0,      // cfgDModel / cfgLayers > 0: give dModel and layers instead of the budget
  cfgLayers: 0,
  cfgSeqLen: 8192,
  cfgBatch: 1,
  cfgTarget: 'gpu-24gb', // a deploymentTargets() id, 'custom' (cfgMemoryGB) or 'none'
  cfgMemoryGB: 40,
  cfgDtype: 'bf16',  // KV-cache data type
  cfgPriority: 'balanced',
  cfgVariant: '',    // '' = let the configurator choose
  cfgBenchmark: false,
  labMSteps: 400,    // lab 2 (views/lab-mqa.js): optimiser steps per variant
  labRSteps: 200,    // lab 3 (views/lab-rank.js): optimiser steps per model
  labRRanks: '4,8,16,32', // lab 3: MLA latent ranks
  labHSteps: 300,    // lab 1 (views/lab-heads.js): optimiser steps per model
  labHTask: 'pairs', // lab 1: its task, an id of labs/tasks.js HEADS_TASKS ('pairs' | 'copy')
  labISteps: 600,    // lab 4 (views/lab-induction.js): optimiser steps
});

const INTS = ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'seed', 'nLayers', 'batch', 'layer'];
const NUMBERS = ['cfgBudget', 'cfgDModel', 'cfgLayers', 'cfgSeqLen', 'cfgBatch', 'cfgMemoryGB'];
const BOOLS = ['rope', 'causal', 'cfgBenchmark'];

/**
 * The URL format's version. Version 1 links (no `v` key, made before the page opened on the lesson's
 * example) left out the keys that equalled the version 1 defaults below, so they are read with those.
 */
export const URL_VERSION = 2;
const V1_DEFAULTS = Object.freeze({ variant: 'gqa', nHeads: 8, nKvHeads: 2 });
const V2_KEYS = ['step', 'model', 'hub'];                                  // keys a version 1 link cannot have
const V2_VIEWS = ['walkthrough', 'pytorch', 'heads-table']; // views a version 1 link cannot name

/** Whether URL parameters are a version 1 link (see URL_VERSION). */
function isVersion1(params) {
  if (params.has('v') || V2_KEYS.some((k) => params.has(k)) || V2_VIEWS.includes(params.get('view'))) return false;
  return [...params.keys()].some((k) => k !== 'view' && k !== 'lang' && k in DEFAULTS);  // lang: newer than both
}

/**
 * Reads a state from URL parameters; unknown or malformed values fall back to the defaults
 * (semantic checks are the core's job: it explains invalid combinations next to the controls).
 * @param {URLSearchParams} params
 * @param {{ views?: string[] }} [options] the view ids that exist (registry.js)
 */
export function fromParams(params, { views = null } = {}) {
  const s = { ...DEFAULTS };
  if (isVersion1(params)) Object.assign(s, V1_DEFAULTS);
  for (const [key, value] of params) {
    if (!(key in DEFAULTS)) continue;
    if (INTS.includes(key)) {
      const n = Number(value);
      if (Number.isInteger(n)) s[key] = n;
    } else if (NUMBERS.includes(key)) {
      const n = Number(value);
      if (value !== '' && Number.isFinite(n)) s[key] = n;
    } else if (BOOLS.includes(key)) {
      s[key] = value === '1' || value === 'true';
    } else if (key === 'view') {
      if (!views || views.includes(value)) s.view = value;  // views: registry.js VIEW_IDS
    } else if (key === 'variant') {
      if (VARIANTS.includes(value)) s.variant = value;
    } else if (key === 'source') {
      if (SOURCES.includes(value)) s.source = value;
    } else if (key === 'labHTask') {
      if (LAB_HEADS_TASKS.includes(value)) s.labHTask = value;
    } else if (key === 'dtype' || key === 'cfgDtype') {
      if (Object.hasOwn(DTYPES, value)) s[key] = value;
    } else {
      s[key] = value;
    }
  }
  return s;
}

/** The parameters that differ from the defaults (short permalinks). */
export function toParams(state) {
  const p = new URLSearchParams();
  for (const key of Object.keys(DEFAULTS)) {
    const v = state[key];
    if (v === DEFAULTS[key]) continue;
    p.set(key, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  }
  if ([...p.keys()].some((k) => k !== 'view' && k !== 'lang')) p.set('v', String(URL_VERSION));  // see fromParams
  return p;
}

/** The core's spec for the current shape (without x / seqLen), for forward, sessions and accounting. */
/** What a shape depends on, as a cache key: shapeSpec without the seed (which changes only the weights). */
export function shapeKeyOf(state, variant = state.variant) {
  const { seed, ...geometry } = shapeSpec(state, variant);
  return JSON.stringify(geometry);
}

export function shapeSpec(state, variant = state.variant) {
  const spec = { variant, dModel: state.dModel, nHeads: state.nHeads, seed: state.seed };
  if (variant === 'gqa') spec.nKvHeads = state.nKvHeads;
  if (state.dHead) spec.dHead = state.dHead;
  if (variant === 'mla') {
    spec.latentRank = state.latentRank;
    spec.ropeDim = state.ropeDim;
  } else if (state.rope) {
    spec.rope = true;
  }
  return spec;
}
