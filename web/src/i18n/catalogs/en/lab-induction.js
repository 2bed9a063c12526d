// lab-induction.js — the page's words in English: Lab 4, induction heads (views/lab-induction.js, its
// maps labs/induction-maps.js, the heads' scores and roles in labs/verdicts.js). Imported by the code
// that speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the task and the run ----
  'labInd.what': 'Task: sequences of {seqLen} tokens with a repeated random segment; on the repeat the next token is predictable (A B … A → B). '
    + 'Model: {layers} layers × {heads} heads, the Llama block (RMSNorm, RoPE, a SwiGLU MLP, no biases: as the zoo\'s models and real Llama models), d_model = {dModel}; batch {batch}.',
  'labInd.openNote': 'Once trained, “Open in the model view” opens it in the real-model view, as a Hugging Face checkpoint.',
  'labInd.steps': 'Steps',
  'labInd.stepsHint': '{seqLen} tokens, batch {batch}',
  'labInd.start': 'Start',
  'labInd.idle': { one: 'Not trained yet: press {start} ({count} step, about {secs} s).', other: 'Not trained yet: press {start} ({count} steps, about {secs} s).' },
  'labInd.creating': 'Creating the model…',
  'labInd.step': 'Step {step} / {steps}',
  'labInd.done': 'Done at step {step} / {steps} in {secs} s ({rate} tokens/s).',
  'labInd.stopped': 'Stopped at step {step} / {steps} in {secs} s ({rate} tokens/s).',
  'labInd.model': 'induction model',
  'labInd.example': 'the induction lab\'s model ({half} tokens, then the same again)',
  'labInd.imported': { one: 'Imported {file}: trained {count} step; held-out accuracy {accuracy} %, loss {loss}.',
    other: 'Imported {file}: trained {count} steps; held-out accuracy {accuracy} %, loss {loss}.' },
  'labInd.loaded': 'Loaded {file}.',
  'labInd.zoo.note': 'Trained natively with these settings when the page was built, five seeds; one of them comes with the page. Its heads and maps, at once:',
  'labInd.zoo.show': 'Show the bundled trained model',
  'labInd.zoo.listed': 'the bundled model (seed {seed})',
  'labInd.zoo.failed': 'The bundled model could not be shown:',
  'labInd.zoo.shown': { one: 'The bundled model (seed {seed}, {steps} steps, trained natively with this lab\'s settings): held-out accuracy {accuracy} %, loss {loss} nats; over its {count} seed, accuracy {lo}–{hi} %.',
    other: 'The bundled model (seed {seed}, {steps} steps, trained natively with this lab\'s settings): held-out accuracy {accuracy} %, loss {loss} nats; over its {count} seeds, accuracy {lo}–{hi} %.' },
  // ---- the charts and the milestone ----
  'labInd.lossAxis': 'training loss (nats)',
  'labInd.lossSeries': 'training loss',
  'labInd.accuracyAxis': 'accuracy (%, A…A → B)',
  'labInd.accuracySeries': 'accuracy (%)',
  'labInd.reached': 'Held-out accuracy {accuracy} % at step {step}; first reached {target} % at step {reached} (evaluated every {every} steps).',
  'labInd.notYet': 'Held-out accuracy {accuracy} % at step {step}; not yet {target} %.',
  // ---- the heads' scores (labs/verdicts.js SCORES, roleOf) ----
  'labInd.scores': 'Head scores',
  'labInd.scoresCaption': 'Head scores (mean attention on the pattern\'s key; 1 = all of it, about {uniform} for a head spreading its weight evenly over {n} positions). A role needs a score above {clear} that also clearly beats that.',
  'labInd.col.layer': 'layer',
  'labInd.col.head': 'head',
  'labInd.col.role': 'role (score > {clear})',
  'labInd.score.previousToken': 'previous token',
  'labInd.score.induction': 'induction',
  'labInd.score.firstToken': 'first token',
  'labInd.score.diagonal': 'diagonal',
  'labInd.role.previousToken': 'previous-token head',
  'labInd.role.induction': 'induction head',
  'labInd.role.firstToken': 'sink (first-token) head',
  'labInd.role.diagonal': 'self (diagonal) head',
  // ---- the maps (labs/induction-maps.js) ----
  'labInd.mapsHint': 'Hover or tap a cell, or focus a map and use the arrow keys (PageUp / PageDown: the next head).',
  'labInd.mapTitle': 'layer {layer} · head {head}',
  'labInd.cell': '{title} · query {i} “{q}” → key {j} “{k}”: {value}',
  'labInd.cellRole': '{title} ({role}) · query {i} “{q}” → key {j} “{k}”: {value}',
  'labInd.saveAll': 'Save all maps',
  'labInd.mapsCaption': 'Attention of the trained heads (rows: queries, columns: keys; upper triangle masked) on an example: {half} random tokens, then the same {half} again: [{tokens}]. '
    + 'An induction head lights up the diagonal stripe one step right of the repeat\'s offset.',
});
