// pretrained.js — loaded by pretrained.html (tests/e2e/pretrained.test.mjs): the library of dist/lib
// opens a checkpoint passed in by the test (as Blobs, the way a file picker hands files over) and its
// tokenizer, under the page's strict CSP.
import { loadAttention } from '../lib/attention.mjs';

const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

window.runPretrained = async ({ config, weights, tokenizer, tokenizerConfig, text }) => {
  const attn = await loadAttention({ training: false });
  const model = await attn.loadPretrained({ config, weights: weights.map((w) => new Blob([bytes(w)])) });
  const tok = await attn.loadTokenizer(tokenizer, tokenizerConfig);
  const { ids, tokens } = tok.encode(text);
  const out = model.forward(ids, { attentions: true });
  const session = model.createSession({ maxLen: ids.length });
  let last;
  for (const id of ids) last = session.append([id]).logits;
  const result = { ids: [...ids], tokens, info: model.info, logits: [...out.logits], maps: out.attentions.map((m) => [...m]),
    lastDecoded: [...last], cacheBytes: session.cacheBytes, simd: attn.info.simd };
  model.dispose();
  return result;
};
window.pretrainedReady = true;
