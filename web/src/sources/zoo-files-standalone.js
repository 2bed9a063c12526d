// zoo-files-standalone.js — zoo-files.js for standalone.html (one file, opened from file://): the
// manifest and every model are inlined by Vite (`?inline`: data: URLs), so the page carries the
// zoo and still fetches nothing from the network.
import manifest from '../../zoo/manifest.json';
import mha from '../../zoo/mha.safetensors?inline';
import gqa4 from '../../zoo/gqa4.safetensors?inline';
import gqa2 from '../../zoo/gqa2.safetensors?inline';
import mqa from '../../zoo/mqa.safetensors?inline';
import mla32 from '../../zoo/mla32.safetensors?inline';
import mla16 from '../../zoo/mla16.safetensors?inline';
import pairsH1 from '../../zoo/pairs-h1.safetensors?inline';
import pairsH2 from '../../zoo/pairs-h2.safetensors?inline';
import induction from '../../zoo/induction.safetensors?inline';

const FILES = { 'mha.safetensors': mha, 'gqa4.safetensors': gqa4, 'gqa2.safetensors': gqa2, 'mqa.safetensors': mqa,
  'mla32.safetensors': mla32, 'mla16.safetensors': mla16, 'pairs-h1.safetensors': pairsH1, 'pairs-h2.safetensors': pairsH2,
  'induction.safetensors': induction };

export const zooManifest = async () => structuredClone(manifest);

export async function zooBytes(file) {
  if (!Object.hasOwn(FILES, file)) throw new Error(`standalone.html does not carry the trained model file ${file}`);
  return new Uint8Array(await (await fetch(FILES[file])).arrayBuffer());
}
