// kv.js — the page's words in English: the KV-cache chart (views/kv-chart.js, parts/kv-*.js; the
// configurator's form borrows a few). Imported by the code that speaks them, so they come with its chunk;
// importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the KV-cache chart ----
  'kv.settings': 'KV-cache chart settings',
  'kv.dtypeOption': '{dtype} ({bytes} B / element)',
  'kv.realModels': 'Real models (dashed):',
  'kv.realModelsLegend': 'Draw the KV cache of these published configurations',
  'kv.none': 'none',
  'kv.presetShape': { one: '{layers} layers, {heads} heads, {count} KV head of {dh}', other: '{layers} layers, {heads} heads, {count} KV heads of {dh}' },
  'kv.presetMla': '{layers} layers, r + dr = {r} + {dr}',
  'kv.chartBusy': 'KV-cache bytes against sequence length (log scales): being computed',
  'kv.chartLabel': 'KV-cache bytes against sequence length (log scales) for {series}; the table of values below lists them.',
  'kv.tableOfValues': 'Table of values',
  'kv.series': 'Series',
  'kv.tokensCol': '{n} tokens',
  'kv.thisShape': '{variant} · this shape',
  'kv.thisShapeCurrent': '{variant} · this shape (current)',
  'kv.notDrawn': '{label} not drawn: {reason}',
  'kv.invalidShape': '{variant} invalid shape',
  'kv.perTokenOf': { one: '{variant} {filled} = {count} element', other: '{variant} {filled} = {count} elements' },
  'kv.openedModel': 'Opened: {name}',
  'kv.describeBytes': '{binary} ({decimal}) · {elements} elements',
  'kv.captionFormula': 'Bytes = elements per token × sequence length × batch × bytes per element, with elements per token (DeepSeek-V2 report, Table 1) MHA 2·H·dh·l, GQA 2·G·dh·l, MQA 2·dh·l, MLA (r + dr)·l. MHA baseline: the paper\'s 2·H·dh per layer (every one of the H query heads caches its own key and value).',
  'kv.captionShape': { one: 'This shape ({dims}), per token: {perToken}; × {count} sequence × {bpe} B ({dtype}).', other: 'This shape ({dims}), per token: {perToken}; × {count} sequences × {bpe} B ({dtype}).' },
  'kv.captionAt': 'At {n} tokens the current {variant} cache holds {bytes}.',
  'kv.captionLines': 'Reference lines (the core\'s deployment targets): {lines}, with GB = 10⁹ B; the axis ticks are binary units (1 GiB = 2³⁰ B ≈ 1.074 GB).',
  'kv.axisX': 'sequence length (tokens; K = 1,024)',
  'kv.axisY': 'KV cache, whole model (KiB = 1,024 B)',
  'kv.axisYShort': 'KV cache, whole model',
  'kv.legendLength': 'length',
  'kv.tokensAt': { one: '{n} token ({short})', other: '{n} tokens ({short})' },
});
