// lab-rank.js — the page's words in English: Lab 3, how small the MLA latent can be (views/lab-rank.js,
// its table and chart labs/rank-results.js, its verdict summariseRank in labs/verdicts.js). Imported by
// the code that speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the form and the run ----
  'labRank.what': { one: 'A one-layer transformer (D = {D}, H = {H}, dh = {dh}, fp32 cache; MHA in the Llama block, MLA in DeepSeek-V2’s: RMSNorm, RoPE, SwiGLU MLP) learns to predict the next character of {kib} KiB of Shakespeare. '
    + 'MLA caches a rank-r latent plus a decoupled RoPE key of width dr = {dr}: (r + dr) · 4 bytes per token per layer, against MHA\'s 2 · H · dh · 4 = {mhaBytes} bytes. '
    + 'Its cache is below 1/8 of MHA\'s when r + dr < {limit}. Each model trains with {count} seed; the curves are the mean of its seeds.',
  other: 'A one-layer transformer (D = {D}, H = {H}, dh = {dh}, fp32 cache; MHA in the Llama block, MLA in DeepSeek-V2’s: RMSNorm, RoPE, SwiGLU MLP) learns to predict the next character of {kib} KiB of Shakespeare. '
    + 'MLA caches a rank-r latent plus a decoupled RoPE key of width dr = {dr}: (r + dr) · 4 bytes per token per layer, against MHA\'s 2 · H · dh · 4 = {mhaBytes} bytes. '
    + 'Its cache is below 1/8 of MHA\'s when r + dr < {limit}. Each model trains with {count} seeds; the curves are the mean of its seeds.' },
  'labRank.steps': 'Steps per model',
  'labRank.example': 'the corpus’s first words, “{text}”, a token per character',
  'labRank.ranks': 'MLA latent ranks r',
  'labRank.stepsHint': 'seqLen {seqLen}, batch {batch}',
  'labRank.ranksHint': 'comma-separated, up to {most}',
  'labRank.start': 'Train MHA and MLA',
  'labRank.again': 'Train again',
  'labRank.idle': { one: 'Not trained yet: {models} models × {seeds} seeds × {count} step (about {secs} s in a laptop browser).',
    other: 'Not trained yet: {models} models × {seeds} seeds × {count} steps (about {secs} s in a laptop browser).' },
  'labRank.progress': 'Training {name} ({i} of {n}): step {step} / {steps}, training {bits} bits/char · {secs} s',
  'labRank.done': { one: 'Done: {done} of {total} models ({models} × {seeds} seeds) × {count} step in {secs} s.',
    other: 'Done: {done} of {total} models ({models} × {seeds} seeds) × {count} steps in {secs} s.' },
  'labRank.stopped': { one: 'Stopped: {done} of {total} models ({models} × {seeds} seeds) × {count} step in {secs} s.',
    other: 'Stopped: {done} of {total} models ({models} × {seeds} seeds) × {count} steps in {secs} s.' },
  'labRank.curveTrain': '{model} train',
  'labRank.curveVal': '{model} val',
  'labRank.chartY': 'bits / char',
  // ---- the results (labs/rank-results.js) ----
  'labRank.results': 'Results',
  'labRank.col.model': 'Model',
  'labRank.col.cache': 'KV cache',
  'labRank.col.cacheNote': 'bytes / token / layer',
  'labRank.col.vsMha': 'vs MHA',
  'labRank.col.bits': 'Validation',
  'labRank.col.bitsNote': { one: 'bits / char, mean ± sd of {count} seed', other: 'bits / char, mean ± sd of {count} seeds' },
  'labRank.col.diffNote': 'bits / char, ± standard error',
  'labRank.col.small': 'cache < 1/8 of MHA?',
  'labRank.col.within': 'within 1 bit?',
  'labRank.yes': 'yes',
  'labRank.no': 'no',
  'labRank.unsettled': 'not settled',
  'labRank.scatter': 'Validation bits per character against KV-cache bytes per token',
  'labRank.scatterX': 'KV cache, bytes / token / layer (log)',
  'labRank.scatterY': 'validation bits / char (mean)',
  'labRank.mhaPlusBit': 'MHA + 1 bit',
  'labRank.marker': '← cache < 1/8 of MHA',
  // ---- the verdict (labs/verdicts.js summariseRank) ----
  'labRank.numbers': { one: 'validation bits/char (mean ± standard deviation over {count} seed): MHA {mha}, {ranks}',
    other: 'validation bits/char (mean ± standard deviation over {count} seeds): MHA {mha}, {ranks}' },
  'labRank.fewSteps': { one: 'Only {count} step per model: too few for a verdict on how small the latent can be (the losses are still falling; train at least {enough}). The numbers so far: {numbers}.',
    other: 'Only {count} steps per model: too few for a verdict on how small the latent can be (the losses are still falling; train at least {enough}). The numbers so far: {numbers}.' },
  'labRank.noneSmall': 'None of the ranks tried has a cache below 1/8 of MHA\'s (needs r + dr < {limit}, i.e. r ≤ {max}): try smaller ranks.',
  'labRank.smallest': 'The smallest r with cache < 1/8 of MHA that stays within 1 bit/char beyond its spread: {found}.',
  'labRank.found': 'r = {rank} ({diff} bits/char against MHA, cache {bytes} vs {mhaBytes} bytes)',
  'labRank.noneWithin': 'No rank with cache < 1/8 of MHA stays within 1 bit/char beyond its spread.',
  'labRank.worse': 'More than 1 bit/char worse beyond the spread: {list}.',
  'labRank.unsure': { one: 'Not settled by {count} seed (within {k} standard errors of the 1-bit line): {list}.',
    other: 'Not settled by {count} seeds (within {k} standard errors of the 1-bit line): {list}.' },
  'labRank.verdict': { one: '{text} After {steps} steps per model, {count} seed each; the best MLA on average is r = {rank} ({diff} bits/char against MHA) with a cache {ratio}× smaller. '
    + 'In numbers: {numbers}. Short runs: all models are still far from converged, so these gaps measure early learning speed as much as capacity.',
  other: '{text} After {steps} steps per model, {count} seeds each; the best MLA on average is r = {rank} ({diff} bits/char against MHA) with a cache {ratio}× smaller. '
    + 'In numbers: {numbers}. Short runs: all models are still far from converged, so these gaps measure early learning speed as much as capacity.' },
});
