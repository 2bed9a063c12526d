// zoo.js — the page's words in English: the bundled models trained on Shakespeare as a source of maps
// (sources/zoo-model.js: its summary, each head's label (sources/zoo-roles.js), the notes under the maps (sources/zoo-notes.js)). Imported by
// that source, so they come with its chunk, not with the first map's; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  'zoo.which': 'Model: {label}, seed {seed}, {bits} bits per token on held-out Shakespeare. Each head is labelled with the role that stands out, if any.',
  'zoo.trainedHow': { one: 'How they were trained: {steps} steps, seed {seeds}, {hours} CPU-hours for the six models.', other: 'How they were trained: {steps} steps of {tokens} tokens each, {count} seeds ({seeds}), {hours} CPU-hours for the six models and their seeds.' },
  'zoo.curriculum': '{percent} % of the training windows repeat a stretch of their own text (a copying curriculum, which gives induction heads something to learn).',
  'zoo.curriculumRandom': '{percent} % of the training windows hold a stretch of random words written twice: its second copy can only be predicted by copying the first, as an induction head does. The induction score is measured on other sequences of that kind (random words, repeated), never trained on.',
  'zoo.floor.previousToken.met': 'A clear previous-token head (a score of {floor} or more) is there: the best scores {best} ({model}, layer {layer} head {head}).',
  'zoo.floor.previousToken.missed': 'No head of the zoo reaches {floor} on the previous token, the score of a clear previous-token head: the best is {best} ({model}, layer {layer} head {head}).',
  'zoo.floor.induction.met': 'A clear induction head (a score of {floor} or more) is there: the best scores {best} ({model}, layer {layer} head {head}).',
  'zoo.floor.induction.missed': 'No head of the zoo reaches {floor} on induction, the score of a clear induction head: the best is {best} ({model}, layer {layer} head {head}).',
  'zoo.role.previous': 'previous token {value}',
  'zoo.role.self': 'self {value}',
  'zoo.role.first': 'first token {value}',
  'zoo.role.induction': 'induction {value}',
  'zoo.role.none': 'no role stands out',
});
