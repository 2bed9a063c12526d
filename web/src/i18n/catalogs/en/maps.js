// maps.js — the page's words in English: the attention maps (views/heatmap.js, render/heatmap.js,
// render/query-rows.js, render/save-control.js, the group and head labels of render/geometry.js) and
// the seeded source's (sources/seeded.js). The heatmap is the main bundle's view, so these come with it.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the heatmap view ----
  'maps.hint': 'Hover or tap a cell, or focus a map and use the arrow keys; Enter or a click selects the query row.',
  'maps.loading': 'Loading the WebAssembly core…',
  'maps.weight': 'attention weight',
  'maps.cell': '{head} · query “{q}” ({i}) → key “{k}” ({j}): {value}',
  'maps.masked': 'masked (a later token)',
  'maps.saveAll': 'Save all heads',
  'maps.layer': 'Layer',
  'maps.layerOption': 'layer {layer}',
  'maps.tokens': { one: '{count} token', other: '{count} tokens' },
  'maps.queryHeads': { one: '{count} query head', other: '{count} query heads' },
  'maps.layerOf': 'layer {layer} of {layers}',
  'maps.causal': 'causal',
  'maps.bidirectional': 'bidirectional',
  'maps.computed': 'computed in {ms} ms by the {build} core.',
  'maps.axes': 'Rows are queries, columns keys.',
  'maps.axesMasked': 'Rows are queries, columns keys (grey: masked).',
  'maps.typeSentence': 'Type a sentence to see its attention maps.',
  'maps.cannot': 'Cannot compute:',
  // ---- one map (render/heatmap.js) and its Save control ----
  'maps.canvas': '{title}: {rows} rows by {cols} columns{labels}.',
  'maps.canvasKeys': 'Arrow keys read the cells.',
  'maps.canvasKeysSelect': 'Arrow keys read the cells, Enter selects the row.',
  'maps.save': 'Save',
  'maps.saveFigure': 'Save figure',
  'maps.saveAs': '{text}, as a PNG or SVG file',
  'maps.saveWhatAs': '{text}: {what}, as a PNG or SVG file',
  // ---- the selected query in every head (render/query-rows.js) ----
  'maps.queryTitle': 'Query “{token}” ({row}) in every head',
  'maps.queryCell': '{head}: query “{q}” ({i}) → key “{k}” ({j}): {value}',
  'maps.headColumn': 'head',
  'maps.asNumbers': 'The weights as numbers',
  'maps.selectedLabel': 'The selected query in every head',
  'maps.clear': 'Clear selection',
  // ---- groups and heads (render/geometry.js) ----
  'maps.groupLatent': 'all {heads} heads read the shared latent c (r = {r})',
  'maps.group': 'K/V head {g}',
  'maps.groupHeads': 'K/V head {g} · query heads {first}–{last}',
  'maps.head': 'head {h}',
  'maps.headShared': 'head {h} → K/V {g}',
  // ---- the seeded source ----
  'source.seeded': 'seeded random weights',
  'source.truncated': 'Your sentence has {count} tokens: only the first {max} are used ({left} left out).',
  // ---- the trained source (a zoo model, sources/zoo.js) ----
  'source.zoo': 'trained on Shakespeare (word-level tokens)',
  'maps.seeTrained': 'See heads trained on Shakespeare',
  // the list of the lesson's head types under the maps (its words: catalogs/en/head-types.js, with parts/head-types.js)
  'maps.headTypes': 'Head types the lesson names, and where on this page to see a real one',
  // ---- a trained model's head scores (parts/head-scores.js) ----
  'scores.summary': { one: 'The head\'s measured scores', other: 'Every head\'s measured scores ({count} heads)' },
  'scores.caption': 'Mean attention weight on one key per query, measured by the core on held-out text (previous token: the key just before; self: the query\'s own position; first token: position 0) and, for induction, on repeated stretches of ordinary tokens (the key after the earlier copy). A head spreading its weight evenly over {n} positions scores about {uniform} on the first three. Bold: the highest of each column.',
  'scores.layer': 'layer',
  'scores.head': 'head',
  'scores.previous': 'previous token',
  'scores.self': 'self',
  'scores.first': 'first token',
  'scores.induction': 'induction',
  'scores.showLayer': 'show layer {layer}',
});
