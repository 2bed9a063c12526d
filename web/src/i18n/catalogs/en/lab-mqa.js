// lab-mqa.js — the page's words in English: Lab 2, what MQA saves and costs (views/lab-mqa.js, its
// budget table labs/mqa-budget.js, its verdict summariseMqa in labs/verdicts.js). Imported by the code
// that speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the form and the run ----
  'labMqa.kvHeads': { one: '{count} K/V head', other: '{count} K/V heads' },
  'labMqa.steps': 'Steps per variant',
  'labMqa.stepsHint': 'copy task, {vocab} symbols, {tokens} tokens; one layer of the Llama block',
  'labMqa.start': 'Train all three',
  'labMqa.again': 'Train all three again',
  'labMqa.idle': { one: 'Not trained yet: press “{start}” ({variants} variants × {seeds} seeds × {count} step, about {secs} s).',
    other: 'Not trained yet: press “{start}” ({variants} variants × {seeds} seeds × {count} steps, about {secs} s).' },
  'labMqa.done': { one: 'Done: {done} of {total} models ({variants} variants × {seeds} seeds) × {count} step in {secs} s.',
    other: 'Done: {done} of {total} models ({variants} variants × {seeds} seeds) × {count} steps in {secs} s.' },
  'labMqa.stopped': { one: 'Stopped: {done} of {total} models ({variants} variants × {seeds} seeds) × {count} step in {secs} s.',
    other: 'Stopped: {done} of {total} models ({variants} variants × {seeds} seeds) × {count} steps in {secs} s.' },
  // ---- the results ----
  'labMqa.results': 'Results',
  'labMqa.col.variant': 'Variant',
  'labMqa.col.weights': 'Attention weights',
  'labMqa.col.bytesPerToken': 'KV bytes / token',
  'labMqa.col.bytesAtN': 'KV at N = {N}',
  'labMqa.col.loss': 'Held-out loss',
  'labMqa.col.lossNote': { one: 'nats / token, mean ± sd of {count} seed', other: 'nats / token, mean ± sd of {count} seeds' },
  'labMqa.col.vsMha': 'Against MHA',
  'labMqa.col.vsMhaNote': 'nats, ± standard error',
  'labMqa.col.accuracy': 'Accuracy',
  'labMqa.col.accuracyNote': 'predictable positions, mean',
  'labMqa.chartY': 'held-out loss (nats / token)',
  // ---- the budget (labs/mqa-budget.js) ----
  'labMqa.budget': 'Weights and KV cache',
  'labMqa.budgetCaption': 'Attention weights of one block (no biases) and KV cache at fp32 ({bpe} bytes per element), D = {D}, H = {H}, dh = {dh}.',
  'labMqa.budget.vsMha': 'vs MHA',
  'labMqa.budget.perToken': 'KV cache / token / layer',
  'labMqa.budget.atN': 'KV cache at N = {N}',
  'labMqa.budget.cacheVsMha': 'cache vs MHA',
  'labMqa.smaller': '{ratio} smaller',
  'labMqa.budgetSentence': 'MQA keeps one K/V head for all {H} query heads: it removes {removed} weights (2 · D · (D − dh) = 2 · {D} · {Ddh}), '
    + '{from} → {to} ({change}), and its cache is {ratio} smaller at every N: {cacheFrom} → {cacheTo} at N = {N} per layer.',
  // ---- the verdict (labs/verdicts.js summariseMqa) ----
  'labMqa.numbers': { one: 'held-out loss (mean ± standard deviation over {count} seed, nats per token): MHA {mha}, GQA {gqa}, MQA {mqa}; against MHA, GQA {dg} and MQA {dq} (the difference of the means ± its standard error)',
    other: 'held-out loss (mean ± standard deviation over {count} seeds, nats per token): MHA {mha}, GQA {gqa}, MQA {mqa}; against MHA, GQA {dg} and MQA {dq} (the difference of the means ± its standard error)' },
  'labMqa.fewSteps': { one: 'Only {count} step per model: too few for a verdict on what MQA costs (the losses are still falling; train at least {enough}). The numbers so far: {numbers}.',
    other: 'Only {count} steps per model: too few for a verdict on what MQA costs (the losses are still falling; train at least {enough}). The numbers so far: {numbers}.' },
  'labMqa.notSettled': 'Not settled yet: held-out loss still fell by {drop} nats over the last fifth of the {steps} steps (more than {limit}), so no variant is named better yet: train longer. So far, {numbers}.',
  'labMqa.same': '{name} shows no measurable difference from MHA ({diff} nats, within {k} standard errors)',
  'labMqa.costs': '{name} costs {cost} nats of held-out loss ({diff}, beyond {k} standard errors)',
  'labMqa.negligible': '{name}\'s difference from MHA is measurable but negligible ({diff} nats: beyond {k} standard errors, but under {limit})',
  'labMqa.narrows': 'The gap between {name} and MHA still narrows with training: {before} nats at step {step}, {now} at step {steps}. Train longer to see where it ends.',
  'labMqa.below': '{name}\'s held-out loss is {gain} nats below MHA\'s ({diff}, beyond {k} standard errors)',
  'labMqa.verdict': { one: 'After {steps} steps, {count} seed per variant: {mqa}, for {fewer} % fewer attention weights and a cache {ratio}× smaller ({small} instead of {large} at N = {N}); {gqa}. In numbers: {numbers}.',
    other: 'After {steps} steps, {count} seeds per variant: {mqa}, for {fewer} % fewer attention weights and a cache {ratio}× smaller ({small} instead of {large} at N = {N}); {gqa}. In numbers: {numbers}.' },
});
