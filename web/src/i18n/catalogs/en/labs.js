// labs.js — the page's words in English: the parts the labs share (labs/runner.js: Start / Stop, progress,
// the fields; labs/fields.js: what a field allows; labs/models.js: Export, Inspect, Import and their
// messages; labs/tasks.js: a task in words, an import refused for another lab's task). Imported by the
// code that speaks them, so they come with the labs' chunks; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- the runner ----
  'labs.stop': 'Stop',
  'labs.stopping': '{progress} — stopping…',
  'labs.loadingFile': 'Loading {file}…',
  'labs.loadedFile': { one: 'Loaded {file}: trained {count} step; held-out loss {loss}.', other: 'Loaded {file}: trained {count} steps; held-out loss {loss}.' },
  'labs.trainingFailed': 'Training failed.',
  'labs.importFailed': 'Import failed.',
  'labs.seedOf': '{name} seed {seed}',
  'labs.stepOf': '{name}: step {step} / {steps}',
  'labs.chartStep': 'optimiser step',
  // ---- a field's value (labs/fields.js) ----
  'labs.field.whole': '{label}: enter a whole number from {min} to {max}.',
  'labs.field.wholeNot': '{label}: enter a whole number from {min} to {max} (not “{text}”).',
  'labs.field.list': '{label}: whole numbers from {min} to {max}, separated by commas.',
  'labs.field.listNot': '{label}: whole numbers from {min} to {max}, separated by commas (not {bad}).',
  'labs.field.most': '{label}: at most {most} values (you gave {count}).',
  // ---- trained models (labs/models.js) ----
  'labs.models.trained': 'Trained model',
  'labs.models.export': 'Export model',
  'labs.models.inspect': 'Inspect in the attention view',
  'labs.models.import': 'Import model',
  'labs.models.exportFailed': 'Export failed.',
  'labs.models.openInModel': 'Open in the model view',
  'labs.models.openFailed': 'The model could not be opened in the model view.',
  'labs.models.imported': 'imported: {file}',
  'labs.models.importedNote': 'imported: {file} ({note})',
  'labs.models.notLoadable': '“{file}” is not a model this page can load.',
  'labs.models.notImported': '“{file}” is not imported: {reason}',
  'labs.models.example': { one: '{count} token id, then the same again', other: '{count} token ids, then the same again' },
  // ---- tasks (labs/tasks.js) ----
  'labs.task.copy': 'the copy task',
  // ---- Save results (labs/table.js) ----
  'labs.saveResults': 'Save results',
  'labs.saveResultsOf': '{text} ({what}): a CSV or JSON file',
  'labs.task.induction': 'the induction task',
  'labs.task.chars': 'the character task',
  'labs.task.pairs': 'the two-tokens-back task',
  'labs.task.other': 'the task “{name}”',
  'labs.task.details': '{task} ({details})',
  'labs.task.tokens': { one: '{count} token', other: '{count} tokens' },
  'labs.task.vocabulary': 'vocabulary {size}',
  'labs.task.lab': 'Lab {n}',
  'labs.task.unrecorded': 'task not recorded in the file',
  'labs.task.othersLab': 'it holds a model trained on {task}, {lab}\'s task; this lab trains on {own}: import it in {lab}.',
  'labs.task.unknown': 'it holds a model trained on {task}; this lab trains on {own}.',
});
