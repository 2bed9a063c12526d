// zoo-files-standalone.js — zoo-files.js for standalone.html (one file, opened from file://): the
// manifest and every file are inlined by Vite (`?inline`: data: URLs; `?raw`: the JSON files' text),
// so the page carries the zoo and still fetches nothing from the network. The six folders share one
// tokenizer.json, carried once.
import manifest from '../../zoo/manifest.json';
import tokenizer from '../../zoo/mha/tokenizer.json?raw';
import mhaConfig from '../../zoo/mha/config.json?raw';
import gqa4Config from '../../zoo/gqa4/config.json?raw';
import gqa2Config from '../../zoo/gqa2/config.json?raw';
import mqaConfig from '../../zoo/mqa/config.json?raw';
import mla32Config from '../../zoo/mla32/config.json?raw';
import mla16Config from '../../zoo/mla16/config.json?raw';
import mha from '../../zoo/mha/model.safetensors?inline';
import gqa4 from '../../zoo/gqa4/model.safetensors?inline';
import gqa2 from '../../zoo/gqa2/model.safetensors?inline';
import mqa from '../../zoo/mqa/model.safetensors?inline';
import mla32 from '../../zoo/mla32/model.safetensors?inline';
import mla16 from '../../zoo/mla16/model.safetensors?inline';
import pairsH1 from '../../zoo/pairs-h1.safetensors?inline';
import pairsH2 from '../../zoo/pairs-h2.safetensors?inline';
import induction from '../../zoo/induction.safetensors?inline';

const WEIGHTS = { mha, gqa4, gqa2, mqa, mla32, mla16 };
const CONFIGS = { mha: mhaConfig, gqa4: gqa4Config, gqa2: gqa2Config, mqa: mqaConfig, mla32: mla32Config, mla16: mla16Config };
const LAB_FILES = { 'pairs-h1.safetensors': pairsH1, 'pairs-h2.safetensors': pairsH2, 'induction.safetensors': induction };

const blobOf = async (dataUrl) => (await fetch(dataUrl)).blob();

export const zooManifest = async () => structuredClone(manifest);

export async function zooBytes(file) {
  if (!Object.hasOwn(LAB_FILES, file)) throw new Error(`standalone.html does not carry the trained model file ${file}`);
  return new Uint8Array(await (await blobOf(LAB_FILES[file])).arrayBuffer());
}

/** A zoo model's checkpoint folder as Files (zoo-files.js's zooFiles). */
export async function zooFiles(model) {
  if (!Object.hasOwn(WEIGHTS, model.id)) throw new Error(`standalone.html does not carry the zoo model ${model.id}`);
  return [new File([CONFIGS[model.id]], 'config.json'), new File([await blobOf(WEIGHTS[model.id])], 'model.safetensors'),
    new File([tokenizer], 'tokenizer.json')];
}
