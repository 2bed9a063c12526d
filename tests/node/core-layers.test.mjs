// The core's include graph runs downward only: each file of core/ belongs to a layer
// (README "Layout"), and may include files of its own layer or of layers below it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Lowest first. A file's concept is its name without extension (train/* is one concept).
const LAYERS = [
  ['tensor', 'simd', 'half', 'errors', 'fields', 'overflow', 'message', 'safetensors_header', 'stage_record'],
  ['kernels', 'attention', 'rope', 'rope_scaling'],
  ['shape', 'weights', 'accounting', 'cost'],
  ['spec'],
  ['block_steps', 'layer_cache'],
  ['grouped_block', 'latent_block'],
  ['forward'],
  ['layer', 'kv_cache', 'intermediates', 'decode_probe', 'head_roles'],
  ['train', 'configurator', 'configurator_words'],
  ['pretrained'],
];

function layerOf(concept) {
  const i = LAYERS.findIndex((names) => names.includes(concept));
  return i;
}

function conceptOf(file) {
  const rel = path.relative(REPO, file);
  if (rel.includes(`${path.sep}train${path.sep}`) || rel.startsWith('attn/train/') || rel.startsWith('train/')) return 'train';
  if (rel.includes(`${path.sep}pretrained${path.sep}`)) return 'pretrained';
  return path.basename(file).replace(/\.(hpp|cpp)$/, '');
}

function listFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : /\.(hpp|cpp)$/.test(e.name) ? [p] : [];
  });
}

const files = [...listFiles(path.join(REPO, 'core/src')), ...listFiles(path.join(REPO, 'core/include/attn'))];

test('every core file belongs to a layer', () => {
  const unknown = files.filter((f) => layerOf(conceptOf(f)) < 0).map((f) => path.relative(REPO, f));
  assert.deepEqual(unknown, [], 'add new files to LAYERS here and to README "Layout"');
});

// The includes of `file` (its text) that reach a higher layer.
function upwardIncludes(file, text) {
  const from = conceptOf(file);
  const found = [];
  for (const m of text.matchAll(/^#include "attn\/([\w/]+)\.hpp"/gm)) {
    const to = m[1].startsWith('train/') ? 'train' : m[1].startsWith('pretrained/') ? 'pretrained' : m[1];
    if (layerOf(to) > layerOf(from)) found.push(`${path.relative(REPO, file)} includes attn/${m[1]}.hpp`);
  }
  return found;
}

test('no core include runs upward', () => {
  const upward = files.flatMap((f) => upwardIncludes(f, fs.readFileSync(f, 'utf8')));
  assert.deepEqual(upward, []);
});

test('the check reports an upward include and accepts a downward one', () => {
  const weights = path.join(REPO, 'core/src/weights.cpp');
  assert.deepEqual(upwardIncludes(weights, '#include "attn/spec.hpp"\n#include "attn/shape.hpp"\n'),
    ['core/src/weights.cpp includes attn/spec.hpp']);
  const layers = path.join(REPO, 'core/src/train/layers.cpp');
  assert.deepEqual(upwardIncludes(layers, '#include "attn/forward.hpp"\n#include "attn/train/model.hpp"\n'), []);
  const fwd = path.join(REPO, 'core/src/forward.cpp');
  assert.deepEqual(upwardIncludes(fwd, '#include "attn/layer.hpp"\n'), ['core/src/forward.cpp includes attn/layer.hpp']);
});
