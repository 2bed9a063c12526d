// params.js — the page's words in English: the parameter view (views/params.js, parts/params-rows.js,
// parts/params-same-cost.js). Imported by the code that speaks them, so they come with its chunk; importing
// adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the parameter view ----
  'params.current': 'current',
  'params.baseline': 'baseline',
  'params.noBaseline': 'No MHA baseline at this shape: the comparisons need a valid MHA row.',
  'params.shapeNote': 'Current shape: {dims}, G = {G} (GQA), r = {r} and dr = {dr} (MLA); cache elements stored at {dtype}.',
  'params.col.variant': 'Variant',
  'params.col.weights': 'Attention weights',
  'params.col.weightsNote': 'one block, no biases',
  'params.col.vsMha': 'vs MHA',
  'params.col.cache': 'KV cache',
  'params.col.cacheNote': 'elements / token / layer',
  'params.col.bytes': 'bytes / token / layer',
  'params.col.bytesAt': 'at {dtype} ({bpe} B / element)',
  'params.col.cacheVsMha': 'cache vs MHA',
  'params.tableLabel': 'Parameters and KV cache per variant',
  'params.foot': 'Symbols: D = dModel, H = query heads, G = K/V heads, dh = head width, r = MLA latent rank, dr = MLA decoupled RoPE key width. KV cache per DeepSeek-V2 (Table 1); the MHA baseline is the paper\'s 2 · H · dh: every query head caches its own key and value. GQA with G = H is MHA, with G = 1 it is MQA.',
  'params.sameCost.title': 'More heads, same cost: the total parameters stay the same',
  'params.sameCost.heads': { one: 'MHA with H = {H} head of width dh = D/H = {dh}: {weights} weights', other: 'MHA with H = {H} heads of width dh = D/H = {dh}: {weights} weights' },
  'params.sameCost.one': 'one head of width D = {D}: {weights} weights',
  'params.sameCost.why': 'Q, K, V and W_o are D × D matrices either way: splitting them into H heads of width D/H changes what each head sees, not how many weights there are.',
  'params.sameCost.savings': 'What the variants save against that (the table above): {list}. MQA and GQA share K and V across query heads; MLA stores a low-rank latent.',
});
