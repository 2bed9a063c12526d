// zoo-files.js — the bundled trained models ("the zoo", docs/zoo.md), fetched only when a view asks
// for trained weights. scripts/build.mjs copies web/zoo/ to dist/zoo/; this module is a lazy chunk in
// dist/assets/, so the zoo is `../zoo/` from it under any sub-path. standalone.html has its own
// twin with the files inlined (zoo-files-standalone.js, the 'attn-zoo-files' alias).
const ZOO_DIR = '../zoo/';  // not a literal in new URL(): Vite must not bundle the files themselves

async function get(name) {
  const url = new URL(ZOO_DIR + name, import.meta.url);
  const r = await fetch(url);
  if (!r.ok) throw new Error(`the trained model file ${url} could not be fetched (HTTP ${r.status})`);
  return r;
}

/** The zoo's manifest.json (scripts/zoo.mjs writes it). */
export const zooManifest = async () => (await get('manifest.json')).json();

/** A lab model's .safetensors bytes (the trainer's format). @param {string} file  its manifest `file` */
export const zooBytes = async (file) => new Uint8Array(await (await get(file)).arrayBuffer());

/**
 * A zoo model's checkpoint folder as a drop gives it: one File per manifest `files` entry
 * (config.json, model.safetensors, tokenizer.json), named as in the folder.
 * @param {{ files: { file: string }[] }} model  a manifest model
 */
export const zooFiles = (model) => Promise.all(model.files.map(async ({ file }) =>
  new File([await (await get(file)).blob()], file.split('/').pop())));
